from __future__ import annotations

import threading

from fakekube.store import Store


def test_watch_from_now_sees_changes_in_order(kube: Store) -> None:
    watch = kube.watch("configmaps", "default", resource_version=kube.resource_version)
    cm = kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    kube.update("configmaps", {**cm, "data": {"a": "1"}}, "default")
    kube.delete("configmaps", "c", "default")
    events = watch.drain()
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    rvs = [int(e.resource_version) for e in events]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3


def test_watch_without_resource_version_starts_with_synthetic_added(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "a"}}, "default")
    kube.create("configmaps", {"metadata": {"name": "b"}}, "default")
    for rv in (None, "0"):
        watch = kube.watch("configmaps", resource_version=rv)
        assert [(e.type, e.raw["metadata"]["name"]) for e in watch.drain()] == [("ADDED", "a"), ("ADDED", "b")]
        watch.stop()


def test_watch_resumes_from_a_resource_version(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "a"}}, "default")
    rv = kube.resource_version
    kube.create("configmaps", {"metadata": {"name": "b"}}, "default")
    watch = kube.watch("configmaps", resource_version=rv)
    assert [e.raw["metadata"]["name"] for e in watch.drain()] == ["b"]


def test_too_old_resource_version_is_410_as_an_error_event(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "a"}}, "default")
    rv = kube.resource_version
    kube.create("configmaps", {"metadata": {"name": "b"}}, "default")
    kube.compact()
    watch = kube.watch("configmaps", resource_version=rv)
    events = watch.drain()
    assert len(events) == 1 and events[0].type == "ERROR"
    assert events[0].raw["code"] == 410 and events[0].raw["reason"] == "Expired"
    assert watch.closed


def test_bounded_history_expires_old_versions(kube_factory) -> None:
    store = kube_factory(watch_history=5)
    start = store.resource_version
    for i in range(10):
        store.create("configmaps", {"metadata": {"name": f"c{i}"}}, "default")
    assert store.watch("configmaps", resource_version=start).drain()[0].type == "ERROR"


def test_selector_transitions_are_added_and_deleted(kube: Store) -> None:
    cm = kube.create("configmaps", {"metadata": {"name": "c", "labels": {"app": "x"}}}, "default")
    watch = kube.watch("configmaps", label_selector="app=y", resource_version=kube.resource_version)
    cm = kube.update("configmaps", {**cm, "metadata": {**cm["metadata"], "labels": {"app": "y"}}}, "default")
    cm = kube.update("configmaps", {**cm, "data": {"k": "v"}}, "default")
    kube.update("configmaps", {**cm, "metadata": {**cm["metadata"], "labels": {"app": "z"}}}, "default")
    events = watch.drain()
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[-1].raw["metadata"]["labels"] == {"app": "y"}  # the old state leaves the selection


def test_many_watchers_each_see_every_event(kube: Store) -> None:
    watches = [kube.watch("configmaps", resource_version=kube.resource_version) for _ in range(50)]
    received: list[list[str]] = [[] for _ in watches]

    def consume(i: int) -> None:
        while len(received[i]) < 20:
            event = watches[i].next(timeout=5)
            if event is None:
                return
            received[i].append(event.raw["metadata"]["name"])

    threads = [threading.Thread(target=consume, args=(i,)) for i in range(len(watches))]
    for t in threads:
        t.start()
    writers = [threading.Thread(target=lambda j=j: [kube.create("configmaps", {"metadata": {"name": f"w{j}-{k}"}}, "default") for k in range(5)]) for j in range(4)]
    for t in writers:
        t.start()
    for t in writers + threads:
        t.join(10)
    assert all(len(r) == 20 for r in received)
    assert all(r == received[0] for r in received)  # same order for everyone


def test_stopped_watch_is_released(kube: Store) -> None:
    watch = kube.watch("configmaps")
    before = kube.hub.watcher_count()
    watch.stop()
    assert kube.hub.watcher_count() == before - 1
    assert watch.next(timeout=0) is None


def test_bookmarks_carry_only_the_kinds_last_revision(kube: Store) -> None:
    # the watch cache's last processed revision of the kind (apiserver storage/cacher/cacher.go dispatchEvents)
    rv = kube.create("configmaps", {"metadata": {"name": "c"}}, "default")["metadata"]["resourceVersion"]
    kube.create("secrets", {"metadata": {"name": "s"}}, "default")
    event = kube.bookmark("configmaps")
    assert event.type == "BOOKMARK"
    assert event.raw == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"resourceVersion": rv}}
    assert rv != kube.resource_version


def test_only_a_watch_of_everything_skips_matching(kube: Store) -> None:
    # A watch without namespace or selectors is offered every change unmatched (fakekube.watch.match_everything);
    # one narrowed in any way still filters, over a namespaced and a cluster-scoped kind.
    from fakekube.watch import match_everything

    kube.ensure_namespace("other")
    rt = kube.resolve("configmaps")
    assert kube._matcher(rt, None, None, None) is match_everything
    assert kube._matcher(kube.resolve("namespaces"), "default", None, None) is match_everything  # cluster-scoped
    rv = kube.resource_version
    watches = {
        "all": kube.watch("configmaps", resource_version=rv),
        "ns": kube.watch("configmaps", "other", resource_version=rv),
        "labels": kube.watch("configmaps", label_selector="app=x", resource_version=rv),
        "fields": kube.watch("configmaps", field_selector="metadata.name=b", resource_version=rv),
    }
    kube.create("configmaps", {"metadata": {"name": "a", "labels": {"app": "x"}}}, "default")
    kube.create("configmaps", {"metadata": {"name": "b"}}, "other")
    kube.delete("configmaps", "a", "default")
    seen = {k: [(e.type, e.raw["metadata"]["name"]) for e in w.drain()] for k, w in watches.items()}
    assert seen == {
        "all": [("ADDED", "a"), ("ADDED", "b"), ("DELETED", "a")],
        "ns": [("ADDED", "b")],
        "labels": [("ADDED", "a"), ("DELETED", "a")],
        "fields": [("ADDED", "b")],
    }


def test_a_bookmark_carries_the_kinds_empty_object(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: the watch cache's bookmark is the registry's NewFunc() object (an
    # empty internal object) written as the requested version (apiserver storage/cacher/cacher.go).
    pod = kube.bookmark("pods").raw
    assert (pod["spec"], pod["status"]) == ({"containers": None}, {})
    deployment = kube.bookmark("deployments").raw
    assert deployment["spec"] == {"replicas": 0, "selector": None, "strategy": {},
                                  "template": {"metadata": {}, "spec": {"containers": None}}}
    watch = kube.watch("daemonsets", "default", send_initial_events=True, allow_bookmarks=True)
    mark = watch.next(timeout=1)
    assert mark is not None and mark.type == "BOOKMARK"
    assert mark.raw["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "0",
                                                   "k8s.io/initial-events-end": "true"}
