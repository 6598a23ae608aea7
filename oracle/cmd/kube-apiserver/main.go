// Command kube-apiserver is the upstream kube-apiserver, built from the k8s.io/kubernetes module at the
// release pinned in go.mod. The oracle starts it as a child process.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }
