"""Per-kind registry behaviour observed on kube-apiserver v1.37.2: strategies that set generation and stamp times,
admission plugins that add finalizers and taints (sources: kubernetes v1.37.2, cited per test)."""

from __future__ import annotations

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
