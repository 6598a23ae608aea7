package fakekubeenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// logTailLines is how much of the server's log an error quotes.
const logTailLines = 20

// server is one running `fakekube serve`: its process, its log file, and whether it has exited.
type server struct {
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{} // closed once the process has been reaped
	mu      sync.Mutex
	waitErr error // the process's exit, once exited is closed
	stopped bool  // Stop asked it to exit, so its exit is no surprise
}

// startServer starts argv with its output in logPath (and copied to out if not nil). The process leads a
// process group of its own (so Stop reaches anything it starts) and, on Linux, is killed when this process
// dies (a test binary that panics or times out leaves no server behind).
func startServer(argv []string, logPath string, out io.Writer) (*server, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	s := &server{logPath: logPath, exited: make(chan struct{})}
	s.cmd = exec.Command(argv[0], argv[1:]...)
	var sink io.Writer = logFile
	if out != nil {
		sink = io.MultiWriter(logFile, out)
	}
	s.cmd.Stdout, s.cmd.Stderr = sink, sink
	s.cmd.SysProcAttr = sysProcAttr()
	started := make(chan error, 1)
	// PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not the process: fork from a
	// goroutine locked to its thread, and keep that thread alive (blocked in Wait) for the child's life.
	go func() {
		runtime.LockOSThread()
		defer logFile.Close()
		if err := s.cmd.Start(); err != nil {
			started <- err
			runtime.UnlockOSThread()
			return
		}
		started <- nil
		err := s.cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(s.exited)
		// The thread exits with this goroutine (still locked): the child is already gone.
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return s, nil
}

// hasExited reports whether the process has exited, without waiting.
func (s *server) hasExited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// exitError describes an exit nobody asked for, with the log's last lines; nil while it runs.
func (s *server) exitError() error {
	if !s.hasExited() {
		return nil
	}
	s.mu.Lock()
	waitErr, stopped := s.waitErr, s.stopped
	s.mu.Unlock()
	if stopped {
		return errors.New("fakekube serve was stopped (Environment.Stop)")
	}
	how := "exited with status 0"
	if waitErr != nil {
		how = waitErr.Error()
	}
	return fmt.Errorf("fakekube serve %s; its last log lines (%s):\n%s", how, s.logPath, s.tail(logTailLines))
}

// tail returns the last n lines of the log.
func (s *server) tail(n int) string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(data, []byte("?"))), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// stop sends SIGTERM to the process group (fakekube serve then stops its actors and closes its audit log),
// SIGKILL after timeout, and waits for the process. An error says the exit was not clean.
func (s *server) stop(timeout time.Duration) error {
	s.mu.Lock()
	already := s.stopped
	s.stopped = true
	s.mu.Unlock()
	if already {
		<-s.exited
		return nil
	}
	if s.hasExited() {
		return s.unexpectedExit()
	}
	pid := s.cmd.Process.Pid
	_ = signalGroup(pid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(timeout):
		_ = signalGroup(pid, syscall.SIGKILL)
		<-s.exited
		return fmt.Errorf("fakekube serve did not stop within %s of SIGTERM and was killed; its last log lines:\n%s",
			timeout, s.tail(logTailLines))
	}
	// The leader is gone; anything it started in its group goes too.
	_ = signalGroup(pid, syscall.SIGKILL)
	s.mu.Lock()
	waitErr := s.waitErr
	s.mu.Unlock()
	if waitErr != nil {
		return fmt.Errorf("fakekube serve exited uncleanly on SIGTERM (%v); its last log lines:\n%s", waitErr, s.tail(logTailLines))
	}
	return nil
}

// unexpectedExit is stop's answer for a server that had already died on its own.
func (s *server) unexpectedExit() error {
	s.mu.Lock()
	waitErr := s.waitErr
	s.mu.Unlock()
	how := "exited with status 0"
	if waitErr != nil {
		how = waitErr.Error()
	}
	return fmt.Errorf("fakekube serve had already %s before Stop; its last log lines (%s):\n%s", how, s.logPath, s.tail(logTailLines))
}
