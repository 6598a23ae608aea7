"""The in-memory audit log: queries, and the bounded ring a long-running server keeps."""

from __future__ import annotations

import io
import json

import pytest

from fakekube import Store


def _gets(store: Store, count: int) -> None:
    for _ in range(count):
        store.list("configmaps", "default", actor="reader")


def test_an_unbounded_log_keeps_every_entry() -> None:
    store = Store(seed=1)
    _gets(store, 30)
    assert len(store.audit) == 30 and store.audit.dropped == 0


def test_a_ring_keeps_the_newest_entries_and_counts_the_rest() -> None:
    store = Store(seed=1)
    store.audit.set_keep(10)
    store.create("configmaps", {"metadata": {"name": "first"}}, "default", actor="writer")
    _gets(store, 25)
    store.create("configmaps", {"metadata": {"name": "last"}}, "default", actor="writer")
    assert len(store.audit) == 10 and store.audit.dropped == 17
    assert [e.name for e in store.audit.filter(verb="create")] == ["last"]
    assert store.audit[-1].name == "last"


def test_narrowing_the_ring_drops_the_oldest_at_once() -> None:
    store = Store(seed=1)
    _gets(store, 8)
    oldest_kept = store.audit[5]
    store.audit.set_keep(3)
    assert store.audit.entries[0] is oldest_kept and store.audit.dropped == 5
    store.audit.set_keep(None)
    _gets(store, 4)
    assert len(store.audit) == 7


def test_event_writers_see_every_entry_the_ring_lets_go() -> None:
    store = Store(seed=1)
    store.audit.set_keep(2)
    out = io.StringIO()
    store.audit.write_events(out)
    _gets(store, 12)
    store.audit.close_writers()
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(events) == 12 and len(store.audit) == 2


def test_a_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        Store(seed=1).audit.set_keep(-1)
