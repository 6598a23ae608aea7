// Package agentsandbox runs the real agent-sandbox controller (sigs.k8s.io/agent-sandbox, built from the Go module
// proxy by scripts/build-agent-sandbox) against `fakekube serve` with nodes and kubelets, and checks the warm-pool
// path of agent-sandbox PR #508's first table: a SandboxClaim becomes Ready by adopting a warm Sandbox, and the
// pool orders a replacement. The test is skipped unless FAKEKUBE_AGENT_SANDBOX_BIN (the controller) and
// FAKEKUBE_AGENT_SANDBOX_CRDS (the module's k8s/crds folder) are set; scripts/agent-sandbox-e2e sets both.
package agentsandbox
