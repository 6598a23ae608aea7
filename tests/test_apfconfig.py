"""The API Priority and Fairness config consumer's Dangling condition on FlowSchemas, observed on kube-apiserver
v1.37.2 (apiserver v0.37.2 pkg/util/flowcontrol/apf_controller.go presyncFlowSchemaStatus, apply)."""

from __future__ import annotations

from fakekube.apfconfig import FIELD_MANAGER
from fakekube.store import Store


def _schema(level: str) -> dict:
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "fs"},
            "spec": {"priorityLevelConfiguration": {"name": level}, "matchingPrecedence": 5000}}


def _level(name: str) -> dict:
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
            "metadata": {"name": name}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}}


def _dangling(obj: dict) -> dict:
    return {k: v for k, v in obj["status"]["conditions"][0].items() if k != "lastTransitionTime"}


def test_a_flow_schema_learns_whether_its_priority_level_exists() -> None:
    kube = Store()
    created = kube.create("flowschemas", _schema("demo"))
    assert created["status"] == {}  # the controller writes after the request
    read = kube.get("flowschemas", "fs")
    assert int(read["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    assert _dangling(read) == {"type": "Dangling", "status": "True", "reason": "NotFound", "message":
                               'This FlowSchema references the PriorityLevelConfiguration object named "demo" but '
                               "there is no such object"}
    entry = next(e for e in read["metadata"]["managedFields"] if e["manager"] == FIELD_MANAGER)
    assert (entry["operation"], entry["subresource"]) == ("Apply", "status")
    assert "lastTransitionTime" in read["status"]["conditions"][0]

    kube.create("prioritylevelconfigurations", _level("demo"))
    found = kube.get("flowschemas", "fs")
    assert _dangling(found)["reason"] == "Found" and _dangling(found)["status"] == "False"
    # Nothing to change: no write.
    kube.patch("flowschemas", "fs", {"metadata": {"labels": {"a": "b"}}})
    assert kube.get("flowschemas", "fs")["metadata"]["resourceVersion"] == str(
        int(found["metadata"]["resourceVersion"]) + 1)

    kube.delete("prioritylevelconfigurations", "demo")
    assert _dangling(kube.get("flowschemas", "fs"))["reason"] == "NotFound"
