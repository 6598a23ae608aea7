package clusters

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// startOracle connects to $FAKEKUBE_ORACLE_KUBECONFIG, or starts $FAKEKUBE_ORACLE_BIN; nil if neither is set.
func startOracle() (*Cluster, error) {
	if path := os.Getenv("FAKEKUBE_ORACLE_KUBECONFIG"); path != "" {
		return fromKubeconfig(Oracle, path)
	}
	binary := os.Getenv("FAKEKUBE_ORACLE_BIN")
	if binary == "" {
		return nil, nil
	}
	if info, err := os.Stat(binary); err == nil && info.IsDir() {
		binary = filepath.Join(binary, "oracle")
	}
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("FAKEKUBE_ORACLE_BIN: %w (build it with scripts/build-oracle)", err)
	}
	dir, err := os.MkdirTemp("", "fakekube-go-oracle-")
	if err != nil {
		return nil, err
	}
	ready := filepath.Join(dir, "ready")
	logPath := filepath.Join(dir, "oracle.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, "--dir", filepath.Join(dir, "data"), "--ready-file", ready)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGTERM when the test binary dies: the oracle then stops etcd and its apiserver cleanly.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	begin := time.Now()
	exited := make(chan struct{})
	started := make(chan error, 1)
	go func() { // the forking thread must outlive the child for Pdeathsig (see fakekubeenv)
		runtime.LockOSThread()
		defer logFile.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			runtime.UnlockOSThread()
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	stop := func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		return os.RemoveAll(dir)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		// The oracle writes its ready file in one write, but not atomically: wait for the whole line.
		if data, err := os.ReadFile(ready); err == nil && strings.HasSuffix(string(data), "\n") {
			c, err := fromKubeconfig(Oracle, strings.TrimSpace(string(data)))
			if err != nil {
				_ = stop()
				return nil, err
			}
			c.Boot, c.stop = time.Since(begin), stop
			return c, nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("the oracle exited before it was ready:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = stop()
			return nil, fmt.Errorf("the oracle was not ready within 3 minutes")
		}
	}
}
