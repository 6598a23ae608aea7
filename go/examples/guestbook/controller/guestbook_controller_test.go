package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "fakekube/go/examples/guestbook/api/v1"
	"fakekube/go/internal/clusters"
)

// The CRD's markers at work on the server: defaults, enum, pattern and bounds, with the API server's own
// messages (the same on both servers, byte for byte).
func TestTheCRDDefaultsAndValidates(t *testing.T) {
	cases := []struct {
		name       string
		spec       map[string]any
		wantErr    string                             // the whole error
		wantCauses []string                           // or its causes, sorted ("type field: message")
		check      func(gb *webappv1.Guestbook) error // after a successful create
	}{
		{name: "defaults", spec: map[string]any{"image": "nginx:1.27"}, check: func(gb *webappv1.Guestbook) error {
			return firstError(expect("replicas", *gb.Spec.Replicas, int32(1)), expect("serviceType", gb.Spec.ServiceType, "ClusterIP"),
				expect("port", gb.Spec.Port, int32(8080)))
		}},
		{name: "explicit values stay", spec: map[string]any{"image": "registry.k8s.io/pause:3.10", "replicas": 0, "serviceType": "NodePort", "port": 80},
			check: func(gb *webappv1.Guestbook) error {
				return firstError(expect("replicas", *gb.Spec.Replicas, int32(0)), expect("serviceType", gb.Spec.ServiceType, "NodePort"),
					expect("port", gb.Spec.Port, int32(80)))
			}},
		{name: "enum", spec: map[string]any{"image": "nginx", "serviceType": "LoadBalancer"},
			wantErr: `Guestbook.webapp.example.com "enum" is invalid: spec.serviceType: Unsupported value: "LoadBalancer": supported values: "ClusterIP", "NodePort"`},
		{name: "pattern", spec: map[string]any{"image": "Nginx Latest"},
			wantErr: `Guestbook.webapp.example.com "pattern" is invalid: spec.image: Invalid value: "Nginx Latest": spec.image in body should match '^[a-z0-9]+([._/:@-][a-z0-9]+)*$'`},
		{name: "maximum", spec: map[string]any{"image": "nginx", "replicas": 11},
			wantErr: `Guestbook.webapp.example.com "maximum" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`},
		{name: "minimum", spec: map[string]any{"image": "nginx", "port": 0},
			wantErr: `Guestbook.webapp.example.com "minimum" is invalid: spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1`},
		{name: "required", spec: map[string]any{"replicas": 2},
			wantErr: `Guestbook.webapp.example.com "required" is invalid: spec.image: Required value`},
		// kube-apiserver reports two errors in either order (the schema validator walks a Go map), so the
		// causes are compared as a set.
		{name: "two errors", spec: map[string]any{"image": "x y", "replicas": -1}, wantCauses: []string{
			`FieldValueInvalid spec.image: Invalid value: "x y": spec.image in body should match '^[a-z0-9]+([._/:@-][a-z0-9]+)*$'`,
			`FieldValueInvalid spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`}},
	}
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		k8s, err := client.New(c.Config, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		ns := "default"
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				name := strings.ReplaceAll(tc.name, " ", "-") + "-" + randomSuffix()
				if tc.wantErr != "" || tc.wantCauses != nil {
					name = strings.ReplaceAll(tc.name, " ", "-")
				}
				obj := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "webapp.example.com/v1", "kind": "Guestbook",
					"metadata": map[string]any{"name": name, "namespace": ns}, "spec": tc.spec}}
				err := k8s.Create(context.Background(), obj)
				if tc.wantErr != "" {
					if !apierrors.IsInvalid(err) || err.Error() != tc.wantErr {
						t.Fatalf("got  %v\nwant %s", err, tc.wantErr)
					}
					return
				}
				if tc.wantCauses != nil {
					if got := causes(err); !apierrors.IsInvalid(err) || strings.Join(got, "\n") != strings.Join(tc.wantCauses, "\n") {
						t.Fatalf("got  %v\n%s\nwant\n%s", err, strings.Join(got, "\n"), strings.Join(tc.wantCauses, "\n"))
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer k8s.Delete(context.Background(), obj)
				gb := &webappv1.Guestbook{}
				if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), gb); err != nil {
					t.Fatal(err)
				}
				if err := tc.check(gb); err != nil {
					t.Error(err)
				}
			})
		}
	})
}

func TestAGuestbookGetsADeploymentAServiceAFinalizerAStatusAndEvents(t *testing.T) {
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		op := startOperator(t, c.Config)
		ctx := context.Background()
		gb := op.newGuestbook("web", "nginx:1.27", 2)
		if err := op.Create(ctx, gb); err != nil {
			t.Fatal(err)
		}
		deployment, service := &appsv1.Deployment{}, &corev1.Service{}
		eventually(t, "the Deployment", func() error { return op.Get(ctx, op.key("web"), deployment) })
		eventually(t, "the Service", func() error { return op.Get(ctx, op.key("web"), service) })
		if err := ownedBy(deployment, gb); err != nil {
			t.Error(err)
		}
		if err := ownedBy(service, gb); err != nil {
			t.Error(err)
		}
		container := deployment.Spec.Template.Spec.Containers[0]
		if err := firstError(
			expect("deployment replicas", *deployment.Spec.Replicas, int32(2)),
			expect("image", container.Image, "nginx:1.27"),
			expect("container port", container.Ports[0].ContainerPort, int32(8080)),
			expect("selector", deployment.Spec.Selector.MatchLabels["app.kubernetes.io/instance"], "web"),
			expect("service type", service.Spec.Type, corev1.ServiceTypeClusterIP),
			expect("service port", service.Spec.Ports[0].Port, int32(80)),
			expect("target port", service.Spec.Ports[0].TargetPort.IntVal, int32(8080)),
			expect("service selector", service.Spec.Selector["app.kubernetes.io/instance"], "web"),
		); err != nil {
			t.Error(err)
		}
		if service.Spec.ClusterIP == "" || service.Spec.ClusterIP == corev1.ClusterIPNone {
			t.Errorf("the Service got no cluster IP: %q", service.Spec.ClusterIP)
		}
		eventually(t, "the status", func() error {
			if err := op.Get(ctx, op.key("web"), gb); err != nil {
				return err
			}
			return statusIs(gb, metav1.ConditionFalse, "WaitingForReplicas", "0/2 replicas ready")
		})
		if !slices.Contains(gb.Finalizers, Finalizer) {
			t.Errorf("finalizers %v", gb.Finalizers)
		}
		if gb.Status.ServiceName != "web" || gb.Generation != 1 {
			t.Errorf("serviceName %q, generation %d", gb.Status.ServiceName, gb.Generation)
		}
		eventually(t, "the directory entry", func() error {
			return op.directoryIs(ctx, map[string]string{"web": "web." + op.namespace + ".svc:8080"})
		})
		eventually(t, "the events", func() error {
			return op.eventsAre(ctx, "web", "Normal Created Deployment web: Created Deployment web", "Normal Created Service web: Created Service web")
		})
	})
}

// A change to the spec reaches the children, row by row, and the status follows the generation.
func TestSpecChangesReachTheChildren(t *testing.T) {
	cases := []struct {
		name   string
		change func(spec *webappv1.GuestbookSpec)
		check  func(op *operator, d *appsv1.Deployment, s *corev1.Service) error
	}{
		{"replicas", func(s *webappv1.GuestbookSpec) { s.Replicas = ptr(int32(3)) },
			func(_ *operator, d *appsv1.Deployment, _ *corev1.Service) error {
				return expect("replicas", *d.Spec.Replicas, int32(3))
			}},
		{"image", func(s *webappv1.GuestbookSpec) { s.Image = "nginx:1.28" },
			func(_ *operator, d *appsv1.Deployment, _ *corev1.Service) error {
				return expect("image", d.Spec.Template.Spec.Containers[0].Image, "nginx:1.28")
			}},
		{"service type", func(s *webappv1.GuestbookSpec) { s.ServiceType = "NodePort" },
			func(_ *operator, _ *appsv1.Deployment, s *corev1.Service) error {
				if s.Spec.Type != corev1.ServiceTypeNodePort || s.Spec.Ports[0].NodePort < 30000 || s.Spec.Ports[0].NodePort > 32767 {
					return fmt.Errorf("service %s, node port %d", s.Spec.Type, s.Spec.Ports[0].NodePort)
				}
				return nil
			}},
		{"port", func(s *webappv1.GuestbookSpec) { s.Port = 9090 },
			func(op *operator, d *appsv1.Deployment, s *corev1.Service) error {
				return firstError(expect("container port", d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort, int32(9090)),
					expect("target port", s.Spec.Ports[0].TargetPort.IntVal, int32(9090)),
					op.directoryIs(context.Background(), map[string]string{"web": "web." + op.namespace + ".svc:9090"}))
			}},
	}
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		op := startOperator(t, c.Config)
		ctx := context.Background()
		gb := op.newGuestbook("web", "nginx:1.27", 1)
		if err := op.Create(ctx, gb); err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if err := op.Get(ctx, op.key("web"), gb); err != nil {
					t.Fatal(err)
				}
				base := gb.DeepCopy()
				tc.change(&gb.Spec)
				if err := op.Patch(ctx, gb, client.MergeFrom(base)); err != nil {
					t.Fatal(err)
				}
				eventually(t, tc.name, func() error {
					d, s := &appsv1.Deployment{}, &corev1.Service{}
					if err := firstError(op.Get(ctx, op.key("web"), d), op.Get(ctx, op.key("web"), s)); err != nil {
						return err
					}
					return tc.check(op, d, s)
				})
				eventually(t, "observedGeneration", func() error {
					current := &webappv1.Guestbook{}
					if err := op.Get(ctx, op.key("web"), current); err != nil {
						return err
					}
					synced := meta.FindStatusCondition(current.Status.Conditions, ConditionSynced)
					if synced == nil || synced.ObservedGeneration != gb.Generation {
						return fmt.Errorf("Synced %+v, generation %d", synced, gb.Generation)
					}
					return expect("observedGeneration", current.Status.ObservedGeneration, gb.Generation)
				})
			})
		}
		eventually(t, "the Updated events", func() error {
			return op.eventsInclude(ctx, "web", "Normal Updated Deployment web: Updated Deployment web", "Normal Updated Service web: Updated Service web")
		})
	})
}

// Changes to the children made behind the operator's back are undone (Owns watches enqueue the owner).
func TestDriftIsRepaired(t *testing.T) {
	cases := []struct {
		name  string
		drift func(ctx context.Context, op *operator) error
	}{
		{"deployment scaled by hand", func(ctx context.Context, op *operator) error {
			d := &appsv1.Deployment{}
			if err := op.Get(ctx, op.key("web"), d); err != nil {
				return err
			}
			return op.Patch(ctx, d, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":7}}`)))
		}},
		{"service deleted", func(ctx context.Context, op *operator) error {
			return op.Delete(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: op.namespace}})
		}},
		{"deployment deleted", func(ctx context.Context, op *operator) error {
			return op.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: op.namespace}},
				client.PropagationPolicy(metav1.DeletePropagationBackground))
		}},
	}
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		op := startOperator(t, c.Config)
		ctx := context.Background()
		gb := op.newGuestbook("web", "nginx:1.27", 2)
		if err := op.Create(ctx, gb); err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				eventually(t, "the children", func() error { return op.childrenMatch(ctx, 2) })
				var before types.UID
				if d := (&appsv1.Deployment{}); op.Get(ctx, op.key("web"), d) == nil {
					before = d.UID
				}
				if err := tc.drift(ctx, op); err != nil {
					t.Fatal(err)
				}
				eventually(t, "repaired", func() error { return op.childrenMatch(ctx, 2) })
				d := &appsv1.Deployment{}
				if err := op.Get(ctx, op.key("web"), d); err != nil {
					t.Fatal(err)
				}
				if tc.name == "deployment deleted" && d.UID == before {
					t.Error("the Deployment was not replaced")
				}
			})
		}
	})
}

// Deleting a guestbook runs the finalizer (its directory entry goes, the others' stay); the garbage
// collector then removes its Deployment and Service, not the other guestbook's.
func TestDeletionRunsTheFinalizerThenTheGarbageCollector(t *testing.T) {
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		op := startOperator(t, c.Config)
		ctx := context.Background()
		for _, name := range []string{"keep", "drop"} {
			if err := op.Create(ctx, op.newGuestbook(name, "nginx", 1)); err != nil {
				t.Fatal(err)
			}
		}
		suffix := "." + op.namespace + ".svc:8080"
		eventually(t, "both entries", func() error {
			return op.directoryIs(ctx, map[string]string{"keep": "keep" + suffix, "drop": "drop" + suffix})
		})
		eventually(t, "both finalizers", func() error {
			for _, name := range []string{"keep", "drop"} {
				gb := &webappv1.Guestbook{}
				if err := op.Get(ctx, op.key(name), gb); err != nil {
					return err
				}
				if !slices.Contains(gb.Finalizers, Finalizer) {
					return fmt.Errorf("%s has no finalizer yet", name)
				}
			}
			return nil
		})
		if err := op.Delete(ctx, &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "drop", Namespace: op.namespace}}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the guestbook gone", func() error {
			if err := op.Get(ctx, op.key("drop"), &webappv1.Guestbook{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there: %v", err)
			}
			return nil
		})
		if err := op.directoryIs(ctx, map[string]string{"keep": "keep" + suffix}); err != nil {
			t.Error(err)
		}
		// kube-controller-manager's garbage collector learns of a new CRD by rediscovering the API every 30 s
		// (garbagecollector.Sync): on a control plane booted just before the CRD was installed, dependents of a
		// custom resource can wait that long.
		eventuallyWithin(t, 90*time.Second, "the children collected", func() error {
			if err := op.Get(ctx, op.key("drop"), &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("deployment: %v", err)
			}
			if err := op.Get(ctx, op.key("drop"), &corev1.Service{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("service: %v", err)
			}
			return nil
		})
		if err := firstError(op.Get(ctx, op.key("keep"), &appsv1.Deployment{}), op.Get(ctx, op.key("keep"), &corev1.Service{})); err != nil {
			t.Errorf("the other guestbook's children: %v", err)
		}
		eventually(t, "the Finalized event", func() error {
			return op.eventsInclude(ctx, "drop", "Normal Finalized : Removed drop from the guestbook-directory ConfigMap")
		})
	})
}

// The printer columns, as `kubectl get guestbooks` asks for them (a Table from the server).
func TestPrinterColumns(t *testing.T) {
	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		op := startOperator(t, c.Config)
		ctx := context.Background()
		if err := op.Create(ctx, op.newGuestbook("web", "nginx:1.27", 2)); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the status", func() error {
			gb := &webappv1.Guestbook{}
			if err := op.Get(ctx, op.key("web"), gb); err != nil {
				return err
			}
			return statusIs(gb, metav1.ConditionFalse, "WaitingForReplicas", "0/2 replicas ready")
		})
		columns, rows, err := table(ctx, c.Config, op.namespace)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(columns, ","); got != "Name,Image,Replicas,Ready,Available,Age" {
			t.Errorf("columns %s", got)
		}
		if len(rows) != 1 {
			t.Fatalf("rows %v", rows)
		}
		// Ready (status.readyReplicas) is 0, so omitted from the object: the cell is null, as kubectl's <none>.
		if got := fmt.Sprint(rows[0][:5]); got != "[web nginx:1.27 2 <nil> False]" {
			t.Errorf("cells %s", got)
		}
	})
}

// causes are a StatusError's causes as "type field: message", sorted.
func causes(err error) []string {
	var out []string
	if status, ok := err.(apierrors.APIStatus); ok && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			out = append(out, fmt.Sprintf("%s %s: %s", c.Type, c.Field, c.Message))
		}
	}
	slices.Sort(out)
	return out
}

func ownedBy(child client.Object, gb *webappv1.Guestbook) error {
	refs := child.GetOwnerReferences()
	if len(refs) != 1 {
		return fmt.Errorf("%s owners %v", child.GetName(), refs)
	}
	ref := refs[0]
	if ref.Kind != "Guestbook" || ref.APIVersion != "webapp.example.com/v1" || ref.Name != gb.Name || ref.UID != gb.UID ||
		ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		return fmt.Errorf("%s owner %+v", child.GetName(), ref)
	}
	return nil
}

func statusIs(gb *webappv1.Guestbook, available metav1.ConditionStatus, reason, message string) error {
	synced := meta.FindStatusCondition(gb.Status.Conditions, ConditionSynced)
	avail := meta.FindStatusCondition(gb.Status.Conditions, ConditionAvailable)
	if synced == nil || avail == nil {
		return fmt.Errorf("conditions %+v", gb.Status.Conditions)
	}
	return firstError(
		expect("observedGeneration", gb.Status.ObservedGeneration, gb.Generation),
		expect("Synced", synced.Status, metav1.ConditionTrue),
		expect("Available", avail.Status, available),
		expect("Available reason", avail.Reason, reason),
		expect("Available message", avail.Message, message),
	)
}

func (o *operator) directoryIs(ctx context.Context, want map[string]string) error {
	cm := &corev1.ConfigMap{}
	if err := o.Get(ctx, o.key(DirectoryConfigMap), cm); err != nil {
		return err
	}
	if fmt.Sprint(cm.Data) != fmt.Sprint(want) {
		return fmt.Errorf("directory %v, want %v", cm.Data, want)
	}
	return nil
}

func (o *operator) childrenMatch(ctx context.Context, replicas int32) error {
	d, s := &appsv1.Deployment{}, &corev1.Service{}
	if err := firstError(o.Get(ctx, o.key("web"), d), o.Get(ctx, o.key("web"), s)); err != nil {
		return err
	}
	if d.DeletionTimestamp != nil || s.DeletionTimestamp != nil {
		return fmt.Errorf("a child is being deleted")
	}
	return expect("replicas", *d.Spec.Replicas, replicas)
}

// events lists the events about a guestbook as "Type Reason RelatedKind RelatedName: note".
func (o *operator) events(ctx context.Context, name string) ([]string, error) {
	list := &corev1.EventList{}
	if err := o.List(ctx, list, client.InNamespace(o.namespace)); err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind != "Guestbook" || e.InvolvedObject.Name != name {
			continue
		}
		if e.ReportingController != FieldManager {
			return nil, fmt.Errorf("event %s reported by %q", e.Name, e.ReportingController)
		}
		related := ""
		if e.Related != nil {
			related = e.Related.Kind + " " + e.Related.Name
		}
		out = append(out, fmt.Sprintf("%s %s %s: %s", e.Type, e.Reason, related, e.Message))
	}
	slices.Sort(out)
	return out, nil
}

func (o *operator) eventsAre(ctx context.Context, name string, want ...string) error {
	got, err := o.events(ctx, name)
	if err != nil {
		return err
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	return nil
}

func (o *operator) eventsInclude(ctx context.Context, name string, want ...string) error {
	got, err := o.events(ctx, name)
	if err != nil {
		return err
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			return fmt.Errorf("no event %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
	return nil
}
