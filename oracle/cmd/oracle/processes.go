package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// child is one control-plane binary run by the oracle. It dies with the oracle (Pdeathsig), so a killed oracle
// leaves no apiserver behind holding a port.
type child struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func startChild(path string, args []string, logPath string) (*child, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s not found beside the oracle binary (build all three with scripts/build-oracle): %w", path, err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	c := &child{name: path, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	return c, nil
}

// tail is the end of a child's log, for the error that says why it stopped.
func (c *child) tail() string {
	data, _ := os.ReadFile(c.log)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return c.name + " (log " + c.log + "):\n" + strings.Join(lines, "\n")
}

func stopChildren(children []*child) {
	for i := len(children) - 1; i >= 0; i-- {
		c := children[i]
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
}

func adminClient(p *pki) (*http.Client, error) {
	cert, err := tls.LoadX509KeyPair(p.adminCert, p.adminKey)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(p.caCert)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}},
	}, nil
}

// waitReady polls url until it answers 200, the child exits, or ctx ends.
func waitReady(ctx context.Context, client *http.Client, url string, c *child) error {
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %v\n%s", url, ctx.Err(), c.tail())
		case <-c.done:
			return fmt.Errorf("exited before %s was ready: %s", url, c.tail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func writeKubeconfig(path, server string, p *pki) error {
	read := func(file string) string {
		data, _ := os.ReadFile(file)
		return string(bytes.TrimSpace(data))
	}
	b64 := func(s string) string { return base64Std(s) }
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: oracle
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: oracle
  context:
    cluster: oracle
    user: admin
current-context: oracle
`, server, b64(read(p.caCert)), b64(read(p.adminCert)), b64(read(p.adminKey)))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s + "\n")) }
