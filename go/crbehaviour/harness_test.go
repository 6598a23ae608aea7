package crbehaviour

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"fakekube/go/fakekubeenv"
	"fakekube/go/internal/clusters"
)

var scheme = runtime.NewScheme()

func init() { _ = clientgoscheme.AddToScheme(scheme) }

// No actors but the ones the oracle has (see the guestbook suite): the rows assert API behaviour only.
func TestMain(m *testing.M) {
	// Quiet: the leader-election row stops managers that still hold the lease ("leader election lost"), and
	// client-go's event broadcaster reports events about objects of namespaces already deleted.
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.DPanicLevel)))
	klog.SetLogger(logr.Discard())
	os.Exit(clusters.Main(m, clusters.Options{
		CRDDirectoryPaths: []string{"testdata/crds"},
		Fakekube:          fakekubeenv.Environment{Controllers: []string{"garbagecollector", "serviceaccount", "root-ca-cert-publisher"}},
	}))
}

// harness is one row's world: a fresh namespace on one cluster and a client that reads from the server.
type harness struct {
	t         *testing.T
	cluster   *clusters.Cluster
	namespace string
	stops     map[manager.Manager]func()
	client.Client
}

func newHarness(t *testing.T, c *clusters.Cluster) *harness {
	t.Helper()
	direct, err := client.New(c.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "crb-" + randomSuffix()}}
	if err := direct.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Delete(context.Background(), ns) })
	return &harness{t: t, cluster: c, namespace: ns.Name, Client: direct, stops: map[manager.Manager]func(){}}
}

// manager builds a manager whose cache sees only the row's namespace; setup runs before it starts (field
// indexes, controllers). It runs until the row ends; the cache has synced when this returns.
func (h *harness) manager(options manager.Options, setup func(mgr manager.Manager) error) manager.Manager {
	h.t.Helper()
	options.Scheme = scheme
	if options.Cache.DefaultNamespaces == nil {
		options.Cache.DefaultNamespaces = map[string]cache.Config{h.namespace: {}}
	}
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	options.Controller = config.Controller{SkipNameValidation: ptr(true)}
	mgr, err := ctrl.NewManager(h.cluster.Config, options)
	if err != nil {
		h.t.Fatal(err)
	}
	if setup != nil {
		if err := setup(mgr); err != nil {
			h.t.Fatal(err)
		}
	}
	h.stops[mgr] = h.run(mgr)
	if !mgr.GetCache().WaitForCacheSync(context.Background()) {
		h.t.Fatal("the cache did not sync")
	}
	return mgr
}

// run starts a manager until the row ends (or until the returned stop is called).
func (h *harness) run(mgr manager.Manager) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				h.t.Errorf("manager: %v", err)
			}
		case <-time.After(30 * time.Second):
			h.t.Error("the manager did not stop")
		}
	}
	h.t.Cleanup(stop)
	return stop
}

// stop stops a manager started by h.manager before the row ends (its cleanup is then a no-op).
func (h *harness) stop(mgr manager.Manager) {
	h.t.Helper()
	stop, ok := h.stops[mgr]
	if !ok {
		h.t.Fatal("not a harness manager")
	}
	stop()
}

func (h *harness) configMap(name string, labels, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.namespace, Labels: labels}, Data: data}
}

func (h *harness) create(objects ...client.Object) {
	h.t.Helper()
	for _, o := range objects {
		if err := h.Create(context.Background(), o); err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *harness) widget(name string, size int64) *unstructured.Unstructured {
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": h.namespace},
		"spec":     map[string]any{"size": size},
	}}
	return w
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func expect[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

func randomSuffix() string {
	raw := make([]byte, 4)
	_, _ = rand.Read(raw)
	return hex.EncodeToString(raw)
}
