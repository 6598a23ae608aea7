"""DELETE answers the deleted object for the kinds whose registry sets ``ReturnDeletedObject``
(``pkg/registry/*/*/storage/storage.go``), a ``Status`` for the rest.

The oracle is the official ``kubernetes`` client: it is generated from kube-apiserver's OpenAPI document, whose
DELETE response type is the kind itself exactly when the storage returns the deleted object, and ``Status``
otherwise. Every kind of the client's stable APIs that fakekube has a strategy for is checked against it.
"""

from __future__ import annotations

import inspect
import re

import pytest

from fakekube.builtins import builtin_types
from fakekube.store import Store
from tests.kinds.conftest import pod

kubernetes = pytest.importorskip("kubernetes")
import kubernetes.client as k8s  # noqa: E402

_API_OF_GROUP = {"": "CoreV1Api", "apps": "AppsV1Api", "batch": "BatchV1Api", "autoscaling": "AutoscalingV2Api",
                 "policy": "PolicyV1Api", "networking.k8s.io": "NetworkingV1Api",
                 "discovery.k8s.io": "DiscoveryV1Api", "rbac.authorization.k8s.io": "RbacAuthorizationV1Api",
                 "storage.k8s.io": "StorageV1Api", "scheduling.k8s.io": "SchedulingV1Api",
                 "admissionregistration.k8s.io": "AdmissionregistrationV1Api",
                 "certificates.k8s.io": "CertificatesV1Api", "flowcontrol.apiserver.k8s.io": "FlowcontrolApiserverV1Api",
                 "coordination.k8s.io": "CoordinationV1Api", "node.k8s.io": "NodeV1Api", "resource.k8s.io": "ResourceV1Api",
                 "events.k8s.io": "EventsV1Api", "apiextensions.k8s.io": "ApiextensionsV1Api",
                 "apiregistration.k8s.io": "ApiregistrationV1Api", "storagemigration.k8s.io": "StoragemigrationV1Api"}


def _snake(kind: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", kind).lower()


def client_returns_object(group: str, kind: str, namespaced: bool) -> bool | None:
    """Whether the official client's delete method for ``kind`` returns the kind (None: no such method)."""
    api = getattr(k8s, _API_OF_GROUP[group], None)
    name = f"delete_{'namespaced_' if namespaced else ''}{_snake(kind)}"
    method = getattr(api, name, None) if api is not None else None
    if method is None:
        return None
    types = re.search(r"_response_types_map[^{]*\{(.*?)\}", inspect.getsource(method), re.S)
    assert types is not None
    ok = re.search(r"'200':\s*\"([^\"]+)\"", types.group(1))
    assert ok is not None
    return ok.group(1) != "object"  # the generator maps the Status response to "object"


_SERVED = sorted({(rt.group, rt.kind, rt.namespaced): rt for rt in builtin_types()
                  if rt.group in _API_OF_GROUP and "delete" in rt.verbs}.items())


@pytest.mark.parametrize("key", [k for k, _ in _SERVED], ids=[f"{g or 'core'}/{k}" for (g, k, _), _ in _SERVED])
def test_returns_deleted_object_matches_the_official_client(key: tuple[str, str, bool]) -> None:
    group, kind, namespaced = key
    expected = client_returns_object(group, kind, namespaced)
    if expected is None:
        pytest.skip(f"the client has no delete for {kind}")
    assert dict(_SERVED)[key].strategy.returns_deleted_object is expected


def test_the_oracle_distinguishes(kube: Store) -> None:
    assert client_returns_object("", "Pod", True) is True
    assert client_returns_object("", "ConfigMap", True) is False


@pytest.mark.parametrize(("resource", "body", "kind"), [
    ("pods", pod(), "Pod"),
    ("services", {"metadata": {"name": "p"}, "spec": {"ports": [{"port": 80}]}}, "Service"),
    ("serviceaccounts", {"metadata": {"name": "p"}}, "ServiceAccount"),
    ("persistentvolumeclaims", {"metadata": {"name": "p"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}, "PersistentVolumeClaim"),
    ("podtemplates", {"metadata": {"name": "p"}, "template": {"spec": {"containers": [{"name": "a", "image": "b"}]}}},
     "PodTemplate"),
    ("resourcequotas", {"metadata": {"name": "p"}, "spec": {}}, "ResourceQuota"),
    ("configmaps", {"metadata": {"name": "p"}}, "Status"),
    ("secrets", {"metadata": {"name": "p"}}, "Status"),
    ("deployments", {"metadata": {"name": "p"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
        "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "a", "image": "b"}]}}}}, "Status"),
])
def test_delete_answer_through_the_store(kube: Store, resource: str, body: dict, kind: str) -> None:
    created = kube.create(resource, body, "default")
    answer = kube.delete(resource, "p", "default")
    assert answer["kind"] == kind
    if kind == "Status":
        assert answer["status"] == "Success" and answer["details"]["uid"] == created["metadata"]["uid"]
    else:
        assert answer["metadata"]["uid"] == created["metadata"]["uid"]
        # Removed or marked, the answer is at a newer revision (observed on kube-apiserver v1.37.2: the etcd3
        # store decodes a deleted object at the delete's revision, pkg/storage/etcd3/store.go).
        assert int(answer["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])


def test_a_graceful_pod_delete_answers_the_pod_with_its_deletion_timestamp(kube: Store) -> None:
    kube.create("pods", pod(), "default")
    kube.bind("p", {"target": {"name": "node-1"}}, "default")
    answer = kube.delete("pods", "p", "default")
    assert answer["kind"] == "Pod" and answer["metadata"]["deletionGracePeriodSeconds"] == 30
    assert answer["metadata"]["deletionTimestamp"]
    assert kube.get("pods", "p", "default")["metadata"]["deletionTimestamp"] == answer["metadata"]["deletionTimestamp"]
