package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"fakekube/go/fakekubeenv"
)

const (
	bootRuns  = 5
	suiteRuns = 3
)

func TestBootAndSuiteSideBySide(t *testing.T) {
	if os.Getenv("FAKEKUBE_GO_BENCH") != "1" {
		t.Skip("set FAKEKUBE_GO_BENCH=1 (and FAKEKUBE_ORACLE_BIN) to run the benchmark")
	}
	oracle := oracleBinary(t)
	var rows []string
	row := func(name string, samples []time.Duration) {
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %d |", name, median(samples).Round(10*time.Millisecond),
			spread(samples), len(samples)))
	}
	row("boot: fakekube serve, no actors (as envtest)", repeat(t, bootRuns, func() time.Duration {
		return bootFakekube(t, fakekubeenv.Environment{NoControllers: true})
	}))
	row("boot: fakekube serve, all actors, 1 node", repeat(t, bootRuns, func() time.Duration {
		return bootFakekube(t, fakekubeenv.Environment{})
	}))
	if oracle != "" {
		row("boot: kube-apiserver + etcd (envtest's pair)", repeat(t, bootRuns, func() time.Duration {
			return bootOracle(t, oracle, "--controllers=")
		}))
		row("boot: kube-apiserver + etcd + kube-controller-manager", repeat(t, bootRuns, func() time.Duration {
			return bootOracle(t, oracle)
		}))
	}
	suite := buildSuite(t)
	// The whole suite, and the suite without its garbage-collection case: kube-controller-manager's garbage
	// collector finds a CRD installed after it started only at its next discovery (every 30 s), which
	// dominates a fresh control plane's run; envtest has no garbage collector at all.
	const gcCase = "TestDeletionRunsTheFinalizerThenTheGarbageCollector"
	row("suite: guestbook operator on fakekube (boot included)", repeat(t, suiteRuns, func() time.Duration {
		return runSuite(t, suite, "fakekube", "")
	}))
	if oracle != "" {
		row("suite: guestbook operator on the oracle (boot included)", repeat(t, suiteRuns, func() time.Duration {
			return runSuite(t, suite, "oracle", "")
		}))
	}
	row("suite without the GC case, on fakekube", repeat(t, suiteRuns, func() time.Duration {
		return runSuite(t, suite, "fakekube", gcCase)
	}))
	if oracle != "" {
		row("suite without the GC case, on the oracle", repeat(t, suiteRuns, func() time.Duration {
			return runSuite(t, suite, "oracle", gcCase)
		}))
	}
	t.Logf("\n| what | median | min-max | runs |\n|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

func oracleBinary(t *testing.T) string {
	path := os.Getenv("FAKEKUBE_ORACLE_BIN")
	if path == "" {
		t.Log("FAKEKUBE_ORACLE_BIN is not set: fakekube only")
		return ""
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, "oracle")
	}
	return path
}

func repeat(t *testing.T, n int, f func() time.Duration) []time.Duration {
	var out []time.Duration
	for range n {
		out = append(out, f())
	}
	return out
}

func median(samples []time.Duration) time.Duration {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

func spread(samples []time.Duration) string {
	return fmt.Sprintf("%s-%s", slices.Min(samples).Round(10*time.Millisecond), slices.Max(samples).Round(10*time.Millisecond))
}

// bootFakekube is Start's time: process start, ready file, the first answered GET.
func bootFakekube(t *testing.T, env fakekubeenv.Environment) time.Duration {
	begin := time.Now()
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	return took
}

// bootOracle is the oracle's time from exec to its ready file and a first answered GET.
func bootOracle(t *testing.T, binary string, args ...string) time.Duration {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(binary, append([]string{"--dir", filepath.Join(dir, "data"), "--ready-file", ready}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	for {
		if data, err := os.ReadFile(ready); err == nil && strings.HasSuffix(string(data), "\n") {
			cfg, err := clientcmd.BuildConfigFromFlags("", strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			clients := kubernetes.NewForConfigOrDie(cfg)
			if _, err := clients.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			return time.Since(begin)
		}
		if time.Since(begin) > 3*time.Minute {
			t.Fatal("the oracle was not ready in 3 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// buildSuite compiles the guestbook operator's suite once, so the timed runs are the suite, not the compiler.
func buildSuite(t *testing.T) string {
	binary := filepath.Join(t.TempDir(), "guestbook.test")
	build := exec.Command("go", "test", "-c", "-o", binary, "../examples/guestbook/controller")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the suite: %v\n%s", err, out)
	}
	return binary
}

// runSuite runs the suite binary on one server (it starts that server itself) and returns its wall time.
// The fakekube-only test (nodes, pods, Available) is left out, so both run the same cases; so is skip.
func runSuite(t *testing.T, binary, server, skip string) time.Duration {
	skipped := "TestTheGuestbookBecomesAvailable"
	if skip != "" {
		skipped += "|" + skip
	}
	cmd := exec.Command(binary, "-test.count=1", "-test.skip="+skipped)
	cmd.Dir = "../examples/guestbook/controller"
	cmd.Env = append(os.Environ(), "FAKEKUBE_GO_SERVERS="+server)
	if server == "fakekube" {
		cmd.Env = append(cmd.Env, "FAKEKUBE_ORACLE_BIN=", "FAKEKUBE_ORACLE_KUBECONFIG=")
	}
	begin := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(begin)
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("the suite on %s: %v\n%s", server, err, out)
	}
	return took
}
