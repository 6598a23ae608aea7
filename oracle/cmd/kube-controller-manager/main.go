// Command kube-controller-manager is the upstream kube-controller-manager, built from the k8s.io/kubernetes
// module at the release pinned in go.mod. The oracle starts it as a child process with only the controllers
// whose effects a client sees on a cluster without nodes.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() { os.Exit(cli.Run(app.NewControllerManagerCommand())) }
