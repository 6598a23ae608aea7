package agentsandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"fakekube/go/fakekubeenv"
)

// The resources, at the API version the CRDs store: v1alpha1 at the #508 commit, v1beta1 from v0.5.0.
var templates, warmPools, claims, sandboxes schema.GroupVersionResource

func useVersion(version string) {
	templates = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: version, Resource: "sandboxtemplates"}
	warmPools = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: version, Resource: "sandboxwarmpools"}
	claims = schema.GroupVersionResource{Group: "extensions.agents.x-k8s.io", Version: version, Resource: "sandboxclaims"}
	sandboxes = schema.GroupVersionResource{Group: "agents.x-k8s.io", Version: version, Resource: "sandboxes"}
}

const (
	namespace    = "default"
	systemNS     = "agent-sandbox-system" // the controller's leader-election Lease and webhook-certificate Secret
	warmPoolSize = 2
	warmLabel    = "agents.x-k8s.io/warm-pool-sandbox" // on a pool's sandboxes; the claim controller removes it on adoption
)

// prFlags are the controller-manager flags of the PR #508 load test (shared/reference/pr-508.md), all kept.
var prFlags = []string{
	"--leader-elect=true", "--extensions", "--enable-tracing=true", "--zap-log-level=debug", "--zap-encoder=json",
	"--enable-pprof-debug", "--kube-api-qps=1000", "--kube-api-burst=2000", "--sandbox-concurrent-workers=400",
	"--sandbox-claim-concurrent-workers=400", "--sandbox-warm-pool-concurrent-workers=1",
}

func TestTheRealControllerClaimsASandboxFromAWarmPool(t *testing.T) {
	binary, crds := os.Getenv("FAKEKUBE_AGENT_SANDBOX_BIN"), os.Getenv("FAKEKUBE_AGENT_SANDBOX_CRDS")
	if binary == "" || crds == "" {
		t.Skip("set FAKEKUBE_AGENT_SANDBOX_BIN and FAKEKUBE_AGENT_SANDBOX_CRDS (scripts/agent-sandbox-e2e does)")
	}
	version := storageVersion(t, filepath.Join(crds, "extensions.agents.x-k8s.io_sandboxclaims.yaml"))
	useVersion(version)
	t.Logf("agent-sandbox API %s (%s)", version, binary)
	audit := filepath.Join(t.TempDir(), "audit.log")
	env := &fakekubeenv.Environment{
		CRDDirectoryPaths:     []string{crds},
		ErrorIfCRDPathMissing: true,
		Nodes:                 1,
		AuditLogPath:          audit,
		// The load test's template runs `sleep 3600` with restartPolicy Never: fakekube's kubelet runs such a
		// container for --job-duration seconds (default 0.5 s), so the warm pods would complete and be replaced.
		ServeArgs: []string{"--job-duration", "3600"},
	}
	boot := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fakekube serve (1 node) up, CRDs installed, in %s", time.Since(boot).Round(time.Millisecond))
	t.Cleanup(func() {
		stopping := time.Now()
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
		t.Logf("fakekube serve stopped in %s", time.Since(stopping).Round(time.Millisecond))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	core := kubernetes.NewForConfigOrDie(cfg)
	client := dynamic.NewForConfigOrDie(cfg)
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Outside a pod the controller cannot guess its namespace; its metrics and probe servers get free loopback
	// ports instead of :8080 and :8081. From v0.5.0 it also serves a conversion webhook (v1alpha1 <-> v1beta1;
	// never called here, every request uses the storage version), which needs a port and a certificate folder.
	argv := append([]string{binary}, prFlags...)
	argv = append(argv, "--leader-election-namespace="+systemNS,
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0")
	if hasFlag(t, binary, "webhook-port") {
		argv = append(argv, "--webhook-namespace="+systemNS, "--webhook-cert-dir="+t.TempDir(),
			"--webhook-port="+strconv.Itoa(freePort(t)))
	}
	// --enable-tracing exports spans over OTLP to localhost:4317, where nothing listens here: at exit the tracer
	// flushes them and would wait out the exporter's 10 s timeout.
	ctrl := startController(t, argv, []string{"KUBECONFIG=" + env.Kubeconfig(), "OTEL_EXPORTER_OTLP_TIMEOUT=500"})

	// The load test's objects (dev/load-test: a python:3.11-slim template running sleep 3600, a pool).
	create(ctx, t, client, templates, map[string]any{
		"apiVersion": templates.GroupVersion().String(), "kind": "SandboxTemplate",
		"metadata": map[string]any{"name": "python"},
		"spec": map[string]any{"podTemplate": map[string]any{"spec": map[string]any{
			"restartPolicy": "Never",
			"containers": []any{map[string]any{
				"name": "python", "image": "python:3.11-slim", "command": []any{"sleep", "3600"}}},
		}}},
	})
	create(ctx, t, client, warmPools, map[string]any{
		"apiVersion": warmPools.GroupVersion().String(), "kind": "SandboxWarmPool",
		"metadata": map[string]any{"name": "warmpool-0"},
		"spec":     map[string]any{"replicas": int64(warmPoolSize), "sandboxTemplateRef": map[string]any{"name": "python"}},
	})
	begin := time.Now()
	warm := waitForWarmPool(ctx, t, client, ctrl, nil)
	t.Logf("warm pool of %d Ready in %s: %v", warmPoolSize, time.Since(begin).Round(time.Millisecond), names(warm))
	warmPods := map[string]string{} // sandbox name -> its pod's UID
	for _, sandbox := range warm {
		pod, err := core.CoreV1().Pods(namespace).Get(ctx, sandbox.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the warm sandbox %s has no pod of its name: %v", sandbox.GetName(), err)
		}
		warmPods[sandbox.GetName()] = string(pod.UID)
	}

	// The claim, watched from before its creation so the Ready event cannot be missed.
	watcher, err := client.Resource(claims).Namespace(namespace).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=agent-claim-4"})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Stop()
	created := time.Now()
	// v1beta1 names the pool; v1alpha1 names the template and takes any of its pools (spec.warmpool "default").
	spec := map[string]any{"warmPoolRef": map[string]any{"name": "warmpool-0"}}
	if version == "v1alpha1" {
		spec = map[string]any{"sandboxTemplateRef": map[string]any{"name": "python"}}
	}
	create(ctx, t, client, claims, map[string]any{
		"apiVersion": claims.GroupVersion().String(), "kind": "SandboxClaim",
		"metadata": map[string]any{"name": "agent-claim-4"},
		"spec":     spec,
	})
	claim := waitForReady(ctx, t, watcher, ctrl)
	latency := time.Since(created)
	adopted, _, _ := unstructured.NestedString(claim.Object, "status", "sandbox", "name")
	t.Logf("claim Ready %s after its create, with sandbox %q", latency.Round(time.Millisecond), adopted)

	// Adopted, not made: the claim's sandbox is one of the warm ones, now controlled by the claim and out of the
	// pool, and its pod is the same pod that was warm.
	if _, ok := warmPods[adopted]; !ok {
		t.Fatalf("the claim's sandbox %q is not one of the warm sandboxes %v", adopted, names(warm))
	}
	sandbox, err := client.Resource(sandboxes).Namespace(namespace).Get(ctx, adopted, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if owner := metav1.GetControllerOf(sandbox); owner == nil || owner.Kind != "SandboxClaim" || owner.Name != "agent-claim-4" || owner.UID != claim.GetUID() {
		t.Errorf("the adopted sandbox's controller is %+v, want the claim", owner)
	}
	if _, pooled := sandbox.GetLabels()[warmLabel]; pooled {
		t.Errorf("the adopted sandbox still carries %s: %v", warmLabel, sandbox.GetLabels())
	}
	if pod, err := core.CoreV1().Pods(namespace).Get(ctx, adopted, metav1.GetOptions{}); err != nil {
		t.Errorf("the adopted sandbox's pod: %v", err)
	} else if string(pod.UID) != warmPods[adopted] {
		t.Errorf("the adopted sandbox's pod was replaced: uid %s, was %s", pod.UID, warmPods[adopted])
	}

	// The pool orders a replacement and is full again, without the adopted sandbox.
	refilled := waitForWarmPool(ctx, t, client, ctrl, map[string]bool{adopted: true})
	t.Logf("warm pool refilled %s after the claim's create: %v", time.Since(created).Round(time.Millisecond), names(refilled))

	// PR #508: the claim's status is written with a merge patch, which carries no resourceVersion and so
	// cannot conflict. The other conflicts are the cluster's races (sandbox status updates, pod updates against
	// the kubelet) and are reported, not asserted: their number depends on timing.
	conflicts, err := env.AuditConflicts()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("409 conflicts in fakekube's audit log: %v", conflicts)
	t.Logf("the controller's error log lines: %v", ctrl.errors(t))
	if n := conflicts["sandboxclaims.extensions.agents.x-k8s.io/status"]; n != 0 {
		t.Errorf("%d conflicts on the claim's status, which #508 writes with a merge patch", n)
	}
	events, err := fakekubeenv.ReadAuditLog(audit)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the claim's timeline (writes from its create until 1 s after it was Ready, as PR #508's tables):\n%s",
		timeline(events, "agent-claim-4", latency+time.Second))
}

func create(ctx context.Context, t *testing.T, client dynamic.Interface, gvr schema.GroupVersionResource, object map[string]any) {
	t.Helper()
	if _, err := client.Resource(gvr).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: object}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating %s: %v", gvr.Resource, err)
	}
}

// waitForWarmPool waits until the pool's sandboxes (those carrying its label, none in except) number
// warmPoolSize and are all Ready, as the load test's WaitForGenericK8sObjects step does.
func waitForWarmPool(ctx context.Context, t *testing.T, client dynamic.Interface, ctrl *controller, except map[string]bool) []unstructured.Unstructured {
	t.Helper()
	var last []string
	for {
		ctrl.alive(t)
		list, err := client.Resource(sandboxes).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: warmLabel})
		if err != nil {
			t.Fatal(err)
		}
		var ready []unstructured.Unstructured
		last = last[:0]
		for _, sandbox := range list.Items {
			last = append(last, fmt.Sprintf("%s ready=%v", sandbox.GetName(), isReady(&sandbox)))
			if isReady(&sandbox) && !except[sandbox.GetName()] {
				ready = append(ready, sandbox)
			}
		}
		if len(ready) == warmPoolSize && len(list.Items) == warmPoolSize {
			return ready
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the warm pool never had %d Ready sandboxes: %v", warmPoolSize, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func waitForReady(ctx context.Context, t *testing.T, watcher watch.Interface, ctrl *controller) *unstructured.Unstructured {
	t.Helper()
	var last *unstructured.Unstructured
	for {
		select {
		case event, ok := <-watcher.ResultChan():
			if !ok {
				t.Fatal("the claim's watch ended")
			}
			if object, isObject := event.Object.(*unstructured.Unstructured); isObject {
				last = object
				if isReady(object) {
					return object
				}
			}
		case <-time.After(time.Second):
			ctrl.alive(t)
		case <-ctx.Done():
			t.Fatalf("the claim never became Ready; last seen: %v", last)
		}
	}
}

func isReady(object *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(object.Object, "status", "conditions")
	for _, c := range conditions {
		condition, _ := c.(map[string]any)
		if condition["type"] == "Ready" {
			return condition["status"] == "True"
		}
	}
	return false
}

func names(objects []unstructured.Unstructured) []string {
	var out []string
	for _, o := range objects {
		out = append(out, o.GetName())
	}
	sort.Strings(out)
	return out
}

// timeline renders the writes from the claim's create on, for span, as PR #508's tables do: Step | Delta (ms) |
// Method | Target Resource | Result, Delta counted from the first row (the create).
func timeline(events []fakekubeenv.AuditEvent, claim string, span time.Duration) string {
	// The log is written as requests complete: order by arrival, as a real audit log is read.
	events = append([]fakekubeenv.AuditEvent{}, events...)
	sort.SliceStable(events, func(i, j int) bool {
		return events[i].RequestReceivedTimestamp.Before(events[j].RequestReceivedTimestamp)
	})
	var from time.Time
	for _, e := range events {
		if e.Verb == "create" && e.ObjectRef != nil && e.ObjectRef.Resource == "sandboxclaims" && e.ObjectRef.Name == claim {
			from = e.RequestReceivedTimestamp
			break
		}
	}
	if from.IsZero() {
		return "(the claim's create is not in the audit log)"
	}
	var rows []string
	var first time.Time
	for _, e := range events {
		at := e.RequestReceivedTimestamp
		if e.Stage != "ResponseComplete" || e.ObjectRef == nil || at.Before(from) || at.After(from.Add(span)) {
			continue
		}
		method := map[string]string{"create": "CREATE", "update": "UPDATE", "patch": "PATCH", "delete": "DELETE"}[e.Verb]
		if method == "" || e.ObjectRef.Resource == "leases" {
			continue
		}
		if first.IsZero() {
			first = at
		}
		target := e.ObjectRef.Resource
		if e.ObjectRef.Name != "" {
			target += "/" + e.ObjectRef.Name
		}
		if e.ObjectRef.Subresource != "" {
			target += "/" + e.ObjectRef.Subresource
		}
		result := ""
		if e.ResponseStatus != nil {
			result = strconv.Itoa(e.ResponseStatus.Code)
			if e.ResponseStatus.Reason != "" {
				result += " " + e.ResponseStatus.Reason
			}
		}
		rows = append(rows, fmt.Sprintf("| %d | %d | %s | %s | %s (%s) |", len(rows)+1, at.Sub(first).Milliseconds(),
			method, target, result, e.User.Username))
	}
	return "| Step | Delta (ms) | Method | Target Resource | Result |\n|---:|---:|---|---|---|\n" + strings.Join(rows, "\n")
}

// storageVersion is the version a CRD manifest stores.
func storageVersion(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	t.Fatalf("%s stores no version", path)
	return ""
}

// hasFlag asks the binary's -help whether it has a flag (its flags changed between releases).
func hasFlag(t *testing.T, binary, name string) bool {
	t.Helper()
	out, _ := exec.Command(binary, "-help").CombinedOutput() // flag's -help exits 0 or 2 by version
	return strings.Contains(string(out), "-"+name+" ")
}

func freePort(t *testing.T) int {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port
}
