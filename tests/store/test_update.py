from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import pod, widget


def test_stale_put_is_409_with_the_exact_message(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    fresh = crd_kube.update("widgets", {**w, "spec": {**w["spec"], "replicas": 2}}, "default")
    with pytest.raises(errors.Conflict) as info:
        crd_kube.update("widgets", {**w, "spec": {**w["spec"], "replicas": 3}}, "default")
    assert info.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; '
                   "please apply your changes to the latest version and try again",
        "reason": "Conflict", "details": {"name": "w1", "group": "example.com", "kind": "widgets"}, "code": 409,
    }
    assert crd_kube.get("widgets", "w1", "default") == fresh


def test_put_without_resource_version_is_422_for_custom_resources(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    del w["metadata"]["resourceVersion"]
    with pytest.raises(errors.Invalid) as info:
        crd_kube.update("widgets", w, "default")
    assert info.value.message == (
        'widgets.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0: '
        "must be specified for an update"
    )
    assert info.value.status["details"]["kind"] == "widgets"


def test_put_without_resource_version_is_unconditional_for_pods(kube: Store) -> None:
    p = kube.create("pods", pod(), "default")
    kube.patch("pods", "p1", {"metadata": {"labels": {"a": "1"}}}, "default")
    del p["metadata"]["resourceVersion"]
    p["metadata"]["labels"] = {"b": "2"}
    updated = kube.update("pods", p, "default")
    assert updated["metadata"]["labels"] == {"b": "2"}


def test_no_op_update_keeps_resource_version_and_emits_nothing(kube: Store) -> None:
    cm = kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "b"}}, "default")
    watch = kube.watch("configmaps", "default", resource_version=cm["metadata"]["resourceVersion"])
    again = kube.update("configmaps", cm, "default")
    assert again["metadata"]["resourceVersion"] == cm["metadata"]["resourceVersion"]
    assert kube.resource_version == cm["metadata"]["resourceVersion"]
    assert watch.next(timeout=0) is None
    changed = kube.update("configmaps", {**cm, "data": {"a": "c"}}, "default")
    assert int(changed["metadata"]["resourceVersion"]) == int(cm["metadata"]["resourceVersion"]) + 1
    event = watch.next(timeout=0)
    assert event is not None and event.type == "MODIFIED"


def test_generation_bumps_on_spec_not_on_metadata(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    w["metadata"]["labels"] = {"x": "y"}
    w = crd_kube.update("widgets", w, "default")
    assert w["metadata"]["generation"] == 1
    w["spec"]["replicas"] = 5
    w = crd_kube.update("widgets", w, "default")
    assert w["metadata"]["generation"] == 2


def test_main_resource_write_ignores_status(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    w["status"] = {"phase": "Hacked"}
    w = crd_kube.update("widgets", w, "default")
    assert "status" not in w
    assert w["metadata"]["generation"] == 1


def test_uid_in_body_is_a_precondition(kube: Store) -> None:
    cm = kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    cm["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"
    with pytest.raises(errors.Conflict) as info:
        kube.update("configmaps", cm, "default")
    assert "Precondition failed: UID in precondition" in info.value.message


def test_immutable_fields_and_missing_objects(kube: Store) -> None:
    with pytest.raises(errors.NotFound):
        kube.update("configmaps", {"metadata": {"name": "ghost"}}, "default")
    cm = kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    with pytest.raises(errors.BadRequest, match="does not match the name on the URL"):
        kube.update("configmaps", cm, "default", name="other-name-on-url")


def test_creation_timestamp_and_generation_cannot_be_changed(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    w["metadata"]["creationTimestamp"] = "2001-01-01T00:00:00Z"
    w["metadata"]["generation"] = 40
    w["metadata"]["labels"] = {"touched": "yes"}
    updated = crd_kube.update("widgets", w, "default")
    assert updated["metadata"]["creationTimestamp"] != "2001-01-01T00:00:00Z"
    assert updated["metadata"]["generation"] == 1


def test_schema_violation_on_update_leaves_the_object_unchanged(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    bad = {**w, "spec": {**w["spec"], "replicas": -1}}
    with pytest.raises(errors.Invalid):
        crd_kube.update("widgets", bad, "default")
    assert crd_kube.get("widgets", "w1", "default") == w


def test_error_order_of_a_stale_put(kube: Store) -> None:
    """Decoding errors (400) and the uid precondition come before the resourceVersion check."""
    p = kube.create("pods", pod(), "default")
    kube.patch("pods", "p1", {"metadata": {"labels": {"a": "1"}}}, "default")
    with pytest.raises(errors.BadRequest, match="cannot unmarshal string into Go struct field Pod.spec"):
        kube.update("pods", {**p, "spec": "not-an-object"}, "default")
    with pytest.raises(errors.Conflict, match="Precondition failed: UID in precondition"):
        kube.update("pods", {**p, "metadata": {**p["metadata"], "uid": "other"}}, "default")
    with pytest.raises(errors.Conflict, match="the object has been modified"):
        kube.update("pods", p, "default")
    entry = kube.audit[-1]
    assert (entry.code, entry.rv_before, entry.rv_after) == (409, kube.resource_version, None)


def test_a_put_with_resource_version_0_is_unconditional_or_refused_never_a_409(kube: Store) -> None:
    """resourceVersion "0" is no stale version (store.go: ``newResourceVersion == 0``): a kind that allows
    unconditional updates writes, one that does not answers 422 — the stale-PUT shortcut must not say 409."""
    kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}}, "default")
    body = kube.get("configmaps", "c", "default")
    body["metadata"]["resourceVersion"] = "0"
    body["data"]["a"] = "2"
    assert kube.update("configmaps", body, "default")["data"] == {"a": "2"}
    kube.create("poddisruptionbudgets", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                         "metadata": {"name": "p"}, "spec": {"minAvailable": 1}}, "default")
    pdb = kube.get("poddisruptionbudgets", "p", "default")
    pdb["metadata"]["resourceVersion"] = "0"
    with pytest.raises(errors.Invalid, match="must be specified for an update"):
        kube.update("poddisruptionbudgets", pdb, "default")
