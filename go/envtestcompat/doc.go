// Package envtestcompat holds the test of the zero-code path: an envtest suite, unchanged, run with
// USE_EXISTING_CLUSTER=true and KUBECONFIG naming a running `fakekube serve` (docs/go.md).
package envtestcompat
