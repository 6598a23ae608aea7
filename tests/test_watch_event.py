"""WatchEvent's value semantics (fakekube/watch.py): a plain slotted class that keeps the frozen dataclass's."""

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
