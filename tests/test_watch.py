"""fakekube/watch.py: WatchEvent's value semantics (a slotted class that keeps a frozen dataclass's) and watchers."""

from __future__ import annotations

import pytest

from fakekube.store import Store
from fakekube.watch import WatchEvent


def test_events_compare_by_type_and_object_and_show_both() -> None:
    obj = {"metadata": {"name": "a", "resourceVersion": "7"}}
    event = WatchEvent("ADDED", obj)
    assert event == WatchEvent("ADDED", {"metadata": {"name": "a", "resourceVersion": "7"}})
    assert event != WatchEvent("MODIFIED", obj)
    assert event != ("ADDED", obj)  # not a tuple
    assert repr(event) == f"WatchEvent(type='ADDED', raw={obj!r})"
    assert event.resource_version == "7" and event.to_dict() == {"type": "ADDED", "object": obj}
    copy = event.object
    assert copy == obj and copy is not obj
    with pytest.raises(TypeError):
        hash(event)
    with pytest.raises(AttributeError):
        event.extra = 1  # type: ignore[attr-defined]


def test_a_callback_watch_gets_the_stored_object_itself(kube: Store) -> None:
    seen: list[WatchEvent] = []
    kube.watch("configmaps", "default", resource_version=kube.resource_version, on_event=seen.append)
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    [event] = seen
    assert event.type == "ADDED"
    assert event.raw is kube.stored_object(kube.resolve("configmaps").storage, ("default", "c"))


def test_a_watcher_that_lets_events_pile_up_is_ended(kube: Store) -> None:
    for i in range(5):
        kube.create("configmaps", {"metadata": {"name": f"before-{i}"}}, "default")
    watch = kube.watch("configmaps", "default", resource_version="0")  # replays the 5 it starts with
    watch.limit_pending(3)
    kube.create("configmaps", {"metadata": {"name": "a"}}, "default")
    assert watch.next(0) is not None  # taking an event starts the count again
    for name in "bcd":
        kube.create("configmaps", {"metadata": {"name": name}}, "default")
    assert not watch.closed
    kube.create("configmaps", {"metadata": {"name": "e"}}, "default")
    assert watch.closed and watch.dropped_as_slow and watch.drain() == []
    assert kube.hub.watcher_count() == 0


def test_events_end_once_none_comes_within_the_timeout() -> None:
    from fakekube.store import Store

    kube = Store()
    watch = kube.watch("configmaps", "default")
    for name in ("a", "b"):
        kube.create("configmaps", {"metadata": {"name": name}}, "default")
    assert [e.object["metadata"]["name"] for e in watch.events(timeout=0.05)] == ["a", "b"]
    assert list(watch.events(timeout=0.01)) == []
