// Command kube-scheduler is the upstream kube-scheduler, built from the k8s.io/kubernetes module at the release
// pinned in go.mod. The oracle starts it as a child process with --scheduler, so pods get bound to nodes (kwok's
// fake nodes, for the agent-sandbox load runs) by the real scheduler's Binding writes.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() { os.Exit(cli.Run(app.NewSchedulerCommand())) }
