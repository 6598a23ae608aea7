"""Status subresource and generation rules, one test per kind family: the status a create starts from (as the
server serialises it, checked against the official client's models, which reject a status missing a required
field), what a main write keeps from the stored status, what a ``/status`` write keeps from the stored object,
and when ``metadata.generation`` moves. Sources: each kind's ``pkg/registry/<group>/<resource>/strategy.go``
(``PrepareForCreate``, ``PrepareForUpdate`` of the strategy and of its status strategy)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.store import Store
from tests.kinds.conftest import deployment, pod, pod_template

kubernetes = pytest.importorskip("kubernetes")
from kubernetes.client import ApiClient  # noqa: E402

_SELECTED = {"selector": {"matchLabels": {"app": "web"}}, "template": pod_template()}

# resource → (model, minimal valid body, status after create)
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "deployments": ("V1Deployment", deployment(), {}),
    "replicasets": ("V1ReplicaSet", {"metadata": {"name": "x"}, "spec": _SELECTED}, {"replicas": 0}),
    "statefulsets": ("V1StatefulSet", {"metadata": {"name": "x"}, "spec": _SELECTED},
                     {"replicas": 0, "availableReplicas": 0}),
    "daemonsets": ("V1DaemonSet", {"metadata": {"name": "x"}, "spec": _SELECTED},
                   {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                    "numberReady": 0}),
    "replicationcontrollers": ("V1ReplicationController", {"metadata": {"name": "x"}, "spec": {
        "selector": {"app": "web"}, "template": pod_template()}}, {"replicas": 0}),
    "jobs": ("V1Job", {"metadata": {"name": "x"}, "spec": {"template": pod_template(restartPolicy="Never")}}, {}),
    "cronjobs": ("V1CronJob", {"metadata": {"name": "x"}, "spec": {"schedule": "@daily", "jobTemplate": {
        "spec": {"template": pod_template(restartPolicy="Never")}}}}, {}),
    "horizontalpodautoscalers": ("V2HorizontalPodAutoscaler", {"metadata": {"name": "x"}, "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3}}, {"desiredReplicas": 0, "currentMetrics": None}),  # neither omitempty (v1.37.2)
    "poddisruptionbudgets": ("V1PodDisruptionBudget", {"metadata": {"name": "x"}, "spec": {"minAvailable": 1}},
                             {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}),
    "services": ("V1Service", {"metadata": {"name": "x"}, "spec": {"ports": [{"port": 80}]}}, {"loadBalancer": {}}),
    "ingresses": ("V1Ingress", {"metadata": {"name": "x"}, "spec": {"defaultBackend": {
        "service": {"name": "web", "port": {"number": 80}}}}}, {"loadBalancer": {}}),
    "persistentvolumeclaims": ("V1PersistentVolumeClaim", {"metadata": {"name": "x"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}, {"phase": "Pending"}),
    "resourcequotas": ("V1ResourceQuota", {"metadata": {"name": "x"}, "spec": {"hard": {"pods": "10"}}}, {}),
    "pods": ("V1Pod", pod(), {"phase": "Pending", "qosClass": "BestEffort"}),
}

# A status field each kind has (the server drops fields its type does not declare); observedGeneration otherwise.
STATUS_CHANGES: dict[str, dict[str, Any]] = {
    "services": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ipMode": "VIP"}]}},
    "ingresses": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}},
    "jobs": {"active": 1},
    "cronjobs": {"lastScheduleTime": "2024-01-01T00:00:00Z"},
    "persistentvolumeclaims": {"phase": "Bound"},
    "resourcequotas": {"used": {"pods": "1"}},
}


def _deserialize(model: str, obj: dict[str, Any]) -> Any:
    api = ApiClient()
    return api._ApiClient__deserialize(obj, model)


@pytest.mark.parametrize("resource", sorted(CASES))
def test_create_starts_from_the_status_the_server_serialises(kube: Store, resource: str) -> None:
    model, body, status = CASES[resource]
    body = {**body, "status": {"bogus": "client-set status is dropped"}}
    created = kube.create(resource, body, "default")
    assert created["status"] == status
    typed = _deserialize(model, created)
    assert typed.status is not None  # clients read obj.status.<field> without a None check


@pytest.mark.parametrize("resource", sorted(set(CASES) - {"pods"}))
def test_main_writes_keep_the_status_and_status_writes_keep_the_spec(kube: Store, resource: str) -> None:
    _, body, _ = CASES[resource]
    created = kube.create(resource, body, "default")
    spec, status = created["spec"], created["status"]
    change = STATUS_CHANGES.get(resource, {"observedGeneration": 7})
    created["status"] = change
    kept = kube.update(resource, created, "default")
    assert kept["status"] == status
    status_write = {**kept, "spec": {"changed": True}, "status": {**kept["status"], **change}}
    written = kube.update(resource, status_write, "default", subresource="status")
    assert written["spec"] == spec and written["status"] == {**status, **change}


GENERATION = [
    # resource, tracks generation, a spec change, a change that bumps only some kinds
    ("deployments", True),
    ("replicasets", True),
    ("statefulsets", True),
    ("daemonsets", True),
    ("replicationcontrollers", True),
    ("jobs", True),
    ("cronjobs", True),
    ("poddisruptionbudgets", True),
    ("ingresses", True),
    ("horizontalpodautoscalers", True),  # HPAGeneration, on by default in 1.37 (observed on v1.37.2)
    ("services", False),
    ("persistentvolumeclaims", False),
]


@pytest.mark.parametrize(("resource", "tracks"), GENERATION)
def test_generation(kube: Store, resource: str, tracks: bool) -> None:
    _, body, _ = CASES[resource]
    created = kube.create(resource, body, "default")
    assert created["metadata"].get("generation") == (1 if tracks else None)
    labelled = kube.patch(resource, "x" if resource != "deployments" else "web",
                          {"metadata": {"labels": {"touched": "yes"}}}, "default")
    assert labelled["metadata"].get("generation") == created["metadata"].get("generation")
    spec_patch = {"deployments": {"spec": {"replicas": 3}}, "replicasets": {"spec": {"replicas": 3}},
                  "statefulsets": {"spec": {"replicas": 3}}, "replicationcontrollers": {"spec": {"replicas": 3}},
                  "daemonsets": {"spec": {"minReadySeconds": 5}}, "jobs": {"spec": {"activeDeadlineSeconds": 60}},
                  "cronjobs": {"spec": {"suspend": True}}, "poddisruptionbudgets": {"spec": {"minAvailable": 2}},
                  "ingresses": {"spec": {"ingressClassName": "nginx"}},
                  "horizontalpodautoscalers": {"spec": {"maxReplicas": 4}},
                  "services": {"spec": {"sessionAffinity": "ClientIP"}},
                  "persistentvolumeclaims": {"metadata": {"annotations": {"a": "b"}}}}[resource]
    name = labelled["metadata"]["name"]
    patched = kube.patch(resource, name, spec_patch, "default")
    assert patched["metadata"].get("generation") == (2 if tracks else None)


def test_deployment_generation_also_moves_on_annotations_and_status_writes_keep_labels(kube: Store) -> None:
    kube.create("deployments", deployment(), "default")
    annotated = kube.patch("deployments", "web", {"metadata": {"annotations": {"note": "x"}}}, "default")
    assert annotated["metadata"]["generation"] == 2
    written = kube.patch("deployments", "web", {"metadata": {"labels": {"new": "l"}, "annotations": {"b": "c"}},
                                                 "status": {"replicas": 1}}, "default", subresource="status")
    assert "new" not in (written["metadata"].get("labels") or {})  # resetFields: metadata.labels
    assert written["metadata"]["annotations"]["b"] == "c" and written["status"]["replicas"] == 1


def test_daemonset_template_generation_annotation(kube: Store) -> None:
    _, body, _ = CASES["daemonsets"]
    kube.create("daemonsets", body, "default")
    key = "deprecated.daemonset.template.generation"
    scaled = kube.patch("daemonsets", "x", {"spec": {"minReadySeconds": 3}}, "default")
    assert (scaled["metadata"]["annotations"][key], scaled["metadata"]["generation"]) == ("1", 2)
    rolled = kube.patch("daemonsets", "x", {"spec": {"template": {"metadata": {"labels": {"v": "2"}}}}}, "default")
    assert (rolled["metadata"]["annotations"][key], rolled["metadata"]["generation"]) == ("2", 3)


def test_pod_status_writes_keep_spec_and_owner_references_but_not_finalizers(kube: Store) -> None:
    kube.create("pods", pod(), "default")
    written = kube.patch("pods", "p", {
        "metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u"}],
                     "finalizers": ["example.com/hold"], "labels": {"phase": "up"}},
        "spec": {"nodeName": "sneaky"}, "status": {"phase": "Running", "qosClass": ""}}, "default",
        subresource="status")
    meta = written["metadata"]
    assert "ownerReferences" not in meta and "nodeName" not in written["spec"]
    assert meta["finalizers"] == ["example.com/hold"] and meta["labels"] == {"phase": "up"}
    assert written["status"] == {"phase": "Running", "qosClass": "BestEffort"}  # qosClass is backfilled


def test_namespace_node_and_volume_attachment(kube: Store) -> None:
    node = kube.create("nodes", {"metadata": {"name": "n"}})
    assert node["status"]["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 0}}
    assert _deserialize("V1Node", node).status.node_info is not None
    va = kube.create("volumeattachments", {"metadata": {"name": "va"}, "spec": {
        "attacher": "a", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}})
    assert va["status"] == {"attached": False}
    # VolumeAttachment's status strategy resets metadata (ResetObjectMetaForStatus); a Namespace's does not.
    va_written = kube.patch("volumeattachments", "va", {"metadata": {"labels": {"l": "1"}},
                                                        "status": {"attached": True}}, subresource="status")
    assert "labels" not in va_written["metadata"] and va_written["status"] == {"attached": True}
    ns_written = kube.patch("namespaces", "default", {"metadata": {"labels": {"l": "1"}}}, subresource="status")
    assert ns_written["metadata"]["labels"]["l"] == "1"
