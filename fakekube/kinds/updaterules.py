"""Two yes/no answers every built-in registry gives about PUT, as data (kubernetes v1.37.2
``pkg/registry/<group>/<resource>/strategy.go``, kube-aggregator v0.37.2 ``pkg/registry/apiservice/strategy.go``):

- ``AllowCreateOnUpdate``: a PUT to a missing object creates it (201) instead of answering 404. True only for
  the kinds in :data:`CREATE_ON_UPDATE`; every other built-in, and every custom resource, answers 404.
- ``AllowUnconditionalUpdate``: a PUT without a resourceVersion overwrites the stored object. False for the kinds
  in :data:`CONDITIONAL_UPDATE_ONLY`, which answer 422 ``metadata.resourceVersion: Invalid value: 0: must be
  specified for an update`` (apiserver v0.37.2 ``pkg/registry/generic/registry/store.go`` ``Update``).

A kind whose answer depends on the request (DeviceTaintRule: its older versions allow it) keeps its strategy's
own attribute; the tables name the kinds whose answer is a constant.
"""

from __future__ import annotations

# (group, Kind); "" is the core group. The events.k8s.io Event is the core Event's storage seen through another
# version, so it answers as the core one does.
CREATE_ON_UPDATE: frozenset[tuple[str, str]] = frozenset({
    ("", "Endpoints"),
    ("", "Event"),
    ("events.k8s.io", "Event"),
    ("", "LimitRange"),
    ("", "Service"),
    ("coordination.k8s.io", "Lease"),
    ("coordination.k8s.io", "LeaseCandidate"),
    ("node.k8s.io", "RuntimeClass"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
})

CONDITIONAL_UPDATE_ONLY: frozenset[tuple[str, str]] = frozenset({
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("certificates.k8s.io", "ClusterTrustBundle"),
    ("certificates.k8s.io", "PodCertificateRequest"),
    ("coordination.k8s.io", "Lease"),
    ("coordination.k8s.io", "LeaseCandidate"),
    ("internal.apiserver.k8s.io", "StorageVersion"),
    ("node.k8s.io", "RuntimeClass"),
    ("policy", "PodDisruptionBudget"),
    ("resource.k8s.io", "ResourcePoolStatusRequest"),
    ("scheduling.k8s.io", "CompositePodGroup"),
    ("scheduling.k8s.io", "PodGroup"),
    ("scheduling.k8s.io", "Workload"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "CSIStorageCapacity"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("storagemigration.k8s.io", "StorageVersionMigration"),
})


def allows_create_on_update(group: str, kind: str) -> bool:
    return (group, kind) in CREATE_ON_UPDATE


def conditional_update_only(group: str, kind: str) -> bool:
    return (group, kind) in CONDITIONAL_UPDATE_ONLY
