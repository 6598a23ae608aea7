package fakekubeenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

var gadgetCRD = &apiextensionsv1.CustomResourceDefinition{
	ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
	Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com",
		Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Gadget", ListKind: "GadgetList", Plural: "gadgets", Singular: "gadget"},
		Scope: apiextensionsv1.ClusterScoped,
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
			Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", XPreserveUnknownFields: ptr(true)}},
		}},
	},
}

func ptr[T any](v T) *T { return &v }

// processesMentioning lists the processes whose command line contains text (Linux /proc).
func processesMentioning(t *testing.T, text string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	entries, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, path := range entries {
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), text) {
			found = append(found, filepath.Base(filepath.Dir(path))+": "+strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return found
}

func waitGone(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(processesMentioning(t, text)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind: %v", processesMentioning(t, text))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartInstallsCRDsFromPathsAndObjectsThenStopLeavesNothing(t *testing.T) {
	env := &Environment{
		CRDDirectoryPaths:     []string{"testdata/crds"},
		CRDs:                  []*apiextensionsv1.CustomResourceDefinition{gadgetCRD.DeepCopy()},
		ErrorIfCRDPathMissing: true,
		NoControllers:         true,
		KubernetesVersion:     "1.33",
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	if env.Config != cfg || env.Version() == "" {
		t.Errorf("Config %p (want %p), version %q", env.Config, cfg, env.Version())
	}
	var names []string
	for _, crd := range env.CRDs {
		names = append(names, crd.Name)
	}
	if strings.Join(names, ",") != "gadgets.example.com,widgets.example.com" && strings.Join(names, ",") != "widgets.example.com,gadgets.example.com" {
		t.Errorf("installed %v", names)
	}
	clients := kubernetes.NewForConfigOrDie(cfg)
	info, err := clients.Discovery().ServerVersion()
	if err != nil || info.Minor != "33" {
		t.Errorf("version %v, %v; want minor 33", info, err)
	}
	// Established already (envtest waited): the CRD's resource is served at once.
	widgets := dynamic.NewForConfigOrDie(cfg).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"})
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": int64(0)}}}
	if _, err := widgets.Namespace("default").Create(context.Background(), widget, metav1.CreateOptions{}); err == nil ||
		!strings.Contains(err.Error(), "spec.size") {
		t.Errorf("the CRD's schema was not enforced: %v", err)
	}
	// A fresh controller-runtime mapper knows both kinds at once (WaitForCRDs waited for the discovery it reads).
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	for _, gk := range []schema.GroupKind{{Group: "example.com", Kind: "Widget"}, {Group: "example.com", Kind: "Gadget"}} {
		if _, err := mapper.RESTMapping(gk); err != nil {
			t.Errorf("REST mapping of %s: %v", gk, err)
		}
	}
	// A CRD that is not there: WaitForCRDs gives up after maxTime and says what it waited for.
	absent := gadgetCRD.DeepCopy()
	absent.Name, absent.Spec.Names.Plural = "sprockets.example.com", "sprockets"
	err = WaitForCRDs(cfg, []*apiextensionsv1.CustomResourceDefinition{absent}, 20*time.Millisecond, 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "sprockets.example.com") || !strings.Contains(err.Error(), "not found") {
		t.Errorf("WaitForCRDs on a missing CRD: %v", err)
	}
	// NoControllers: a bare API server, as envtest's, has no nodes.
	nodes, err := clients.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 0 {
		t.Errorf("nodes %v, %v", nodes, err)
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "--kubeconfig", env.Kubeconfig(), "get", "crd", "-o", "name").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "customresourcedefinition.apiextensions.k8s.io/widgets.example.com") {
			t.Errorf("kubectl with Kubeconfig(): %v\n%s", err, out)
		}
	}
	dir := env.dir
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, dir)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there: %v", dir, err)
	}
	if err := env.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestAClusterWithNodesAndAnAuditLogOfConflicts(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.log")
	env := &Environment{Nodes: 2, Controllers: []string{"kubelet", "scheduler", "serviceaccount"}, AuditLogPath: audit}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	ctx := context.Background()
	clients := kubernetes.NewForConfigOrDie(cfg)
	nodes, err := clients.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("want 2 nodes registered by Start's return: %v, %v", nodes, err)
	}
	cm, err := clients.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := cm.DeepCopy()
	cm.Data = map[string]string{"a": "1"}
	if _, err := clients.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		stale.Data = map[string]string{"a": "2"}
		if _, err := clients.CoreV1().ConfigMaps("default").Update(ctx, stale, metav1.UpdateOptions{}); err == nil {
			t.Fatal("a stale update succeeded")
		}
	}
	if _, err := clients.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err == nil {
		t.Fatal("created twice")
	}
	if err := env.Stop(); err != nil { // flushes and closes the log
		t.Fatal(err)
	}
	conflicts, err := env.AuditConflicts()
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 1 || conflicts["configmaps"] != 3 {
		t.Errorf("conflicts %v, want configmaps: 3 (the AlreadyExists is no conflict)", conflicts)
	}
}

func TestMissingCRDPathFailsStartAndLeavesNothing(t *testing.T) {
	env := &Environment{CRDDirectoryPaths: []string{"testdata/no-such-dir"}, ErrorIfCRDPathMissing: true, NoControllers: true}
	_, err := env.Start()
	if err == nil || !strings.Contains(err.Error(), "no-such-dir") {
		t.Fatalf("error %v", err)
	}
	waitGone(t, env.dir)
	if _, err := os.Stat(env.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed Start left %s behind", env.dir)
	}
}

func TestTooOldFakekubeIsOneClearErrorAndItsServerIsStopped(t *testing.T) {
	dir := t.TempDir()
	// An old fakekube: no --version, and a serve that would run forever.
	script := writeScript(t, dir, "fakekube", `case "$1" in
--version) echo "usage: fakekube [-h] {simulate,serve}" >&2; echo "fakekube: error: unrecognized arguments: --version" >&2; exit 2;;
serve) exec sleep 600;;
esac`)
	t.Setenv("FAKEKUBE_BINARY", script)
	env := &Environment{StartTimeout: 5 * time.Second}
	start := time.Now()
	_, err := env.Start()
	if err == nil || !strings.Contains(err.Error(), "too old: it has no --version") || strings.Contains(err.Error(), "not ready") {
		t.Fatalf("error %v", err)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("the version error came after the start timeout (%s)", time.Since(start))
	}
	waitGone(t, env.dir)
	if _, err := os.Stat(env.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed Start left %s behind", env.dir)
	}
}

func TestAServerThatDiesMidSuiteFailsRequestsWithItsLastLogLines(t *testing.T) {
	env := &Environment{NoControllers: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()
	if env.Err() != nil {
		t.Fatalf("Err while running: %v", env.Err())
	}
	if err := env.server.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-env.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("Exited not closed")
	}
	_, err = kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	for _, want := range []string{"fakekube serve signal: killed", "its last log lines", "kubeconfig written to"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("request error %v does not say %q", err, want)
		}
	}
	logPath := env.LogPath()
	if err := env.Stop(); err == nil || !strings.Contains(err.Error(), "had already signal: killed before Stop") {
		t.Errorf("Stop: %v", err)
	}
	// Kept for a post-mortem after a death (this test's own, so it cleans up).
	if _, err := os.Stat(logPath); err != nil {
		t.Errorf("the log of a server that died is gone: %v", err)
	}
	_ = os.RemoveAll(filepath.Dir(logPath))
}

// The helper process: a test binary that starts a server and dies without stopping it.
func TestHelperProcessDiesWithAServer(t *testing.T) {
	if os.Getenv("FAKEKUBEENV_HELPER") != "1" {
		t.Skip("run by TestTheServerDiesWithTheTestBinary")
	}
	env := &Environment{NoControllers: true}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Println("DIR", env.dir)
	panic("the test binary dies without Stop")
}

func TestTheServerDiesWithTheTestBinary(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessDiesWithAServer$", "-test.v")
	cmd.Env = append(os.Environ(), "FAKEKUBEENV_HELPER=1")
	out, _ := cmd.CombinedOutput()
	var dir string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "DIR "); ok {
			dir = rest
		}
	}
	if dir == "" || !strings.Contains(string(out), "the test binary dies without Stop") {
		t.Fatalf("the helper did not start a server and panic:\n%s", out)
	}
	waitGone(t, dir)
	_ = os.RemoveAll(dir)
}
