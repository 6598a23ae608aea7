"""``POST pods/<name>/binding`` (BindingREST): the scheduler's way to set a pod's node."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store


@pytest.fixture
def store() -> Store:
    s = Store()
    s.create("pods", {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    return s


def binding(node: str = "node-1", **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p", **meta},
            "target": {"kind": "Node", "name": node}}


def test_binding_sets_the_node_and_pod_scheduled_without_managed_fields(store: Store):
    before = store.get("pods", "p", "default")
    answer = store.bind("p", binding(annotations={"scheduled-by": "test"}), "default", actor="default-scheduler")
    assert answer == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    pod = store.get("pods", "p", "default")
    assert pod["spec"]["nodeName"] == "node-1"
    assert pod["metadata"]["annotations"] == {"scheduled-by": "test"}
    assert pod["status"]["conditions"] == [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                             "lastTransitionTime": pod["status"]["conditions"][0]["lastTransitionTime"]}]
    assert pod["metadata"]["managedFields"] == before["metadata"]["managedFields"]
    assert pod["metadata"].get("generation") == before["metadata"].get("generation")
    entry = store.audit[-2]
    assert (entry.verb, entry.resource, entry.subresource, entry.code, entry.actor) == (
        "create", "pods", "binding", 201, "default-scheduler")


def test_binding_an_assigned_or_deleted_pod_is_a_conflict_on_pods_binding(store: Store):
    store.bind("p", binding(), "default")
    with pytest.raises(errors.Conflict) as exc:
        store.bind("p", binding("node-2"), "default")
    assert exc.value.message == ('Operation cannot be fulfilled on pods/binding "p": pod p is already assigned '
                                 'to node "node-1"')
    store.create("pods", {"metadata": {"name": "q", "finalizers": ["x/y"]},
                          "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    store.delete("pods", "q", "default")
    with pytest.raises(errors.Conflict, match="is being deleted, cannot be assigned to a host"):
        store.bind("q", {**binding(), "metadata": {"name": "q"}}, "default")


def test_binding_preconditions_and_validation(store: Store):
    uid = store.get("pods", "p", "default")["metadata"]["uid"]
    with pytest.raises(errors.Conflict, match="Precondition failed: UID in precondition"):
        store.bind("p", binding(uid="not-" + uid), "default")
    with pytest.raises(errors.BadRequest, match="name in URL does not match"):
        store.bind("p", {**binding(), "metadata": {"name": "other"}}, "default")
    with pytest.raises(errors.ApiError) as exc:
        store.bind("p", {"metadata": {"name": "p"}, "target": {}}, "default")
    assert (exc.value.code, exc.value.message) == (500, "target.name: Required value")
    with pytest.raises(errors.NotFound):
        store.bind("missing", {**binding(), "metadata": {"name": "missing"}}, "default")
    assert "nodeName" not in store.get("pods", "p", "default")["spec"]
    store.bind("p", binding(uid=uid), "default", dry_run=True)
    assert "nodeName" not in store.get("pods", "p", "default")["spec"]
