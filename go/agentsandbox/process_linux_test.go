package agentsandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// controller is the agent-sandbox controller process, its output in a file.
type controller struct {
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	err    error
}

// startController starts argv with env added, and stops it (SIGTERM, SIGKILL after 10 s) when the test ends. As
// fakekubeenv does for the server: PR_SET_PDEATHSIG kills it if the test binary dies, and the signal follows the
// thread that forked, so the fork happens on a locked thread that lives (blocked in Wait) as long as the child.
func startController(t *testing.T, argv []string, env []string) *controller {
	t.Helper()
	c := &controller{log: fmt.Sprintf("%s/controller.log", t.TempDir()), exited: make(chan struct{})}
	logFile, err := os.Create(c.log)
	if err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer logFile.Close()
		if err := c.cmd.Start(); err != nil {
			started <- err
			runtime.UnlockOSThread()
			return
		}
		started <- nil
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		t.Fatalf("starting %s: %v", argv[0], err)
	}
	t.Cleanup(func() {
		stopping := time.Now()
		defer func() { t.Logf("the controller stopped in %s", time.Since(stopping).Round(time.Millisecond)) }()
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		// The log lives in the test's temporary folder, which goes with the test: keep a copy when asked.
		if keep := os.Getenv("FAKEKUBE_AGENT_SANDBOX_LOG"); keep != "" {
			if data, err := os.ReadFile(c.log); err == nil {
				_ = os.WriteFile(keep, data, 0o644)
			}
		}
	})
	return c
}

// errors counts the controller's error-level JSON log lines (--zap-encoder=json) by message and error.
func (c *controller) errors(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile(c.log)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		var entry struct{ Level, Msg, Error string }
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Level != "error" {
			continue
		}
		// Names vary from run to run; the kind of failure does not.
		counts[entry.Msg+": "+generatedName.ReplaceAllString(entry.Error, "<name>")]++
	}
	return counts
}

var generatedName = regexp.MustCompile(`"[a-z0-9-]+-[a-z0-9]{5}"`)

// alive fails the test with the log's end when the controller has exited.
func (c *controller) alive(t *testing.T) {
	t.Helper()
	select {
	case <-c.exited:
		data, _ := os.ReadFile(c.log)
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		t.Fatalf("the agent-sandbox controller exited (%v):\n%s", c.err, data)
	default:
	}
}
