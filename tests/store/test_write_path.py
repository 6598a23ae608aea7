"""The common write path's shortcuts (fakekube/store.py, fakekube/verbs/write.py) answer as the long way does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from fakekube.clock import VirtualClock
from fakekube.store import Store


def test_timestamps_follow_the_clock_across_seconds() -> None:
    # The store keeps the text of the latest second it stamped; a write in the next second gets the next one.
    clock = VirtualClock(datetime(2026, 1, 1, 0, 0, 0, 600_000, tzinfo=UTC))
    kube = Store(clock=clock)
    stamps = []
    for step in (0.0, 0.3, 0.2, 0.9, 3600.0):
        clock.advance(step)
        stamps.append(kube.create("configmaps", {"metadata": {"generateName": "c-"}}, "default")
                      ["metadata"]["creationTimestamp"])
    assert stamps == ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z",
                      "2026-01-01T00:00:02Z", "2026-01-01T01:00:02Z"]
    other = Store(clock=VirtualClock(datetime(2026, 1, 1, 2, 0, 2, tzinfo=timezone(timedelta(hours=1)))))
    assert other.create("configmaps", {"metadata": {"name": "x"}}, "default")["metadata"]["creationTimestamp"] == (
        "2026-01-01T01:00:02Z")
