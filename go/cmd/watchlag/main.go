// Command watchlag measures, on a live API server, how a write's watch event reaches the writing process
// relative to the write's own HTTP response: for each write, t(event for the write's resourceVersion decoded
// from the process's watch) − t(response decoded). A controller's re-queued pass reads its informer cache right
// after its previous write's response; when the event comes later than the response the pass reads a stale
// object (docs/reproducing-pr-508.md, "Watch event against response").
//
// One client (one transport, as a controller's manager shares one between its watches and writes) watches a
// resource across all namespaces and writes one object at a time, waiting for each write's event before the
// next; another client with its own connection can write other objects of the same resource at a given rate
// (the load every watcher of that resource then also receives).
//
//	go run ./cmd/watchlag --kubeconfig KC --label oracle --samples 300 --load-rate 200
//
// Resources: configmaps (built in, namespaced), probes.watchlag.fakekube.dev (a custom resource, namespaced)
// and clusterprobes.watchlag.fakekube.dev (cluster-scoped); both CRDs have a status subresource and are
// created when missing. Writes: put (PUT the object), patch (a JSON merge patch), status (PUT .../status, as
// controller-runtime's Status().Update). One line per (resource, write): the gap's sign and percentiles, and
// the writes' latency (request sent to response decoded); --json keeps every sample.
//
// --duration measures for a while instead of a number of writes (beside a load run: scripts/watchlag-beside);
// --watch-only G/V/R only watches a resource and prints each event's resourceVersion and arrival, for
// scripts/watchlag_audit.py to match with the audit log's writes. scripts/watchlag runs the whole set on the real
// apiserver (the oracle) and on fakekube serve.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const group = "watchlag.fakekube.dev"

type target struct {
	name       string
	gvr        schema.GroupVersionResource
	kind       string
	apiVersion string
	namespaced bool
	status     bool
}

var targets = []target{
	{"configmaps", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap", "v1", true, false},
	{"probes", schema.GroupVersionResource{Group: group, Version: "v1", Resource: "probes"}, "Probe", group + "/v1", true, true},
	{"clusterprobes", schema.GroupVersionResource{Group: group, Version: "v1", Resource: "clusterprobes"}, "ClusterProbe", group + "/v1", false, true},
}

const namespace = "default"

// events records when each resourceVersion's event was decoded from the watch.
type events struct {
	mu   sync.Mutex
	cond *sync.Cond
	seen map[string]time.Time
}

func newEvents() *events {
	e := &events{seen: map[string]time.Time{}}
	e.cond = sync.NewCond(&e.mu)
	return e
}

func (e *events) add(rv string, at time.Time) {
	e.mu.Lock()
	e.seen[rv] = at
	e.mu.Unlock()
	e.cond.Broadcast()
}

// wait returns when the event for rv was seen, or false after the deadline.
func (e *events) wait(rv string, deadline time.Time) (time.Time, bool) {
	timer := time.AfterFunc(time.Until(deadline), e.cond.Broadcast)
	defer timer.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if at, ok := e.seen[rv]; ok {
			delete(e.seen, rv)
			return at, true
		}
		if time.Now().After(deadline) {
			return time.Time{}, false
		}
		e.cond.Wait()
	}
}

type result struct {
	Label       string    `json:"label"`
	Resource    string    `json:"resource"`
	Write       string    `json:"write"`
	LoadRate    float64   `json:"load_rate"`
	LoadAchieve float64   `json:"load_achieved"`
	Samples     int       `json:"samples"`
	Missing     int       `json:"missing"`
	GapsMs      []float64 `json:"gaps_ms"`
	LatencyMs   []float64 `json:"latency_ms"`
	AtUnixMs    []int64   `json:"at_unix_ms"` // when each sample's write was answered
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the server's kubeconfig")
	label := flag.String("label", "server", "the server's name in the output")
	samples := flag.Int("samples", 300, "writes measured per (resource, write)")
	duration := flag.Duration("duration", 0, "measure for this long instead of --samples writes (e.g. beside a load run)")
	pause := flag.Duration("pause", 5*time.Millisecond, "pause after a write's event before the next write")
	loadRate := flag.Float64("load-rate", 0, "writes per second by the second client (0: idle)")
	loadObjects := flag.Int("load-objects", 50, "objects the load client writes, round robin")
	only := flag.String("only", "", "comma list of resources or resource/write to run (default: all)")
	jsonOut := flag.String("json", "", "write every sample to this file as JSON")
	watchOnly := flag.String("watch-only", "", "GROUP/VERSION/RESOURCE: only watch it (all namespaces) and print "+
		"\"resourceVersion unix-µs\" per event as it is decoded, until killed (to match with an audit log's writes)")
	flag.Parse()
	if *watchOnly != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
		check(err)
		passiveWatch(cfg, *watchOnly)
		return
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	check(err)
	cfg.QPS, cfg.Burst = 1000, 2000 // the PR's controller flags; no client-side throttling in the way
	ctx := context.Background()
	ensureCRDs(ctx, cfg)

	var results []result
	for _, t := range targets {
		writes := []string{"put", "patch"}
		if t.status {
			writes = append(writes, "status")
		}
		for _, w := range writes {
			if !selected(*only, t.name, w) {
				continue
			}
			r := measure(ctx, cfg, t, w, *samples, *duration, *pause, *loadRate, *loadObjects)
			r.Label = *label
			results = append(results, r)
			report(r)
		}
	}
	if *jsonOut != "" {
		data, err := json.MarshalIndent(results, "", " ")
		check(err)
		check(os.WriteFile(*jsonOut, data, 0o644))
	}
}

func selected(only, resource, write string) bool {
	if only == "" {
		return true
	}
	for _, item := range strings.Split(only, ",") {
		if item == resource || item == resource+"/"+write {
			return true
		}
	}
	return false
}

// freshConfig gives a client its own connection: client-go shares a transport between configs that compare
// equal, and a config with a WrapTransport is never shared.
func freshConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return rt }
	return c
}

func measure(ctx context.Context, cfg *rest.Config, t target, write string, n int, duration, pause time.Duration,
	loadRate float64, loadObjects int) result {
	client, err := dynamic.NewForConfig(freshConfig(cfg))
	check(err)
	res := client.Resource(t.gvr)
	var ri dynamic.ResourceInterface = res
	if t.namespaced {
		ri = res.Namespace(namespace)
	}
	name := fmt.Sprintf("watchlag-%d", time.Now().UnixNano())
	obj := newObject(t, name)
	created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
	check(err)
	defer func() { _ = ri.Delete(ctx, name, metav1.DeleteOptions{}) }()

	seen := newEvents()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	// All namespaces, as a controller's informer watches, from the create's revision.
	// events of the load's objects come through it too, as they would through a controller's informer.
	w, err := res.Watch(wctx, metav1.ListOptions{ResourceVersion: created.GetResourceVersion()})
	check(err)
	go func() {
		for ev := range w.ResultChan() {
			at := time.Now()
			if ev.Type == watch.Added || ev.Type == watch.Modified {
				if u, ok := ev.Object.(*unstructured.Unstructured); ok {
					seen.add(u.GetResourceVersion(), at)
				}
			}
		}
	}()

	var loadDone atomic.Int64
	stopLoad := func() float64 { return 0 }
	if loadRate > 0 {
		stopLoad = startLoad(ctx, cfg, t, loadRate, loadObjects, &loadDone)
	}
	time.Sleep(200 * time.Millisecond) // let the watch and the load settle

	r := result{Resource: t.name, Write: write, LoadRate: loadRate}
	current := created
	end := time.Now().Add(duration)
	for i := 0; duration > 0 && time.Now().Before(end) || duration == 0 && i < n; i++ {
		begin := time.Now()
		out, err := doWrite(ctx, ri, t, write, current, i)
		answered := time.Now()
		if err != nil {
			if apierrors.IsConflict(err) {
				current, err = ri.Get(ctx, name, metav1.GetOptions{})
				check(err)
				continue
			}
			check(err)
		}
		current = out
		at, ok := seen.wait(out.GetResourceVersion(), answered.Add(5*time.Second))
		if !ok {
			r.Missing++
			fmt.Fprintf(os.Stderr, "no event for write %d (rv %s) in 5 s\n", i, out.GetResourceVersion())
			continue
		}
		r.GapsMs = append(r.GapsMs, ms(at.Sub(answered)))
		r.LatencyMs = append(r.LatencyMs, ms(answered.Sub(begin)))
		r.AtUnixMs = append(r.AtUnixMs, answered.UnixMilli())
		time.Sleep(pause + time.Duration(rand.Int64N(int64(pause)+1)))
	}
	r.Samples = len(r.GapsMs)
	r.LoadAchieve = stopLoad()
	w.Stop()
	return r
}

func doWrite(ctx context.Context, ri dynamic.ResourceInterface, t target, write string,
	current *unstructured.Unstructured, i int) (*unstructured.Unstructured, error) {
	value := fmt.Sprintf("%d", i+1) // never the created object's "0": a no-op write has no event
	switch write {
	case "put":
		obj := current.DeepCopy()
		setField(t, obj, value)
		return ri.Update(ctx, obj, metav1.UpdateOptions{})
	case "patch":
		field := "spec"
		if t.kind == "ConfigMap" {
			field = "data"
		}
		body := fmt.Sprintf(`{"%s":{"value":%q}}`, field, value)
		return ri.Patch(ctx, current.GetName(), types.MergePatchType, []byte(body), metav1.PatchOptions{})
	case "status":
		obj := current.DeepCopy()
		check(unstructured.SetNestedField(obj.Object, value, "status", "value"))
		return ri.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	}
	panic("unknown write " + write)
}

func setField(t target, obj *unstructured.Unstructured, value string) {
	field := "spec"
	if t.kind == "ConfigMap" {
		field = "data"
	}
	check(unstructured.SetNestedField(obj.Object, value, field, "value"))
}

func newObject(t target, name string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": t.apiVersion, "kind": t.kind}}
	obj.SetName(name)
	if t.namespaced {
		obj.SetNamespace(namespace)
	}
	setField(t, obj, "0")
	return obj
}

// startLoad writes loadObjects other objects of the resource round robin at rate per second from its own
// client and connection, with enough workers that a slow answer does not lower the rate; the returned function
// stops it and gives the rate achieved.
func startLoad(ctx context.Context, cfg *rest.Config, t target, rate float64, objects int,
	done *atomic.Int64) func() float64 {
	client, err := dynamic.NewForConfig(freshConfig(cfg))
	check(err)
	var ri dynamic.ResourceInterface = client.Resource(t.gvr)
	if t.namespaced {
		ri = client.Resource(t.gvr).Namespace(namespace)
	}
	prefix := fmt.Sprintf("watchlag-load-%d-", time.Now().UnixNano())
	for i := 0; i < objects; i++ {
		_, err := ri.Create(ctx, newObject(t, fmt.Sprintf("%s%d", prefix, i)), metav1.CreateOptions{})
		check(err)
	}
	field := "spec"
	if t.kind == "ConfigMap" {
		field = "data"
	}
	ticks := make(chan int, 64)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for k := 0; k < 16; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ticks {
				body := fmt.Sprintf(`{"%s":{"value":"%d"}}`, field, i)
				if _, err := ri.Patch(ctx, fmt.Sprintf("%s%d", prefix, i%objects), types.MergePatchType,
					[]byte(body), metav1.PatchOptions{}); err == nil {
					done.Add(1)
				}
			}
		}()
	}
	begin := time.Now()
	go func() {
		defer close(ticks)
		interval := time.Duration(float64(time.Second) / rate)
		next := time.Now()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(next)):
			}
			select {
			case ticks <- i:
			default: // the workers are behind: skip rather than burst
			}
			next = next.Add(interval)
		}
	}()
	return func() float64 {
		close(stop)
		wg.Wait()
		achieved := float64(done.Load()) / time.Since(begin).Seconds()
		for i := 0; i < objects; i++ {
			_ = ri.Delete(ctx, fmt.Sprintf("%s%d", prefix, i), metav1.DeleteOptions{})
		}
		return achieved
	}
}

func ensureCRDs(ctx context.Context, cfg *rest.Config) {
	jsonCfg := rest.CopyConfig(cfg)
	jsonCfg.ContentType = "application/json" // fakekube serve takes no protobuf CustomResourceDefinition
	client, err := apiextensions.NewForConfig(jsonCfg)
	check(err)
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	for _, t := range targets {
		if t.gvr.Group != group {
			continue
		}
		scope := apiextensionsv1.ClusterScoped
		if t.namespaced {
			scope = apiextensionsv1.NamespaceScoped
		}
		preserve := true
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: t.gvr.Resource + "." + group},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group, Scope: scope,
				Names: apiextensionsv1.CustomResourceDefinitionNames{
					Plural: t.gvr.Resource, Kind: t.kind, ListKind: t.kind + "List",
					Singular: strings.ToLower(t.kind)},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Subresources: &apiextensionsv1.CustomResourceSubresources{
						Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: &preserve}},
				}},
			},
		}
		if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			check(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, t := range targets {
		if t.gvr.Group != group {
			continue
		}
		for {
			crd, err := crds.Get(ctx, t.gvr.Resource+"."+group, metav1.GetOptions{})
			check(err)
			if established(crd) {
				break
			}
			if time.Now().After(deadline) {
				check(fmt.Errorf("CRD %s not Established after 60 s", crd.Name))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	time.Sleep(time.Second) // the new resources reach discovery and the handler
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

func report(r result) {
	gaps := append([]float64(nil), r.GapsMs...)
	sort.Float64s(gaps)
	lat := append([]float64(nil), r.LatencyMs...)
	sort.Float64s(lat)
	before := 0
	for _, g := range gaps {
		if g < 0 {
			before++
		}
	}
	fmt.Printf("%-10s %-14s %-7s load %4.0f/s (achieved %4.0f)  n=%d missing=%d  event-response ms: "+
		"before %d/%d  min %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f   write latency ms: p50 %.2f p90 %.2f\n",
		r.Label, r.Resource, r.Write, r.LoadRate, r.LoadAchieve, r.Samples, r.Missing, before, len(gaps),
		pct(gaps, 0), pct(gaps, 10), pct(gaps, 50), pct(gaps, 90), pct(gaps, 100), pct(lat, 50), pct(lat, 90))
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(sorted)-1))
	return sorted[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "watchlag:", err)
		os.Exit(1)
	}
}

// passiveWatch prints when each event of the resource reaches this process: beside a load run, matched with the
// audit log's writes (their responses' resourceVersions and stageTimestamps), it gives the server's delivery lag
// to an independent watcher of the very resource the controller writes.
func passiveWatch(cfg *rest.Config, gvrText string) {
	parts := strings.Split(gvrText, "/")
	if len(parts) != 3 {
		check(fmt.Errorf("--watch-only wants GROUP/VERSION/RESOURCE, got %q", gvrText))
	}
	client, err := dynamic.NewForConfig(freshConfig(cfg))
	check(err)
	res := client.Resource(schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]})
	out := bufio.NewWriter(os.Stdout)
	for {
		// Until the resource exists (the run applies its CRDs after the server is up), and again after each end.
		w, err := res.Watch(context.Background(), metav1.ListOptions{})
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			at := time.Now()
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type != watch.Error {
				fmt.Fprintf(out, "%s %d\n", u.GetResourceVersion(), at.UnixMicro())
				out.Flush()
			}
		}
	}
}
