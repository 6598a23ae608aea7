"""Per-kind registry behaviour observed on kube-apiserver v1.37.2: strategies that set generation and stamp times,
admission plugins that add finalizers and taints (sources: kubernetes v1.37.2, cited per test)."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.store import Store


def test_priority_class_generation_starts_at_one_and_never_moves(kube: Store) -> None:
    """pkg/registry/scheduling/priorityclass/strategy.go: PrepareForCreate sets 1, PrepareForUpdate nothing."""
    created = kube.create("priorityclasses", {"metadata": {"name": "high"}, "value": 1000})
    assert created["metadata"]["generation"] == 1
    changed = kube.patch("priorityclasses", "high", {"description": "changed", "globalDefault": False})
    assert changed["metadata"]["generation"] == 1 and changed["description"] == "changed"


def _rule(effect: str = "NoSchedule", **taint: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
            "spec": {"taint": {"key": "example.com/broken", "effect": effect, **taint}}}


def test_device_taint_rule_generation_and_time_added() -> None:
    """pkg/apis/resource/v1/defaults.go SetDefaults_DeviceTaint stamps timeAdded when decoded;
    pkg/registry/resource/devicetaintrule/strategy.go: generation 1, +1 per spec change, a new time when the effect
    changes and the time does not."""
    clock = VirtualClock()
    kube = Store(clock=clock)
    created = kube.create("devicetaintrules", _rule())
    meta, taint = created["metadata"], created["spec"]["taint"]
    assert meta["generation"] == 1 and taint["timeAdded"] == meta["creationTimestamp"]
    assert "f:timeAdded" in meta["managedFields"][0]["fieldsV1"]["f:spec"]["f:taint"]
    clock.advance(5)
    labelled = kube.patch("devicetaintrules", "r", {"metadata": {"labels": {"a": "b"}}})
    assert labelled["metadata"]["generation"] == 1 and labelled["spec"]["taint"]["timeAdded"] == taint["timeAdded"]
    moved = kube.patch("devicetaintrules", "r", {"spec": {"taint": {"effect": "NoExecute"}}})
    assert moved["metadata"]["generation"] == 2 and moved["spec"]["taint"]["timeAdded"] > taint["timeAdded"]
    kept = kube.create("devicetaintrules", {**_rule(timeAdded="2020-01-01T00:00:00Z"),
                                            "metadata": {"name": "kept"}})
    assert kept["spec"]["taint"]["timeAdded"] == "2020-01-01T00:00:00Z"


def test_a_local_api_service_is_available_on_create(kube: Store) -> None:
    """kube-aggregator v0.37.2 pkg/registry/apiservice/strategy.go PrepareForCreate, observed on kube-apiserver
    v1.37.2: no spec.service, an Available/Local condition; one with a service starts with an empty status."""
    spec = {"group": "example.com", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}
    local = kube.create("apiservices", {"metadata": {"name": "v1.example.com"}, "spec": spec})
    condition = local["status"]["conditions"][0]
    assert {k: v for k, v in condition.items() if k != "lastTransitionTime"} == {
        "type": "Available", "status": "True", "reason": "Local", "message": "Local APIServices are always available"}
    assert condition["lastTransitionTime"] == local["metadata"]["creationTimestamp"]
    remote = kube.create("apiservices", {"metadata": {"name": "v1.other.example.com"}, "spec": {
        **spec, "group": "other.example.com", "service": {"namespace": "default", "name": "api"},
        "insecureSkipTLSVerify": True}})
    assert remote["status"] == {}


def test_storage_objects_get_their_protection_finalizers_on_create(kube: Store) -> None:
    """plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go, observed on kube-apiserver
    v1.37.2: appended to what the object has, once, on create only."""
    claim = kube.create("persistentvolumeclaims", {"metadata": {"name": "c", "finalizers": ["example.com/x"]},
                                                   "spec": {"accessModes": ["ReadWriteOnce"],
                                                            "resources": {"requests": {"storage": "1Gi"}}}}, "default")
    assert claim["metadata"]["finalizers"] == ["example.com/x", "kubernetes.io/pvc-protection"]
    volume = kube.create("persistentvolumes", {"metadata": {"name": "v", "finalizers": ["kubernetes.io/pv-protection"]},
                                               "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                                        "hostPath": {"path": "/tmp"}}})
    assert volume["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    vac = kube.create("volumeattributesclasses", {"metadata": {"name": "a"}, "driverName": "d.example.com",
                                                  "parameters": {"iops": "3000"}})
    assert vac["metadata"]["finalizers"] == ["kubernetes.io/vac-protection"]
    # An update may take it off (the protection controller does): admission adds it on create only.
    kube.patch("volumeattributesclasses", "a", {"metadata": {"finalizers": None}})
    kube.delete("volumeattributesclasses", "a")
    with pytest.raises(errors.NotFound):
        kube.get("volumeattributesclasses", "a")
    # Held by its finalizer, a deleted claim stays, terminating.
    kube.delete("persistentvolumeclaims", "c", "default")
    assert kube.get("persistentvolumeclaims", "c", "default")["metadata"]["deletionTimestamp"]


def test_a_new_node_is_tainted_not_ready(kube: Store) -> None:
    """plugin/pkg/admission/nodetaint/admission.go, observed on kube-apiserver v1.37.2."""
    node = kube.create("nodes", {"metadata": {"name": "n"}, "spec": {"taints": [
        {"key": "example.com/gpu", "effect": "NoSchedule"}]}})
    assert node["spec"]["taints"] == [{"key": "example.com/gpu", "effect": "NoSchedule"},
                                      {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]
    untainted = kube.update("nodes", {**node, "spec": {}})
    assert "taints" not in untainted["spec"]


def test_the_plugins_can_be_disabled() -> None:
    kube = Store()
    kube.disabled_admission_plugins = frozenset({"TaintNodesByCondition", "StorageObjectInUseProtection"})
    assert "taints" not in kube.create("nodes", {"metadata": {"name": "n"}}).get("spec", {})
    pv = kube.create("persistentvolumes", {"metadata": {"name": "v"}, "spec": {
        "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}}})
    assert "finalizers" not in pv["metadata"]


def test_a_storage_version_migration_starts_with_an_empty_status(kube: Store) -> None:
    """pkg/registry/storagemigration/storagemigration/strategy.go: no APIService condition (v1.37.2)."""
    created = kube.create("storageversionmigrations", {"metadata": {"name": "m"}, "spec": {
        "resource": {"group": "", "resource": "configmaps"}}})
    assert created["status"] == {}
