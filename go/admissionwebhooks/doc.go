// Package admissionwebhooks checks that a controller-runtime webhook server (sigs.k8s.io/controller-runtime
// pkg/webhook, pkg/webhook/admission), registered through a MutatingWebhookConfiguration and a
// ValidatingWebhookConfiguration, is called when objects are created through fakekube, as through the real
// kube-apiserver: its patch lands in the stored object and its denial is the client's error. The same test runs
// against the oracle when one is present (scripts/go-tests).
package admissionwebhooks
