package controller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "fakekube/go/examples/guestbook/api/v1"
	"fakekube/go/fakekubeenv"
	"fakekube/go/internal/clusters"
)

var scheme = runtime.NewScheme()

func init() {
	_ = clientgoscheme.AddToScheme(scheme)
	_ = webappv1.AddToScheme(scheme)
}

// fakekube runs the controllers the oracle's kube-controller-manager runs (garbage collector, service
// accounts, root CA; fakekube's garbage collector also empties deleted namespaces, as the namespace
// controller does), so one set of assertions holds on both: no kubelet, scheduler or deployment
// controller, so a Deployment never gets ready pods on either (TestTheGuestbookBecomesAvailable adds them).
var oracleLikeControllers = []string{"garbagecollector", "serviceaccount", "root-ca-cert-publisher"}

func TestMain(m *testing.M) {
	// Errors only: a reconcile that fails shows up, the routine log does not.
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	os.Exit(clusters.Main(m, clusters.Options{
		CRDDirectoryPaths: []string{"../config/crd/bases"},
		Scheme:            scheme,
		Fakekube:          fakekubeenv.Environment{Controllers: oracleLikeControllers},
	}))
}

// operator is the guestbook operator running against one cluster, watching one fresh namespace.
type operator struct {
	client.Client
	namespace string
	cluster   *clusters.Cluster
}

// startOperator creates a namespace and runs the operator's manager on it until the test ends; cleanup
// deletes the test's guestbooks while the operator still runs (so their finalizers are honoured).
func startOperator(t *testing.T, cfg *rest.Config) *operator {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gb-" + randomSuffix()}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:     scheme,
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{ns.Name: {}}},
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr(true)}, // one manager per test in this process
	})
	if err != nil {
		t.Fatal(err)
	}
	reconciler := &GuestbookReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder(FieldManager)}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		_ = c.DeleteAllOf(context.Background(), &webappv1.Guestbook{}, client.InNamespace(ns.Name))
		_ = poll(30*time.Second, func() error {
			list := &webappv1.GuestbookList{}
			if err := c.List(context.Background(), list, client.InNamespace(ns.Name)); err != nil {
				return err
			}
			if len(list.Items) > 0 {
				return fmt.Errorf("%d guestbooks left", len(list.Items))
			}
			return nil
		})
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
		_ = c.Delete(context.Background(), ns)
	})
	return &operator{Client: c, namespace: ns.Name}
}

func (o *operator) key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: o.namespace, Name: name}
}

func (o *operator) newGuestbook(name, image string, replicas int32) *webappv1.Guestbook {
	return &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.namespace},
		Spec:       webappv1.GuestbookSpec{Image: image, Replicas: ptr(replicas)},
	}
}

// eventually retries check until it returns nil, failing the test with its last error after timeout.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	eventuallyWithin(t, 20*time.Second, what, check)
}

func eventuallyWithin(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	if err := poll(timeout, check); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func poll(timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func expect[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	return nil
}

// firstError is the first non-nil error: several expectations in one polled check.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

func randomSuffix() string {
	raw := make([]byte, 4)
	_, _ = rand.Read(raw)
	return hex.EncodeToString(raw)
}

func useExistingCluster() bool { return strings.EqualFold(os.Getenv("USE_EXISTING_CLUSTER"), "true") }
