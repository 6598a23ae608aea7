// Package guestbook is a small kubebuilder-style operator: the Guestbook API (api/v1), its CRD generated
// by controller-gen (config/crd/bases), and a reconciler (controller) that owns a Deployment and a Service.
// Its suite runs on fakekube and on a real kube-apiserver with the same assertions (docs/go.md).
package guestbook

// ControllerToolsVersion is the controller-gen that generated api/v1/zz_generated.deepcopy.go and
// config/crd/bases; generate_test.go checks the committed output against a fresh run.
const ControllerToolsVersion = "v0.23.0"

//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 object paths=./api/... crd paths=./api/... output:crd:artifacts:config=config/crd/bases
