// Package clusters gives a Go test suite the API servers to run on: fakekube (through fakekubeenv) and,
// when one is configured, the real kube-apiserver of the repository's oracle — or only the cluster of
// $KUBECONFIG when USE_EXISTING_CLUSTER=true, as envtest does. Suites run every case on each, with the
// same assertions.
//
//	FAKEKUBE_ORACLE_KUBECONFIG=PATH   a running oracle (scripts/go-tests starts one for all packages)
//	FAKEKUBE_ORACLE_BIN=DIR|BINARY    start an oracle per test binary (oracle/bin or oracle/bin/oracle)
//	USE_EXISTING_CLUSTER=true         only the cluster of $KUBECONFIG (fakekube serve, a real one)
//	FAKEKUBE_GO_SERVERS=fakekube|oracle   only that one of the two (benchmarks time each alone)
package clusters

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"fakekube/go/fakekubeenv"
)

// Kind says which server a Cluster is.
type Kind string

const (
	Fakekube Kind = "fakekube" // started here by fakekubeenv
	Oracle   Kind = "oracle"   // a real kube-apiserver v1.37.2 with GC, namespace, service-account and root-CA controllers
	Existing Kind = "existing" // USE_EXISTING_CLUSTER: whatever $KUBECONFIG names
)

// Cluster is one API server the suite runs on.
type Cluster struct {
	Kind       Kind
	Config     *rest.Config
	Kubeconfig string
	Boot       time.Duration // from start to ready, for servers started here
	stop       func() error
}

// Options are a suite's CRDs (installed on every cluster as envtest would) and how to start fakekube.
type Options struct {
	CRDDirectoryPaths []string
	CRDs              []*apiextensionsv1.CustomResourceDefinition
	Scheme            *runtime.Scheme
	// Fakekube is the template for the fakekube Environment (cluster actors, ...); its CRD fields are set
	// from the options above.
	Fakekube fakekubeenv.Environment
}

var all []*Cluster

// All is the clusters Main started.
func All() []*Cluster { return all }

// Main starts the clusters, runs the tests and stops the clusters; use it as TestMain's body.
func Main(m *testing.M, options Options) int {
	started, err := Start(options)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	all = started
	code := m.Run()
	for _, c := range started {
		if err := c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping %s: %v\n", c.Kind, err)
			code = 1
		}
	}
	return code
}

// Each runs f as a subtest on every cluster, named after its kind.
func Each(t *testing.T, f func(t *testing.T, c *Cluster)) {
	t.Helper()
	if len(all) == 0 {
		t.Fatal("no clusters: call clusters.Main from TestMain")
	}
	for _, c := range all {
		t.Run(string(c.Kind), func(t *testing.T) { f(t, c) })
	}
}

// Start starts (or connects to) the clusters the environment asks for and installs the CRDs on each.
func Start(options Options) ([]*Cluster, error) {
	var started []*Cluster
	fail := func(err error) ([]*Cluster, error) {
		for _, c := range started {
			_ = c.Stop()
		}
		return nil, err
	}
	if strings.EqualFold(os.Getenv("USE_EXISTING_CLUSTER"), "true") {
		c, err := fromKubeconfig(Existing, os.Getenv("KUBECONFIG"))
		if err != nil {
			return nil, err
		}
		if err := installCRDs(c, options); err != nil {
			return nil, err
		}
		return []*Cluster{c}, nil
	}
	only := os.Getenv("FAKEKUBE_GO_SERVERS")
	if only != "" && only != string(Fakekube) && only != string(Oracle) {
		return nil, fmt.Errorf("FAKEKUBE_GO_SERVERS=%s: want fakekube or oracle", only)
	}
	if only != string(Oracle) {
		env := options.Fakekube
		env.CRDDirectoryPaths = options.CRDDirectoryPaths
		env.CRDs = options.CRDs
		env.ErrorIfCRDPathMissing = true
		env.Scheme = options.Scheme
		begin := time.Now()
		cfg, err := env.Start()
		if err != nil {
			return nil, err
		}
		started = append(started, &Cluster{Kind: Fakekube, Config: cfg, Kubeconfig: env.Kubeconfig(),
			Boot: time.Since(begin), stop: env.Stop})
	}
	if only == string(Fakekube) {
		return started, nil
	}
	oracle, err := startOracle()
	if err != nil {
		return fail(err)
	}
	if oracle == nil && only == string(Oracle) {
		return nil, fmt.Errorf("FAKEKUBE_GO_SERVERS=oracle needs FAKEKUBE_ORACLE_KUBECONFIG or FAKEKUBE_ORACLE_BIN")
	}
	if oracle != nil {
		started = append(started, oracle)
		if err := installCRDs(oracle, options); err != nil {
			return fail(err)
		}
	}
	return started, nil
}

// Stop stops a server started here; a cluster that was already running is left as it is.
func (c *Cluster) Stop() error {
	if c.stop == nil {
		return nil
	}
	return c.stop()
}

func fromKubeconfig(kind Kind, path string) (*Cluster, error) {
	if path == "" {
		return nil, fmt.Errorf("%s cluster: no kubeconfig path (set KUBECONFIG)", kind)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("%s cluster: %w", kind, err)
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	return &Cluster{Kind: kind, Config: cfg, Kubeconfig: path}, nil
}

func installCRDs(c *Cluster, options Options) error {
	if len(options.CRDDirectoryPaths) == 0 && len(options.CRDs) == 0 {
		return nil
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range options.CRDs {
		crds = append(crds, crd.DeepCopy())
	}
	installed, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{
		Paths: options.CRDDirectoryPaths, CRDs: crds, ErrorIfPathMissing: true, Scheme: options.Scheme})
	if err != nil {
		return fmt.Errorf("%s cluster: installing CRDs: %w", c.Kind, err)
	}
	if err := fakekubeenv.WaitForCRDs(c.Config, installed, 0, 0); err != nil {
		return fmt.Errorf("%s cluster: %w", c.Kind, err)
	}
	return nil
}
