package envtestcompat

import (
	"context"
	"os"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"fakekube/go/internal/clusters"
)

// The servers are started bare (as envtest's own would be): envtest installs the CRDs itself.
func TestMain(m *testing.M) {
	os.Exit(clusters.Main(m, clusters.Options{Fakekube: fakekubeEnvironment()}))
}

// The group is this package's own: scripts/go-tests shares one oracle between the packages, and this suite deletes
// its CRD at the end (CleanUpAfterUse), which must not take away crbehaviour's widgets.example.com mid-run.
var widgetGVK = schema.GroupVersionKind{Group: "envtestcompat.example.com", Version: "v1", Kind: "Widget"}

// TestAnEnvtestSuiteRunsUnchangedOnAnExistingCluster is an ordinary envtest suite: the only thing pointing it
// at the server is the environment (USE_EXISTING_CLUSTER, KUBECONFIG), as a user sets it in a shell.
func TestAnEnvtestSuiteRunsUnchangedOnAnExistingCluster(t *testing.T) {
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		t.Setenv("USE_EXISTING_CLUSTER", "true")
		t.Setenv("KUBECONFIG", c.Kubeconfig)

		// --- from here on, envtest code as a kubebuilder project has it ---
		testEnv := &envtest.Environment{
			CRDInstallOptions:     envtest.CRDInstallOptions{Paths: []string{"testdata/crds"}, CleanUpAfterUse: true},
			ErrorIfCRDPathMissing: true,
		}
		cfg, err := testEnv.Start()
		if err != nil {
			t.Fatal(err)
		}
		stopped := false
		defer func() {
			if !stopped {
				_ = testEnv.Stop()
			}
		}()
		if len(testEnv.CRDs) != 1 || testEnv.CRDs[0].Name != "widgets.envtestcompat.example.com" {
			t.Fatalf("installed %v", testEnv.CRDs)
		}
		scheme := runtime.NewScheme()
		_ = clientgoscheme.AddToScheme(scheme)
		_ = apiextensionsv1.AddToScheme(scheme)
		k8sClient, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()

		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := k8sClient.Get(ctx, types.NamespacedName{Name: "widgets.envtestcompat.example.com"}, crd); err != nil {
			t.Fatal(err)
		}
		if !established(crd) {
			t.Fatalf("envtest returned before the CRD was Established: %v", crd.Status.Conditions)
		}

		widget := &unstructured.Unstructured{}
		widget.SetGroupVersionKind(widgetGVK)
		widget.SetNamespace("default")
		widget.SetGenerateName("w-")
		_ = unstructured.SetNestedField(widget.Object, int64(3), "spec", "size")
		if err := k8sClient.Create(ctx, widget); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = k8sClient.Delete(context.Background(), widget) }()
		_ = unstructured.SetNestedField(widget.Object, "Ready", "status", "phase")
		if err := k8sClient.Status().Update(ctx, widget); err != nil {
			t.Fatal(err)
		}
		if widget.GetGeneration() != 1 {
			t.Errorf("a status write changed the generation: %d", widget.GetGeneration())
		}

		// A manager's cache serves the widget once synced.
		mgr, err := manager.New(cfg, manager.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
		if err != nil {
			t.Fatal(err)
		}
		mgrCtx, stopManager := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- mgr.Start(mgrCtx) }()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			t.Fatal("the cache did not sync")
		}
		cached := &unstructured.Unstructured{}
		cached.SetGroupVersionKind(widgetGVK)
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(widget), cached)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cache never served the widget: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if phase, _, _ := unstructured.NestedString(cached.Object, "status", "phase"); phase != "Ready" {
			t.Errorf("cached status.phase %q", phase)
		}
		stopManager()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
		_ = k8sClient.Delete(ctx, widget)

		stopped = true
		if err := testEnv.Stop(); err != nil {
			t.Fatal(err)
		}
		// CleanUpAfterUse: Stop deleted the CRD. envtest does not wait for it to go: kube-apiserver first removes
		// the custom resources (its customresourcecleanup finalizer), fakekube at once.
		deadline = time.Now().Add(30 * time.Second)
		for {
			err := k8sClient.Get(ctx, types.NamespacedName{Name: "widgets.envtestcompat.example.com"}, crd)
			if apierrors.IsNotFound(err) {
				break
			}
			if err == nil && crd.DeletionTimestamp == nil {
				t.Fatal("the CRD was not deleted by Stop")
			}
			if time.Now().After(deadline) {
				t.Fatalf("the CRD is still there 30s after Stop: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
