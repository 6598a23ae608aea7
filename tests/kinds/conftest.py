"""A store that serves every GA built-in kind, each with its ``strategy_for`` strategy.

Until the registry serves them all from data, the kinds fakekube does not register yet are registered here,
with the names, scope and subresources of the upstream discovery documents (``/work/shared/reference/
discovery``). Kinds the registry already serves are left as it registers them.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.kinds import strategy_for
from fakekube.resources import ResourceType, ScaleSpec
from fakekube.store import Store

# (group, version, kind, plural, namespaced, subresources)
KINDS: list[tuple[str, str, str, str, bool, tuple[str, ...]]] = [
    ("", "v1", "ConfigMap", "configmaps", True, ()),
    ("", "v1", "Endpoints", "endpoints", True, ()),
    ("", "v1", "LimitRange", "limitranges", True, ()),
    ("", "v1", "Node", "nodes", False, ("status",)),
    ("", "v1", "PersistentVolume", "persistentvolumes", False, ("status",)),
    ("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True, ("status",)),
    ("", "v1", "PodTemplate", "podtemplates", True, ()),
    ("", "v1", "ReplicationController", "replicationcontrollers", True, ("status", "scale")),
    ("", "v1", "ResourceQuota", "resourcequotas", True, ("status",)),
    ("", "v1", "Secret", "secrets", True, ()),
    ("", "v1", "ServiceAccount", "serviceaccounts", True, ()),
    ("", "v1", "Service", "services", True, ("status",)),
    ("apps", "v1", "ControllerRevision", "controllerrevisions", True, ()),
    ("apps", "v1", "DaemonSet", "daemonsets", True, ("status",)),
    ("apps", "v1", "Deployment", "deployments", True, ("status", "scale")),
    ("apps", "v1", "ReplicaSet", "replicasets", True, ("status", "scale")),
    ("apps", "v1", "StatefulSet", "statefulsets", True, ("status", "scale")),
    ("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", True, ("status",)),
    ("batch", "v1", "CronJob", "cronjobs", True, ("status",)),
    ("batch", "v1", "Job", "jobs", True, ("status",)),
    ("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", False,
     ("status", "approval")),
    ("coordination.k8s.io", "v1", "Lease", "leases", True, ()),
    ("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True, ()),
    ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", False, ("status",)),
    ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", False,
     ("status",)),
    ("networking.k8s.io", "v1", "Ingress", "ingresses", True, ("status",)),
    ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", False, ()),
    ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True, ()),
    ("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", False, ()),
    ("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", True, ("status",)),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False, ()),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False, ()),
    ("rbac.authorization.k8s.io", "v1", "Role", "roles", True, ()),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", True, ()),
    ("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", False, ()),
    ("storage.k8s.io", "v1", "CSIDriver", "csidrivers", False, ()),
    ("storage.k8s.io", "v1", "CSINode", "csinodes", False, ()),
    ("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", True, ()),
    ("storage.k8s.io", "v1", "StorageClass", "storageclasses", False, ()),
    ("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", False, ("status",)),
    ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
     False, ()),
    ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations",
     False, ()),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", False,
     ("status",)),
    ("resource.k8s.io", "v1", "DeviceClass", "deviceclasses", False, ()),
    ("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", True, ("status",)),
]

_SCALE = ScaleSpec(".spec.replicas", ".status.replicas", None)


def register_all(store: Store) -> Store:
    for group, version, kind, plural, namespaced, subresources in KINDS:
        if store.registry.get(group, version, plural) is not None:
            continue
        store.registry.register(ResourceType(
            group, version, kind, plural, namespaced=namespaced,
            strategy=strategy_for(group, kind, has_status="status" in subresources),
            subresources=frozenset(subresources), scale=_SCALE if "scale" in subresources else None))
    return store


@pytest.fixture
def kube(kube: Store) -> Store:
    """The plugin's ``kube`` store, serving every kind of :data:`KINDS`."""
    return register_all(kube)


def pod_template(labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": labels if labels is not None else {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}}


def deployment(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": pod_template(), **spec}}


def pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}}
