package fakekubeenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Environment runs one `fakekube serve` for a test suite. The CRD fields mean what they mean in
// envtest.Environment (CRDs are installed by envtest.InstallCRDs, then WaitForCRDs waits until they are Established
// and in the discovery a client reads);
// the cluster fields choose what acts on the server besides the API (envtest has only the API server).
//
// There is no Seed: the cluster's actors run on the wall clock in `fakekube serve`, where ordering comes
// from threads and sockets, so a seed would not make a run repeatable (the deterministic, seeded runs are
// fakekube's in-process simulations, from Python).
type Environment struct {
	// CRDDirectoryPaths are directories or files of CRD manifests (YAML or JSON) to install.
	CRDDirectoryPaths []string
	// CRDs are CRD objects to install; after Start it holds every CRD installed.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// ErrorIfCRDPathMissing makes Start fail when a CRDDirectoryPaths entry does not exist.
	ErrorIfCRDPathMissing bool
	// CRDInstallOptions are envtest's remaining options (MaxTime, PollInterval, Scheme, ...); the fields
	// above are merged into them as envtest.Environment does.
	CRDInstallOptions envtest.CRDInstallOptions
	// Scheme decides which CRDs get a conversion webhook (envtest's meaning); default client-go's scheme.
	Scheme *runtime.Scheme

	// KubernetesVersion is the release whose built-in API to serve, "1.30" or "v1.30.4"; default
	// fakekube's newest.
	KubernetesVersion string
	// Nodes is how many fake nodes (each with a kubelet) to run; 0 means fakekube's default, one.
	Nodes int
	// Controllers are the cluster actors to run (fakekube serve --controllers: "deployment", "kubelet",
	// "garbagecollector", "-job", "*", ...); nil means all of them.
	Controllers []string
	// NoControllers runs no actor at all (no nodes, controllers, garbage collector): a bare API server,
	// as envtest gives.
	NoControllers bool
	// AuditLogPath, if set, is where the server writes every request as an audit.k8s.io/v1 Event (JSON
	// lines, as kube-apiserver's --audit-log-path); AuditConflicts reads it.
	AuditLogPath string
	// ServeArgs are more `fakekube serve` arguments, passed as they are (e.g. "--pod-start-latency", "0").
	ServeArgs []string
	// StartTimeout bounds Start (default $FAKEKUBE_START_TIMEOUT, else 60s); StopTimeout is how long
	// Stop waits after SIGTERM before SIGKILL (default 10s).
	StartTimeout, StopTimeout time.Duration
	// Output, if set, gets a copy of the server's log (it is always kept in a file; errors quote its end).
	Output io.Writer

	// Config is the admin client configuration, set by Start.
	Config *rest.Config

	dir        string
	kubeconfig string
	server     *server
	version    string
}

// Start starts `fakekube serve` on a free loopback port with TLS and a random bearer token, waits until
// it is ready (actors running, nodes registered) and answers, installs the CRDs and waits until they are
// Established. On any error nothing is left running.
func (e *Environment) Start() (cfg *rest.Config, err error) {
	if e.server != nil {
		return nil, errors.New("fakekubeenv: Start called twice without Stop")
	}
	args, err := e.serveArgs()
	if err != nil {
		return nil, err
	}
	cmd, err := locate()
	if err != nil {
		return nil, err
	}
	timeout := e.startTimeout()
	deadline := time.Now().Add(timeout)
	// Ask the version while the server boots: both are Python start-ups, and the answer is cached.
	versionDone := make(chan error, 1)
	go func() {
		version, err := checkVersion(cmd)
		e.version = version
		versionDone <- err
	}()
	dir, err := os.MkdirTemp("", "fakekubeenv-")
	if err != nil {
		return nil, err
	}
	e.dir, e.kubeconfig = dir, filepath.Join(dir, "kubeconfig")
	ready := filepath.Join(dir, "ready")
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	argv := append(append([]string{}, cmd.argv...), "serve", "--host", "127.0.0.1", "--port", "0", "--tls",
		"--token", token, "--kubeconfig", e.kubeconfig, "--ready-file", ready)
	argv = append(argv, args...)
	defer func() {
		if err != nil {
			// The error already quotes what the log said: leave nothing behind.
			_ = e.Stop()
			_ = os.RemoveAll(dir)
		}
	}()
	e.server, err = startServer(argv, filepath.Join(dir, "fakekube.log"), e.Output)
	if err != nil {
		_ = os.RemoveAll(dir)
		if versionErr := <-versionDone; versionErr != nil {
			return nil, versionErr
		}
		return nil, fmt.Errorf("fakekubeenv: cannot start %s: %w", cmd, err)
	}
	if err := e.waitForReadyFile(ready, deadline, timeout, versionDone); err != nil {
		return nil, err
	}
	cfg, err = e.restConfig()
	if err != nil {
		return nil, err
	}
	if err := e.waitAnswers(cfg, deadline); err != nil {
		return nil, err
	}
	if err := e.installCRDs(cfg); err != nil {
		return nil, err
	}
	e.Config = cfg
	return cfg, nil
}

// Stop stops the server (SIGTERM, then SIGKILL after StopTimeout), waits for it and removes its files.
// It is safe to call more than once and on an Environment that never started. It returns an error if the
// server had died before Stop, quoting its log; its files are then kept for a post-mortem (LogPath).
func (e *Environment) Stop() error {
	if e.server == nil {
		return nil
	}
	timeout := e.StopTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	err := e.server.stop(timeout)
	if err == nil {
		_ = os.RemoveAll(e.dir)
	}
	e.server = nil
	return err
}

// Kubeconfig is the path of a kubeconfig for the running server (for kubectl --kubeconfig, or KUBECONFIG
// for a suite that uses an existing cluster). It holds the server's CA and the bearer token.
func (e *Environment) Kubeconfig() string { return e.kubeconfig }

// Exited is closed when the server process ends, for a test that wants to fail fast when it dies.
func (e *Environment) Exited() <-chan struct{} {
	if e.server == nil {
		closed := make(chan struct{})
		close(closed)
		return closed
	}
	return e.server.exited
}

// Err is nil while the server runs; once it has died, it says how, with the end of its log.
func (e *Environment) Err() error {
	if e.server == nil {
		return errors.New("fakekubeenv: not started")
	}
	return e.server.exitError()
}

// Version is the fakekube version that `fakekube --version` reported (known after Start).
func (e *Environment) Version() string { return e.version }

// LogPath is the server's log file (removed by a clean Stop).
func (e *Environment) LogPath() string {
	if e.server == nil {
		return ""
	}
	return e.server.logPath
}

// AuditConflicts counts the 409 Conflict answers in the audit log by resource (see Conflicts).
func (e *Environment) AuditConflicts() (map[string]int, error) {
	if e.AuditLogPath == "" {
		return nil, errors.New("fakekubeenv: AuditConflicts needs AuditLogPath")
	}
	return Conflicts(e.AuditLogPath)
}

func (e *Environment) serveArgs() ([]string, error) {
	var args []string
	if e.KubernetesVersion != "" {
		version, err := minorRelease(e.KubernetesVersion)
		if err != nil {
			return nil, err
		}
		args = append(args, "--kubernetes-version", version)
	}
	if e.NoControllers && e.Controllers != nil {
		return nil, errors.New("fakekubeenv: set Controllers or NoControllers, not both")
	}
	if e.Nodes < 0 {
		return nil, fmt.Errorf("fakekubeenv: Nodes is %d; it cannot be negative", e.Nodes)
	}
	if e.Nodes > 0 {
		args = append(args, "--nodes", strconv.Itoa(e.Nodes))
	}
	if e.NoControllers {
		args = append(args, "--no-controllers")
	} else if e.Controllers != nil {
		args = append(args, "--controllers", strings.Join(e.Controllers, ","))
	}
	if e.AuditLogPath != "" {
		path, err := filepath.Abs(e.AuditLogPath)
		if err != nil {
			return nil, err
		}
		args = append(args, "--audit-log", path)
	}
	return append(args, e.ServeArgs...), nil
}

// minorRelease turns "1.30", "v1.30" or "v1.30.4" into the "1.30" fakekube serve takes.
func minorRelease(version string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(version, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return "", fmt.Errorf("fakekubeenv: KubernetesVersion %q is not 1.X or v1.X.Y", version)
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return "", fmt.Errorf("fakekubeenv: KubernetesVersion %q is not 1.X or v1.X.Y", version)
		}
	}
	return parts[0] + "." + parts[1], nil
}

func (e *Environment) startTimeout() time.Duration {
	if e.StartTimeout > 0 {
		return e.StartTimeout
	}
	if text := os.Getenv("FAKEKUBE_START_TIMEOUT"); text != "" {
		if d, err := time.ParseDuration(text); err == nil && d > 0 {
			return d
		}
	}
	return time.Minute
}

// waitForReadyFile polls for the file `fakekube serve --ready-file` writes once its actors run. A version
// check that fails ends the wait at once: it is the one error that explains everything else.
func (e *Environment) waitForReadyFile(path string, deadline time.Time, timeout time.Duration, versionDone <-chan error) error {
	versionChecked := false
	for {
		if !versionChecked {
			select {
			case err := <-versionDone:
				if err != nil {
					return err
				}
				versionChecked = true
			default:
			}
		}
		if _, err := os.Stat(path); err == nil && versionChecked {
			return nil
		}
		if err := e.server.exitError(); err != nil {
			if !versionChecked {
				if versionErr := <-versionDone; versionErr != nil {
					return versionErr
				}
			}
			return fmt.Errorf("fakekubeenv: %w", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("fakekubeenv: fakekube serve was not ready within %s; its last log lines:\n%s",
				timeout, e.server.tail(logTailLines))
		}
		select {
		case <-e.server.exited:
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (e *Environment) restConfig() (*rest.Config, error) {
	data, err := os.ReadFile(e.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("fakekubeenv: reading the kubeconfig fakekube serve wrote: %w", err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, fmt.Errorf("fakekubeenv: the kubeconfig fakekube serve wrote: %w", err)
	}
	// As envtest's admin config: tests should not wait on client-side rate limits.
	cfg.QPS, cfg.Burst = 1000, 2000
	srv := e.server
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &diedTransport{next: rt, server: srv} })
	return cfg, nil
}

// waitAnswers waits until the default namespace can be read, as envtest does after starting its server.
func (e *Environment) waitAnswers(cfg *rest.Config, deadline time.Time) error {
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	for {
		_, err := clients.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if exit := e.server.exitError(); exit != nil {
			return fmt.Errorf("fakekubeenv: %w", exit)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("fakekubeenv: fakekube serve did not answer: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *Environment) installCRDs(cfg *rest.Config) error {
	options := e.CRDInstallOptions
	if options.Scheme == nil {
		options.Scheme = e.Scheme
	}
	options.CRDs = append(append([]*apiextensionsv1.CustomResourceDefinition{}, options.CRDs...), e.CRDs...)
	options.Paths = append(append([]string{}, options.Paths...), e.CRDDirectoryPaths...)
	options.ErrorIfPathMissing = options.ErrorIfPathMissing || e.ErrorIfCRDPathMissing
	if len(options.CRDs) == 0 && len(options.Paths) == 0 {
		return nil
	}
	installed, err := envtest.InstallCRDs(cfg, options)
	if err != nil {
		if exit := e.server.exitError(); exit != nil {
			return fmt.Errorf("fakekubeenv: installing CRDs: %w", exit)
		}
		return fmt.Errorf("fakekubeenv: unable to install CRDs: %w", err)
	}
	e.CRDs = installed
	if err := WaitForCRDs(cfg, installed, options.PollInterval, options.MaxTime); err != nil {
		if exit := e.server.exitError(); exit != nil {
			return fmt.Errorf("fakekubeenv: installing CRDs: %w", exit)
		}
		return err
	}
	return nil
}

func randomToken() (string, error) {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return hex.EncodeToString(raw), nil
}

// diedTransport turns a failed request to a server that has exited into an error that says so, with the
// end of its log, instead of a bare "connection refused".
type diedTransport struct {
	next   http.RoundTripper
	server *server
}

func (t *diedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		if exit := t.server.exitError(); exit != nil {
			return nil, fmt.Errorf("%w\nfakekubeenv: %w", err, exit)
		}
	}
	return resp, err
}
