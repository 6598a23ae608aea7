from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.store import Store

from .conftest import pod, widget


def owner_ref(obj: dict, *, block: bool = True) -> dict:
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": block}


def test_delete_without_finalizers_returns_a_success_status(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    status = crd_kube.delete("widgets", "w1", "default")
    assert status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                      "details": {"name": "w1", "group": "example.com", "kind": "widgets",
                                  "uid": w["metadata"]["uid"]}}
    with pytest.raises(errors.NotFound):
        crd_kube.get("widgets", "w1", "default")
    with pytest.raises(errors.NotFound):
        crd_kube.delete("widgets", "w1", "default")


def test_finalizers_keep_the_object_until_the_last_one_goes(crd_kube: Store) -> None:
    body = widget()
    body["metadata"]["finalizers"] = ["example.com/a", "example.com/b"]
    crd_kube.create("widgets", body, "default")
    watch = crd_kube.watch("widgets", "default", resource_version=crd_kube.resource_version)
    deleting = crd_kube.delete("widgets", "w1", "default")
    meta = deleting["metadata"]
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0
    assert meta["generation"] == 2  # markAsDeleting bumps generation
    deleting["metadata"]["finalizers"] = ["example.com/b"]
    still = crd_kube.update("widgets", deleting, "default")
    assert still["metadata"]["finalizers"] == ["example.com/b"]
    with pytest.raises(errors.Invalid, match="no new finalizers"):
        crd_kube.update("widgets", {**still, "metadata": {**still["metadata"], "finalizers": ["example.com/b", "x.io/new"]}}, "default")
    gone = crd_kube.patch("widgets", "w1", {"metadata": {"finalizers": None}}, "default")
    assert "finalizers" not in gone["metadata"]
    with pytest.raises(errors.NotFound):
        crd_kube.get("widgets", "w1", "default")
    events = watch.drain()
    assert [e.type for e in events] == ["MODIFIED", "MODIFIED", "DELETED"]
    # The DELETED event shows the last stored state (finalizer still listed) at the deletion's revision.
    assert events[-1].raw["metadata"]["finalizers"] == ["example.com/b"]
    assert events[-1].raw["metadata"]["resourceVersion"] == crd_kube.resource_version


def test_repeated_delete_never_moves_the_deletion_timestamp(crd_kube: Store) -> None:
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    crd_kube.clock = clock
    body = widget()
    body["metadata"]["finalizers"] = ["example.com/a"]
    crd_kube.create("widgets", body, "default")
    first = crd_kube.delete("widgets", "w1", "default")
    clock.advance(60)
    second = crd_kube.delete("widgets", "w1", "default")
    assert second["metadata"]["deletionTimestamp"] == first["metadata"]["deletionTimestamp"]


def test_delete_preconditions_put_the_kind_in_the_resource_slot(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    with pytest.raises(errors.Conflict) as info:
        crd_kube.delete("widgets", "w1", "default", preconditions={"resourceVersion": "1"})
    assert info.value.message.startswith('Operation cannot be fulfilled on Widget.example.com "w1": the ResourceVersion')
    with pytest.raises(errors.Conflict, match="the UID in the precondition"):
        crd_kube.delete("widgets", "w1", "default", preconditions={"uid": "nope"})
    crd_kube.delete("widgets", "w1", "default", preconditions={"uid": w["metadata"]["uid"]})


def test_background_cascade_deletes_dependents(crd_kube: Store) -> None:
    owner = crd_kube.create("widgets", widget(), "default")
    crd_kube.create("configmaps", {"metadata": {"name": "dep", "ownerReferences": [owner_ref(owner)]}}, "default")
    crd_kube.delete("widgets", "w1", "default")
    assert crd_kube.count("configmaps") == 0
    gc_entries = crd_kube.audit.by_actor("generic-garbage-collector")
    assert [(e.verb, e.path) for e in gc_entries] == [("delete", "configmaps/dep")]


def test_orphan_strips_owner_references(crd_kube: Store) -> None:
    owner = crd_kube.create("widgets", widget(), "default")
    crd_kube.create("configmaps", {"metadata": {"name": "dep", "ownerReferences": [owner_ref(owner)]}}, "default")
    crd_kube.delete("widgets", "w1", "default", propagation_policy="Orphan")
    dep = crd_kube.get("configmaps", "dep", "default")
    assert "ownerReferences" not in dep["metadata"]
    with pytest.raises(errors.NotFound):
        crd_kube.get("widgets", "w1", "default")


def test_foreground_waits_for_blocking_dependents(kube_factory) -> None:
    store = kube_factory(gc="manual")
    from .conftest import WIDGET_CRD

    store.load_crds(WIDGET_CRD)
    owner = store.create("widgets", widget(), "default")
    dep = {"metadata": {"name": "dep", "ownerReferences": [owner_ref(owner)], "finalizers": ["x.io/hold"]}}
    store.create("configmaps", dep, "default")
    deleting = store.delete("widgets", "w1", "default", propagation_policy="Foreground")
    assert deleting["metadata"]["finalizers"] == ["foregroundDeletion"]
    store.gc.collect()
    assert store.get("configmaps", "dep", "default")["metadata"]["deletionTimestamp"]
    assert store.get("widgets", "w1", "default")  # still there: a blocking dependent remains
    store.patch("configmaps", "dep", {"metadata": {"finalizers": None}}, "default")
    store.gc.collect()
    with pytest.raises(errors.NotFound):
        store.get("widgets", "w1", "default")


def test_dangling_reference_next_to_a_live_owner_is_removed(crd_kube: Store) -> None:
    a = crd_kube.create("widgets", widget("a"), "default")
    b = crd_kube.create("widgets", widget("b"), "default")
    refs = [owner_ref(a), {**owner_ref(b), "controller": False}]
    crd_kube.create("configmaps", {"metadata": {"name": "dep", "ownerReferences": refs}}, "default")
    crd_kube.delete("widgets", "a", "default")
    dep = crd_kube.get("configmaps", "dep", "default")
    assert [r["name"] for r in dep["metadata"]["ownerReferences"]] == ["b"]


def test_pods_on_a_node_are_deleted_gracefully(kube: Store) -> None:
    body = pod()
    body["spec"]["nodeName"] = "node-1"
    kube.create("pods", body, "default")
    deleting = kube.delete("pods", "p1", "default")
    assert deleting["metadata"]["deletionGracePeriodSeconds"] == 30
    kube.delete("pods", "p1", "default", grace_period_seconds=0)
    with pytest.raises(errors.NotFound):
        kube.get("pods", "p1", "default")


def test_unscheduled_pods_go_at_once(kube: Store) -> None:
    created = kube.create("pods", pod(), "default")
    watch = kube.watch("pods", "default", resource_version=kube.resource_version)
    # The pod registry answers with the deleted pod (ReturnDeletedObject), not a Status. Observed on
    # kube-apiserver v1.37.2: a graceful kind is first updated with its deletion even at period 0 (apiserver
    # pkg/registry/rest/delete.go BeforeDelete, generic/registry/store.go Delete), then deleted; the answer
    # carries the delete's own resourceVersion (pkg/storage/etcd3/store.go conditionalDelete).
    answer = kube.delete("pods", "p1", "default")
    assert answer["kind"] == "Pod" and answer["metadata"]["uid"] == created["metadata"]["uid"]
    meta = answer["metadata"]
    assert meta["deletionGracePeriodSeconds"] == 0 and meta["deletionTimestamp"] and meta["generation"] == 2
    events = watch.drain()
    assert [e.type for e in events] == ["MODIFIED", "DELETED"]
    assert meta["resourceVersion"] == kube.resource_version == events[1].raw["metadata"]["resourceVersion"]
    assert int(events[0].raw["metadata"]["resourceVersion"]) == int(meta["resourceVersion"]) - 1


def test_a_dry_run_delete_of_an_unscheduled_pod_shows_its_deletion(kube: Store) -> None:
    created = kube.create("pods", pod(), "default")
    answer = kube.delete("pods", "p1", "default", dry_run=True)
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 0
    assert answer["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert kube.get("pods", "p1", "default") == created


def test_a_deleted_object_is_answered_at_the_deletes_revision(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2 (services, storage classes, ...: registries that return the object).
    created = kube.create("services", {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}, "default")
    answer = kube.delete("services", "s", "default")
    assert answer["metadata"]["resourceVersion"] == kube.resource_version != created["metadata"]["resourceVersion"]


def test_a_shortened_grace_period_moves_the_deadline_back(kube: Store) -> None:
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    kube.clock = clock
    body = pod()
    body["spec"]["nodeName"] = "node-1"
    kube.create("pods", body, "default")
    first = kube.delete("pods", "p1", "default")
    assert first["metadata"]["deletionTimestamp"] == "2026-01-01T00:00:30Z"
    assert kube.delete("pods", "p1", "default", grace_period_seconds=40) == first  # only shorter counts
    clock.advance(5)
    second = kube.delete("pods", "p1", "default", grace_period_seconds=10)
    assert second["metadata"]["deletionTimestamp"] == "2026-01-01T00:00:10Z"
    assert second["metadata"]["deletionGracePeriodSeconds"] == 10 and second["metadata"]["generation"] == 2


def test_deleting_a_namespace_removes_what_it_holds(kube: Store) -> None:
    kube.create("namespaces", {"metadata": {"name": "team"}})
    kube.create("configmaps", {"metadata": {"name": "c"}}, "team")
    kube.create("pods", pod(), "team")
    kube.delete("namespaces", "team")
    assert kube.objects("configmaps", "team") == [] and kube.objects("pods", "team") == []
    with pytest.raises(errors.NotFound):
        kube.get("namespaces", "team")


def test_terminating_namespace_refuses_new_content(kube_factory) -> None:
    store = kube_factory(gc="manual")
    store.create("namespaces", {"metadata": {"name": "team"}})
    store.create("configmaps", {"metadata": {"name": "c"}}, "team")
    ns = store.delete("namespaces", "team")
    assert ns["status"]["phase"] == "Terminating"
    with pytest.raises(errors.Forbidden, match="being terminated"):
        store.create("configmaps", {"metadata": {"name": "d"}}, "team")
    store.gc.collect()
    with pytest.raises(errors.NotFound):
        store.get("namespaces", "team")


def test_delete_collection_by_label(kube: Store) -> None:
    for i, team in enumerate(["a", "a", "b"]):
        kube.create("configmaps", {"metadata": {"name": f"c{i}", "labels": {"team": team}}}, "default")
    deleted = kube.delete_collection("configmaps", "default", label_selector="team=a")
    assert [o["metadata"]["name"] for o in deleted["items"]] == ["c0", "c1"]
    assert [o["metadata"]["name"] for o in kube.objects("configmaps")] == ["c2"]


def test_invalid_delete_options(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    with pytest.raises(errors.Invalid):
        kube.delete("configmaps", "c", "default", propagation_policy="Sideways")
    with pytest.raises(errors.Invalid, match="cannot be both set"):
        kube.delete("configmaps", "c", "default", propagation_policy="Orphan", orphan_dependents=True)
    assert kube.get("configmaps", "c", "default")


def _job() -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox"}]}}}}


def test_jobs_and_replication_controllers_orphan_by_default(kube_factory) -> None:
    # Observed on kube-apiserver v1.37.2: a DELETE naming no policy answers the Job kept by ``orphan``
    # (kubernetes pkg/registry/batch/job/strategy.go and core/replicationcontroller/strategy.go
    # DefaultGarbageCollectionPolicy; apiserver generic/registry/store.go shouldOrphanDependents).
    store = kube_factory(gc="manual")
    store.create("jobs", _job(), "default")
    answer = store.delete("jobs", "j", "default")
    assert answer["metadata"]["finalizers"] == ["orphan"] and answer["metadata"]["deletionTimestamp"]
    rc = {"metadata": {"name": "rc"}, "spec": {"selector": {"app": "a"}, "template": {
        "metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
    store.create("replicationcontrollers", rc, "default")
    assert store.delete("replicationcontrollers", "rc", "default")["metadata"]["finalizers"] == ["orphan"]
    store.gc.collect()
    with pytest.raises(errors.NotFound):
        store.get("jobs", "j", "default")


def test_an_explicit_policy_or_gc_finalizer_overrides_the_default(kube_factory) -> None:
    store = kube_factory(gc="manual")
    store.create("jobs", _job(), "default")
    answer = store.delete("jobs", "j", "default", propagation_policy="Background")
    assert answer["kind"] == "Status"
    body = _job()
    body["metadata"]["finalizers"] = ["foregroundDeletion"]
    store.create("jobs", body, "default")
    assert store.delete("jobs", "j", "default")["metadata"]["finalizers"] == ["foregroundDeletion"]
