// Package conversionwebhooks checks that controller-runtime's conversion webhook (sigs.k8s.io/controller-runtime
// pkg/webhook/conversion, with Hub and Convertible types as kubebuilder scaffolds them), registered as the
// conversion webhook of a CRD with two versions, converts objects written and read through fakekube as through
// the real kube-apiserver: written through the spoke version, stored in the hub version, read back in either.
// The same test runs against the oracle when one is present (scripts/go-tests).
package conversionwebhooks
