"""Admission webhooks: ValidatingWebhookConfiguration and MutatingWebhookConfiguration called over HTTPS as
kube-apiserver calls them (docs/admission.md, "Admission webhooks").

- ``transport``: the HTTPS POST with the configuration's caBundle, timeouts, Service references mapped to
  loopback addresses (``ServiceMap``), errors in Go's words;
- ``review``: AdmissionReview requests and the checks of their responses;
- ``matching``: rules, matchPolicy, namespace and object selectors, match conditions (``conditions``: CEL);
- ``dispatch``: mutating (JSON patches, reinvocation) and validating (parallel) dispatch, failurePolicy,
  sideEffects and dry run, warnings and audit annotations.

The store calls them through ``fakekube.verbs.webhook_admission``, which lets the store's lock go for the calls.
"""

from fakekube.webhooks.transport import ServiceMap

__all__ = ["ServiceMap"]
