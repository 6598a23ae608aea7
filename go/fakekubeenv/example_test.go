package fakekubeenv_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"fakekube/go/fakekubeenv"
)

// The shape of a suite's setup (docs/go.md): the same as envtest's, with fakekube's cluster fields.
// Compiled, not run (no Output comment): a suite calls this from TestMain or a BeforeSuite.
func ExampleEnvironment() {
	env := &fakekubeenv.Environment{
		CRDDirectoryPaths:     []string{"config/crd/bases"},
		ErrorIfCRDPathMissing: true,
		NoControllers:         true, // a bare API server, as envtest's; leave out for nodes and controllers
	}
	cfg, err := env.Start()
	if err != nil {
		panic(err) // says how to install fakekube when it cannot find it
	}
	defer env.Stop()

	k8sClient, err := client.New(cfg, client.Options{})
	if err != nil {
		panic(err)
	}
	namespaces := &corev1.NamespaceList{}
	if err := k8sClient.List(context.Background(), namespaces); err != nil {
		panic(err)
	}
	fmt.Println("kubectl --kubeconfig", env.Kubeconfig(), "get namespaces")
}
