package podstreams_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/client-go/util/exec"

	"fakekube/go/fakekubeenv"
)

var (
	cfg       *rest.Config
	clientset *kubernetes.Clientset
)

const namespace = "default"

func TestMain(m *testing.M) {
	env := &fakekubeenv.Environment{ServeArgs: []string{"--pod-start-latency", "0"}}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	clientset = kubernetes.NewForConfigOrDie(cfg)
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// runningPod creates an nginx pod and waits until the fake kubelet reports it running.
func runningPod(t *testing.T, prefix string) string {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	created, err := clientset.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	name := created.Name
	t.Cleanup(func() { _ = clientset.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{}) })
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true,
		func(ctx context.Context) (bool, error) {
			p, err := clientset.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, err
		})
	if err != nil {
		t.Fatalf("pod %s not running: %v", name, err)
	}
	return name
}

func execURL(pod string, command []string, stdin bool) *url.URL {
	return clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).
		SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Container: "web", Command: command, Stdin: stdin, Stdout: true, Stderr: true,
	}, scheme.ParameterCodec).URL()
}

// The executors an operator builds: SPDY (client-go before WebSockets, still the default of many), the
// WebSocket one, and the fallback kubectl ≥ 1.30 uses (WebSocket first, SPDY when the upgrade fails).
var executors = map[string]func(u *url.URL) (remotecommand.Executor, error){
	"spdy": func(u *url.URL) (remotecommand.Executor, error) {
		return remotecommand.NewSPDYExecutor(cfg, "POST", u)
	},
	"websocket": func(u *url.URL) (remotecommand.Executor, error) {
		return remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
	},
	"fallback": func(u *url.URL) (remotecommand.Executor, error) {
		ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
		if err != nil {
			return nil, err
		}
		sp, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
		if err != nil {
			return nil, err
		}
		return remotecommand.NewFallbackExecutor(ws, sp, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	},
}

func TestExec(t *testing.T) {
	pod := runningPod(t, "exec-")
	cases := []struct {
		name     string
		command  []string
		stdin    string
		stdout   string
		stderr   string
		exitCode int
	}{
		{name: "output", command: []string{"sh", "-c", "echo out; echo err >&2"}, stdout: "out\n", stderr: "err\n"},
		{name: "exit code", command: []string{"sh", "-c", "echo bye; exit 3"}, stdout: "bye\n", exitCode: 3},
		{name: "stdin", command: []string{"cat"}, stdin: "typed\nlines\n", stdout: "typed\nlines\n"},
		{name: "files", command: []string{"sh", "-c", "echo kept > /tmp/x; cat /tmp/x"}, stdout: "kept\n"},
		{name: "missing command", command: []string{"nosuch"}, exitCode: 126},
	}
	for execName, newExecutor := range executors {
		for _, tc := range cases {
			t.Run(execName+"/"+tc.name, func(t *testing.T) {
				ex, err := newExecutor(execURL(pod, tc.command, tc.stdin != ""))
				if err != nil {
					t.Fatal(err)
				}
				var stdout, stderr bytes.Buffer
				opts := remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}
				if tc.stdin != "" {
					opts.Stdin = strings.NewReader(tc.stdin)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				err = ex.StreamWithContext(ctx, opts)
				code := 0
				var exitErr exec.CodeExitError
				if errors.As(err, &exitErr) {
					code = exitErr.Code
				} else if err != nil {
					t.Fatalf("stream: %v", err)
				}
				if code != tc.exitCode {
					t.Errorf("exit code %d, want %d (stderr %q)", code, tc.exitCode, stderr.String())
				}
				if tc.stdout != "" && stdout.String() != tc.stdout || tc.stderr != "" && stderr.String() != tc.stderr {
					t.Errorf("stdout %q stderr %q, want %q %q", stdout.String(), stderr.String(), tc.stdout, tc.stderr)
				}
			})
		}
	}
}

// The dialers an operator's port-forward uses: SPDY, SPDY tunnelled through a WebSocket (kubectl ≥ 1.31),
// and the fallback between them that kubectl builds.
var dialers = map[string]func(u *url.URL) (httpstream.Dialer, error){
	"spdy": spdyDialer,
	"tunnel": func(u *url.URL) (httpstream.Dialer, error) {
		return portforward.NewSPDYOverWebsocketDialer(u, cfg)
	},
	"fallback": func(u *url.URL) (httpstream.Dialer, error) {
		tunnel, err := portforward.NewSPDYOverWebsocketDialer(u, cfg)
		if err != nil {
			return nil, err
		}
		plain, err := spdyDialer(u)
		if err != nil {
			return nil, err
		}
		return portforward.NewFallbackDialer(tunnel, plain, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		}), nil
	},
}

func spdyDialer(u *url.URL) (httpstream.Dialer, error) {
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, err
	}
	return spdy.NewDialer(upgrader, &http.Client{Transport: transport}, "POST", u), nil
}

func TestPortForward(t *testing.T) {
	pod := runningPod(t, "forward-")
	u := clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).
		SubResource("portforward").URL()
	cases := []struct {
		path   string
		status int
		body   string
	}{
		{path: "/", status: 200, body: "Welcome to nginx!"},
		{path: "/missing", status: 404, body: "404 Not Found"},
	}
	for name, newDialer := range dialers {
		t.Run(name, func(t *testing.T) {
			dialer, err := newDialer(u)
			if err != nil {
				t.Fatal(err)
			}
			stop, ready := make(chan struct{}), make(chan struct{})
			var out, errOut bytes.Buffer
			fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:80"}, stop, ready, &out, &errOut)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- fw.ForwardPorts() }()
			select {
			case <-ready:
			case err := <-done:
				t.Fatalf("port-forward ended before ready: %v (%s)", err, errOut.String())
			case <-time.After(30 * time.Second):
				t.Fatal("port-forward not ready")
			}
			ports, err := fw.GetPorts()
			if err != nil {
				t.Fatal(err)
			}
			httpClient := &http.Client{Timeout: 10 * time.Second}
			for _, tc := range cases { // each request is a new forwarded connection (its own stream pair)
				resp, err := httpClient.Get(fmt.Sprintf("http://127.0.0.1:%d%s", ports[0].Local, tc.path))
				if err != nil {
					t.Fatalf("GET %s: %v", tc.path, err)
				}
				body, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.body) {
					t.Errorf("GET %s: %d %q, want %d with %q", tc.path, resp.StatusCode, body, tc.status, tc.body)
				}
				httpClient.CloseIdleConnections()
			}
			close(stop)
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("ForwardPorts: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("ForwardPorts did not return after stop")
			}
			if errOut.Len() > 0 {
				t.Errorf("port-forward errors: %s", errOut.String())
			}
		})
	}
}
