package crbehaviour

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"fakekube/go/internal/clusters"
)

// behaviours is the table: each row is what a reconciler relies on, checked the same way on every server.
var behaviours = []struct {
	name string
	run  func(t *testing.T, h *harness)
}{
	{"cache serves Get and List once synced", cacheReads},
	{"Create and Update, a stale Update is a 409", createAndUpdate},
	{"Patch MergeFrom applies blindly over a newer write", mergeFromIsBlind},
	{"Patch MergeFromWithOptimisticLock on a stale base is a 409", mergeFromWithOptimisticLock},
	{"server-side apply through client.Apply", serverSideApply},
	{"Status().Update and Status().Patch touch only the status", statusSubresource},
	{"DeleteAllOf deletes what the selector matches", deleteAllOf},
	{"field indexes in the cache, field selectors on the server", fieldIndexesAndSelectors},
	{"a label-selected cache sees only matching objects", labelSelectedCache},
	{"Owns enqueues the controlling owner", ownerEnqueueing},
	{"leader election on a coordination Lease", leaderElection},
	{"event recorders: core/v1 with aggregation, events.k8s.io/v1", eventRecorders},
}

func TestControllerRuntimeBehaviour(t *testing.T) {
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		for _, b := range behaviours {
			t.Run(b.name, func(t *testing.T) { b.run(t, newHarness(t, c)) })
		}
	})
}

func cacheReads(t *testing.T, h *harness) {
	ctx := context.Background()
	h.create(h.configMap("before-1", nil, nil), h.configMap("before-2", nil, nil))
	mgr := h.manager(manager.Options{}, nil)
	cached := mgr.GetClient() // reads from the informers
	// Synced means listed: what existed before the start is there without waiting.
	list := &corev1.ConfigMapList{}
	if err := cached.List(ctx, list, client.InNamespace(h.namespace)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	slices.Sort(names)
	// kube-root-ca.crt comes from the root-CA publisher on both servers, possibly a little later.
	names = slices.DeleteFunc(names, func(n string) bool { return n == "kube-root-ca.crt" })
	if strings.Join(names, ",") != "before-1,before-2" {
		t.Errorf("listed %v", names)
	}
	h.create(h.configMap("after", nil, map[string]string{"k": "v"}))
	eventually(t, "the watch delivers a new object", func() error {
		cm := &corev1.ConfigMap{}
		if err := cached.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "after"}, cm); err != nil {
			return err
		}
		return expect("data", cm.Data["k"], "v")
	})
	// A Get from the cache hands out a copy: changing it does not change the cache.
	cm := &corev1.ConfigMap{}
	_ = cached.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "after"}, cm)
	cm.Data["k"] = "changed"
	again := &corev1.ConfigMap{}
	_ = cached.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "after"}, again)
	if again.Data["k"] != "v" {
		t.Error("the cache handed out its own object")
	}
}

func createAndUpdate(t *testing.T, h *harness) {
	ctx := context.Background()
	cm := h.configMap("c", nil, map[string]string{"a": "1"})
	h.create(cm)
	if cm.ResourceVersion == "" || cm.UID == "" || cm.CreationTimestamp.IsZero() {
		t.Fatalf("Create did not fill in the object: %+v", cm.ObjectMeta)
	}
	stale := cm.DeepCopy()
	cm.Data["a"] = "2"
	if err := h.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if cm.ResourceVersion == stale.ResourceVersion {
		t.Error("Update kept the resourceVersion")
	}
	stale.Data["a"] = "3"
	err := h.Update(ctx, stale)
	want := `Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again`
	if !apierrors.IsConflict(err) || err.Error() != want {
		t.Fatalf("stale Update: %v", err)
	}
	// An Update without a resourceVersion is unconditional (last write wins).
	stale.ResourceVersion = ""
	if err := h.Update(ctx, stale); err != nil {
		t.Fatalf("unconditional Update: %v", err)
	}
	if err := h.Create(ctx, h.configMap("c", nil, nil)); !apierrors.IsAlreadyExists(err) || err.Error() != `configmaps "c" already exists` {
		t.Errorf("second Create: %v", err)
	}
}

func mergeFromIsBlind(t *testing.T, h *harness) {
	ctx := context.Background()
	cm := h.configMap("c", nil, map[string]string{"a": "1", "b": "1"})
	h.create(cm)
	base := cm.DeepCopy()
	newer := cm.DeepCopy()
	newer.Data["b"] = "someone else"
	if err := h.Update(ctx, newer); err != nil {
		t.Fatal(err)
	}
	// A patch from the old base carries only what changed against it ("a"), and no resourceVersion.
	cm.Data["a"] = "2"
	if err := h.Patch(ctx, cm, client.MergeFrom(base)); err != nil {
		t.Fatalf("a merge patch from a stale base: %v", err)
	}
	if cm.Data["a"] != "2" || cm.Data["b"] != "someone else" {
		t.Errorf("after the patch: %v", cm.Data)
	}
	// But a field the stale base also changed is overwritten silently: the newer write is lost.
	base2 := cm.DeepCopy()
	newer2 := cm.DeepCopy()
	newer2.Data["b"] = "newest"
	if err := h.Update(ctx, newer2); err != nil {
		t.Fatal(err)
	}
	cm.Data["b"] = "mine"
	if err := h.Patch(ctx, cm, client.MergeFrom(base2)); err != nil {
		t.Fatal(err)
	}
	if cm.Data["b"] != "mine" {
		t.Errorf("b = %q", cm.Data["b"])
	}
}

func mergeFromWithOptimisticLock(t *testing.T, h *harness) {
	ctx := context.Background()
	cm := h.configMap("c", nil, map[string]string{"a": "1"})
	h.create(cm)
	base := cm.DeepCopy()
	newer := cm.DeepCopy()
	newer.Data["b"] = "2"
	if err := h.Update(ctx, newer); err != nil {
		t.Fatal(err)
	}
	cm.Data["a"] = "2"
	err := h.Patch(ctx, cm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	want := `Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again`
	if !apierrors.IsConflict(err) || err.Error() != want {
		t.Fatalf("an optimistic-lock patch from a stale base: %v", err)
	}
	// From a fresh base it applies.
	if err := h.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	fresh := cm.DeepCopy()
	cm.Data["a"] = "3"
	if err := h.Patch(ctx, cm, client.MergeFromWithOptions(fresh, client.MergeFromWithOptimisticLock{})); err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "3" || cm.Data["b"] != "2" {
		t.Errorf("data %v", cm.Data)
	}
}

func serverSideApply(t *testing.T, h *harness) {
	ctx := context.Background()
	apply := corev1ac.ConfigMap("c", h.namespace).WithLabels(map[string]string{"team": "blue"}).WithData(map[string]string{"a": "1"})
	if err := h.Apply(ctx, apply, client.FieldOwner("alice")); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := h.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "c"}, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "1" || cm.Labels["team"] != "blue" {
		t.Errorf("applied object %+v", cm)
	}
	if managers := fieldManagers(cm); managers != "alice/Apply" {
		t.Errorf("managedFields %s", managers)
	}
	// Another manager applying a different value of an owned field conflicts...
	err := h.Apply(ctx, corev1ac.ConfigMap("c", h.namespace).WithData(map[string]string{"a": "2"}), client.FieldOwner("bob"))
	want := `Apply failed with 1 conflict: conflict with "alice": .data.a`
	if !apierrors.IsConflict(err) || err.Error() != want {
		t.Fatalf("conflicting apply: %v", err)
	}
	// ...unless it forces, which moves the field to it.
	if err := h.Apply(ctx, corev1ac.ConfigMap("c", h.namespace).WithData(map[string]string{"a": "2"}), client.FieldOwner("bob"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	// alice re-applies without data.a: she gave it up, so her apply no longer removes it; her label stays.
	if err := h.Apply(ctx, corev1ac.ConfigMap("c", h.namespace).WithLabels(map[string]string{"team": "blue"}), client.FieldOwner("alice")); err != nil {
		t.Fatal(err)
	}
	if err := h.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "2" || cm.Labels["team"] != "blue" || fieldManagers(cm) != "alice/Apply,bob/Apply" {
		t.Errorf("after the forced apply: data %v labels %v managers %s", cm.Data, cm.Labels, fieldManagers(cm))
	}
	// An apply that drops a field the manager alone owned removes it.
	if err := h.Apply(ctx, corev1ac.ConfigMap("c", h.namespace), client.FieldOwner("alice")); err != nil {
		t.Fatal(err)
	}
	if err := h.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.Labels["team"]; ok || cm.Data["a"] != "2" {
		t.Errorf("after alice's empty apply: labels %v data %v", cm.Labels, cm.Data)
	}
	// Apply works on custom resources too, through an unstructured apply configuration.
	w := h.widget("w", 3)
	if err := h.Apply(ctx, client.ApplyConfigurationFromUnstructured(w), client.FieldOwner("alice")); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(w.GroupVersionKind())
	if err := h.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 3 {
		t.Errorf("applied widget size %d", size)
	}
}

func fieldManagers(obj client.Object) string {
	var out []string
	for _, m := range obj.GetManagedFields() {
		out = append(out, m.Manager+"/"+string(m.Operation))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func statusSubresource(t *testing.T, h *harness) {
	ctx := context.Background()
	w := h.widget("w", 1)
	h.create(w)
	generation := w.GetGeneration()
	// Status().Update writes only the status: a spec change in the same object is dropped.
	_ = unstructured.SetNestedField(w.Object, "Ready", "status", "phase")
	_ = unstructured.SetNestedField(w.Object, int64(9), "spec", "size")
	if err := h.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size"); size != 1 {
		t.Errorf("Status().Update changed spec.size to %d", size)
	}
	if w.GetGeneration() != generation {
		t.Errorf("a status write changed the generation %d -> %d", generation, w.GetGeneration())
	}
	// An Update of the object ignores its status.
	_ = unstructured.SetNestedField(w.Object, "Lost", "status", "phase")
	_ = unstructured.SetNestedField(w.Object, int64(2), "spec", "size")
	if err := h.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	if phase, _, _ := unstructured.NestedString(w.Object, "status", "phase"); phase != "Ready" {
		t.Errorf("Update changed status.phase to %q", phase)
	}
	if w.GetGeneration() != generation+1 {
		t.Errorf("a spec change did not bump the generation: %d", w.GetGeneration())
	}
	// Status().Patch with MergeFrom.
	base := w.DeepCopy()
	_ = unstructured.SetNestedField(w.Object, int64(2), "status", "observed")
	if err := h.Status().Patch(ctx, w, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(w.GroupVersionKind())
	if err := h.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
		t.Fatal(err)
	}
	status, _, _ := unstructured.NestedMap(got.Object, "status")
	if fmt.Sprint(status) != "map[observed:2 phase:Ready]" {
		t.Errorf("status %v", status)
	}
	// A stale Status().Update conflicts like any update.
	stale := base.DeepCopy()
	_ = unstructured.SetNestedField(stale.Object, "Stale", "status", "phase")
	if err := h.Status().Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("stale Status().Update: %v", err)
	}
}

func deleteAllOf(t *testing.T, h *harness) {
	ctx := context.Background()
	for i := range 5 {
		h.create(h.configMap(fmt.Sprintf("drop-%d", i), map[string]string{"batch": "old"}, nil))
	}
	h.create(h.configMap("keep-1", map[string]string{"batch": "new"}, nil), h.configMap("keep-2", nil, nil))
	if err := h.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(h.namespace), client.MatchingLabels{"batch": "old"}); err != nil {
		t.Fatal(err)
	}
	list := &corev1.ConfigMapList{}
	if err := h.List(ctx, list, client.InNamespace(h.namespace)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range list.Items {
		if cm.Name != "kube-root-ca.crt" {
			names = append(names, cm.Name)
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "keep-1,keep-2" {
		t.Errorf("left %v", names)
	}
}

func fieldIndexesAndSelectors(t *testing.T, h *harness) {
	ctx := context.Background()
	h.create(h.configMap("a", nil, map[string]string{"team": "blue"}), h.configMap("b", nil, map[string]string{"team": "red"}),
		h.configMap("c", nil, map[string]string{"team": "blue"}))
	mgr := h.manager(manager.Options{}, func(mgr manager.Manager) error {
		return mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.ConfigMap{}, "data.team", func(o client.Object) []string {
			return []string{o.(*corev1.ConfigMap).Data["team"]}
		})
	})
	list := &corev1.ConfigMapList{}
	if err := mgr.GetClient().List(ctx, list, client.InNamespace(h.namespace), client.MatchingFields{"data.team": "blue"}); err != nil {
		t.Fatal(err)
	}
	if names := cmNames(list); names != "a,c" {
		t.Errorf("index data.team=blue: %s", names)
	}
	// On the server: the fields each kind supports (metadata.name everywhere, type for Secrets).
	if err := h.List(ctx, list, client.InNamespace(h.namespace), client.MatchingFields{"metadata.name": "b"}); err != nil {
		t.Fatal(err)
	}
	if names := cmNames(list); names != "b" {
		t.Errorf("metadata.name=b: %s", names)
	}
	h.create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "basic", Namespace: h.namespace}, Type: corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": "u", "password": "p"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "opaque", Namespace: h.namespace}})
	secrets := &corev1.SecretList{}
	if err := h.List(ctx, secrets, client.InNamespace(h.namespace), client.MatchingFields{"type": string(corev1.SecretTypeBasicAuth)}); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 1 || secrets.Items[0].Name != "basic" {
		t.Errorf("type=basic-auth: %d secrets", len(secrets.Items))
	}
	// A field the server does not index is a 400, with the message of the kind's field-label conversion.
	err := h.List(ctx, list, client.InNamespace(h.namespace), client.MatchingFields{"data.team": "blue"})
	want := `"data.team" is not a known field selector: only "metadata.name", "metadata.namespace"`
	if !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Errorf("unsupported field selector: %v", err)
	}
}

func cmNames(list *corev1.ConfigMapList) string {
	var names []string
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

func labelSelectedCache(t *testing.T, h *harness) {
	ctx := context.Background()
	h.create(h.configMap("in", map[string]string{"watched": "yes"}, nil), h.configMap("out", nil, nil))
	mgr := h.manager(manager.Options{Cache: cache.Options{
		DefaultNamespaces: map[string]cache.Config{h.namespace: {}},
		ByObject:          map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{"watched": "yes"})}},
	}}, nil)
	cached := mgr.GetClient()
	list := &corev1.ConfigMapList{}
	if err := cached.List(ctx, list, client.InNamespace(h.namespace)); err != nil {
		t.Fatal(err)
	}
	if names := cmNames(list); names != "in" {
		t.Errorf("cached %s", names)
	}
	// An object labelled into the selection arrives; one labelled out of it leaves (the server sends
	// ADDED and DELETED to a label-selected watch when an object starts or stops matching).
	out := &corev1.ConfigMap{}
	if err := h.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "out"}, out); err != nil {
		t.Fatal(err)
	}
	out.Labels = map[string]string{"watched": "yes"}
	if err := h.Update(ctx, out); err != nil {
		t.Fatal(err)
	}
	in := &corev1.ConfigMap{}
	if err := h.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: "in"}, in); err != nil {
		t.Fatal(err)
	}
	in.Labels = map[string]string{"watched": "no"}
	if err := h.Update(ctx, in); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cache follows the labels", func() error {
		if err := cached.List(ctx, list, client.InNamespace(h.namespace)); err != nil {
			return err
		}
		return expect("cached", cmNames(list), "out")
	})
}

// ownerReconciler records the requests it gets.
type ownerReconciler struct {
	mu       sync.Mutex
	requests []string
}

func (r *ownerReconciler) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req.Name)
	return reconcile.Result{}, nil
}

func (r *ownerReconciler) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, got := range r.requests {
		if got == name {
			n++
		}
	}
	return n
}

func ownerEnqueueing(t *testing.T, h *harness) {
	ctx := context.Background()
	rec := &ownerReconciler{}
	h.manager(manager.Options{}, func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).Named("owner-" + randomSuffix()).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Complete(rec)
	})
	parent := h.configMap("parent", nil, nil)
	other := h.configMap("other", nil, nil)
	h.create(parent, other)
	eventually(t, "the configmaps' own events", func() error {
		return firstError(expect("parent requests", rec.count("parent") > 0, true), expect("other requests", rec.count("other") > 0, true))
	})
	owned := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "owned", Namespace: h.namespace}}
	if err := controllerutil.SetControllerReference(parent, owned, scheme); err != nil {
		t.Fatal(err)
	}
	// A non-controller owner reference does not enqueue that owner through Owns.
	if err := controllerutil.SetOwnerReference(other, owned, scheme); err != nil {
		t.Fatal(err)
	}
	before, beforeOther := rec.count("parent"), rec.count("other")
	h.create(owned)
	eventually(t, "the secret's create enqueues its controller", func() error {
		return expect("parent requests", rec.count("parent") > before, true)
	})
	before = rec.count("parent")
	owned.StringData = map[string]string{"k": "v"}
	if err := h.Update(ctx, owned); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the secret's update enqueues its controller", func() error {
		return expect("parent requests", rec.count("parent") > before, true)
	})
	if rec.count("owned") != 0 || rec.count("other") != beforeOther {
		t.Errorf("requests %v", rec.requests)
	}
}

func leaderElection(t *testing.T, h *harness) {
	ctx := context.Background()
	id := "crb-leader-" + randomSuffix()
	options := func() manager.Options {
		return manager.Options{
			LeaderElection: true, LeaderElectionID: id, LeaderElectionNamespace: h.namespace,
			LeaderElectionReleaseOnCancel: true,
			LeaseDuration:                 ptr(3 * time.Second), RenewDeadline: ptr(2 * time.Second), RetryPeriod: ptr(100 * time.Millisecond),
		}
	}
	first := h.manager(options(), nil)
	select {
	case <-first.Elected():
	case <-time.After(20 * time.Second):
		t.Fatal("the first manager was never elected")
	}
	lease := &coordinationv1.Lease{}
	if err := h.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: id}, lease); err != nil {
		t.Fatal(err)
	}
	firstHolder := *lease.Spec.HolderIdentity
	hostname, _ := os.Hostname()
	if !strings.HasPrefix(firstHolder, hostname+"_") || *lease.Spec.LeaseDurationSeconds != 3 {
		t.Errorf("lease %+v", lease.Spec)
	}
	// A second candidate waits while the first renews.
	secondMgr, err := ctrl.NewManager(h.cluster.Config, func() manager.Options {
		o := options()
		o.Scheme = scheme
		o.Metrics.BindAddress = "0"
		o.Controller.SkipNameValidation = ptr(true)
		return o
	}())
	if err != nil {
		t.Fatal(err)
	}
	h.run(secondMgr)
	select {
	case <-secondMgr.Elected():
		t.Fatal("two leaders")
	case <-time.After(1 * time.Second):
	}
	// The first steps down (ReleaseOnCancel) and the second takes over well before the lease would expire.
	h.stop(first)
	select {
	case <-secondMgr.Elected():
	case <-time.After(20 * time.Second):
		t.Fatal("the second manager never took over")
	}
	if err := h.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: id}, lease); err != nil {
		t.Fatal(err)
	}
	if *lease.Spec.HolderIdentity == firstHolder || *lease.Spec.HolderIdentity == "" || lease.Spec.LeaseTransitions == nil || *lease.Spec.LeaseTransitions != 1 {
		t.Errorf("after the takeover: holder %q (was %q), transitions %v", *lease.Spec.HolderIdentity, firstHolder, lease.Spec.LeaseTransitions)
	}
}

func eventRecorders(t *testing.T, h *harness) {
	ctx := context.Background()
	mgr := h.manager(manager.Options{}, nil)
	cm := h.configMap("subject", nil, nil)
	related := h.configMap("related", nil, nil)
	h.create(cm, related)
	old := mgr.GetEventRecorderFor("crb-old") //nolint:staticcheck // the deprecated core/v1 recorder is still what most operators use
	old.Event(cm, corev1.EventTypeNormal, "Twice", "the same event twice")
	old.Event(cm, corev1.EventTypeNormal, "Twice", "the same event twice")
	eventually(t, "an aggregated core/v1 event", func() error {
		list := &corev1.EventList{}
		if err := h.List(ctx, list, client.InNamespace(h.namespace), client.MatchingFields{"involvedObject.name": "subject", "reason": "Twice"}); err != nil {
			return err
		}
		if len(list.Items) != 1 {
			return fmt.Errorf("%d events", len(list.Items))
		}
		e := list.Items[0]
		return firstError(expect("count", e.Count, int32(2)), expect("source", e.Source.Component, "crb-old"),
			expect("kind", e.InvolvedObject.Kind, "ConfigMap"), expect("message", e.Message, "the same event twice"))
	})
	recorder := mgr.GetEventRecorder("crb-new")
	recorder.Eventf(cm, related, corev1.EventTypeWarning, "Checked", "Check", "checked %s against %s", cm.Name, related.Name)
	eventually(t, "an events.k8s.io/v1 event", func() error {
		list := &eventsv1.EventList{}
		if err := h.List(ctx, list, client.InNamespace(h.namespace)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Reason != "Checked" {
				continue
			}
			host, _ := os.Hostname()
			return firstError(expect("regarding", e.Regarding.Name, "subject"), expect("related", e.Related.Name, "related"),
				expect("action", e.Action, "Check"), expect("note", e.Note, "checked subject against related"),
				expect("type", e.Type, corev1.EventTypeWarning), expect("controller", e.ReportingController, "crb-new"),
				expect("instance", e.ReportingInstance, "crb-new-"+host))
		}
		return fmt.Errorf("no Checked event among %d", len(list.Items))
	})
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
