package controller

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "fakekube/go/examples/guestbook/api/v1"
	"fakekube/go/fakekubeenv"
)

// What envtest cannot show: with fakekube's cluster actors (nodes, scheduler, deployment and replica-set
// controllers, kubelets), the Deployment's pods run and the guestbook becomes Available. fakekube only: the
// oracle has no nodes.
func TestTheGuestbookBecomesAvailableOnAClusterWithNodes(t *testing.T) {
	if useExistingCluster() {
		t.Skip("starts its own fakekube with nodes")
	}
	env := &fakekubeenv.Environment{
		CRDDirectoryPaths: []string{"../config/crd/bases"}, ErrorIfCRDPathMissing: true, Scheme: scheme,
		Nodes: 2, ServeArgs: []string{"--pod-start-latency", "0.05", "--probe-scale", "0"},
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	// A cleanup, not a defer: cleanups run after the test returns, last registered first, so the operator's
	// (which deletes the guestbooks through the server) runs before this one.
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	op := startOperator(t, cfg)
	ctx := context.Background()
	if err := op.Create(ctx, op.newGuestbook("web", "nginx:1.27", 3)); err != nil {
		t.Fatal(err)
	}
	gb := &webappv1.Guestbook{}
	eventually(t, "Available", func() error {
		if err := op.Get(ctx, op.key("web"), gb); err != nil {
			return err
		}
		return statusIs(gb, metav1.ConditionTrue, "ReplicasReady", "3/3 replicas ready")
	})
	if gb.Status.ReadyReplicas != 3 {
		t.Errorf("readyReplicas %d", gb.Status.ReadyReplicas)
	}
	pods := &corev1.PodList{}
	if err := op.List(ctx, pods, client.InNamespace(op.namespace), client.MatchingLabels{"app.kubernetes.io/instance": "web"}); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
			t.Errorf("pod %s: %s on %q", p.Name, p.Status.Phase, p.Spec.NodeName)
		}
		nodes[p.Spec.NodeName] = true
	}
	if len(pods.Items) != 3 || len(nodes) != 2 {
		t.Errorf("%d pods on nodes %v", len(pods.Items), fmt.Sprint(nodes))
	}
}
