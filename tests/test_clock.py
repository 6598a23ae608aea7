from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from freezegun import freeze_time

from fakekube import clock
from fakekube.clock import RealClock, VirtualClock, parse_rfc3339, rfc3339
from fakekube.store import Store

# Client libraries that build pydantic models at import time must stay out of freezegun's module scan.
FREEZE_IGNORE = ["kubernetes", "kubernetes_asyncio", "lightkube", "kr8s", "kopf", "pydantic", "pydantic_core"]


def test_freezegun_drives_the_real_clock_and_the_store_stamps_from_it() -> None:
    with freeze_time("2026-04-02T10:00:00Z", ignore=FREEZE_IGNORE) as frozen:
        store = Store(clock=RealClock())
        first = store.create("configmaps", {"metadata": {"name": "a"}}, "default")
        frozen.tick(90)
        second = store.create("configmaps", {"metadata": {"name": "b"}}, "default")
    assert first["metadata"]["creationTimestamp"] == "2026-04-02T10:00:00Z"
    assert second["metadata"]["creationTimestamp"] == "2026-04-02T10:01:30Z"


def test_virtual_clock_moves_only_when_told() -> None:
    clock = VirtualClock(datetime(2026, 4, 2, tzinfo=UTC))
    store = Store(clock=clock)
    assert store.create("configmaps", {"metadata": {"name": "a"}}, "default")["metadata"][
        "creationTimestamp"] == "2026-04-02T00:00:00Z"
    clock.advance(1.5)
    assert clock.monotonic == 1.5
    assert rfc3339(clock.now()) == "2026-04-02T00:00:01Z"
    with pytest.raises(ValueError):
        clock.advance(-1)
    with pytest.raises(ValueError):
        clock.advance_to(1.0)


def test_rfc3339_round_trip() -> None:
    moment = datetime(2026, 11, 29, 15, 56, 38, tzinfo=UTC)
    assert parse_rfc3339(rfc3339(moment)) == moment


def test_the_virtual_clock_shares_one_datetime_per_instant_and_moves_with_its_offset() -> None:
    clock = VirtualClock(datetime(2026, 4, 2, tzinfo=UTC))
    first = clock.now()
    assert clock.now() is first  # one object per instant (datetimes are immutable)
    clock.advance(0.25)
    assert clock.now() == datetime(2026, 4, 2, 0, 0, 0, 250000, tzinfo=UTC)
    clock.advance_to(61.0)
    assert rfc3339(clock.now()) == "2026-04-02T00:01:01Z"
    assert clock.now() - first == timedelta(seconds=61)


def test_rfc3339_remembers_only_the_same_moment() -> None:
    a = datetime(2026, 4, 2, 10, 0, 0, tzinfo=UTC)
    b = datetime(2026, 4, 2, 10, 0, 1, tzinfo=UTC)
    assert rfc3339(a) == "2026-04-02T10:00:00Z"
    assert rfc3339(b) == "2026-04-02T10:00:01Z"
    assert rfc3339(a) == "2026-04-02T10:00:00Z"
    assert rfc3339(datetime(2026, 4, 2, 12, 0, 0, tzinfo=timezone(timedelta(hours=2)))) == "2026-04-02T10:00:00Z"


def test_rfc3339_within_and_across_a_second() -> None:
    base = datetime(2026, 4, 2, 10, 0, 5, tzinfo=UTC)
    assert rfc3339(base + timedelta(microseconds=999_999)) == "2026-04-02T10:00:05Z"
    assert rfc3339(base) == "2026-04-02T10:00:05Z"
    assert rfc3339(base + timedelta(seconds=1)) == "2026-04-02T10:00:06Z"
    assert rfc3339(base - timedelta(microseconds=1)) == "2026-04-02T10:00:04Z"
    assert rfc3339(base.replace(tzinfo=None)) == rfc3339(base.replace(tzinfo=None))  # naive: local time, not cached
    assert rfc3339(datetime(2026, 4, 2, 12, 0, 5, 500, tzinfo=timezone(timedelta(hours=2)))) == "2026-04-02T10:00:05Z"


@pytest.mark.parametrize("moment", [
    datetime(1970, 1, 1, tzinfo=UTC),
    datetime(2026, 11, 29, 15, 56, 38, 999_999, tzinfo=UTC),
    datetime(2026, 11, 29, 15, 56, 39, tzinfo=UTC),
    datetime(2106, 2, 7, 6, 28, 15, 999_999, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC),
    datetime(2026, 11, 29, 17, 56, 38, tzinfo=timezone(timedelta(hours=2))),
])
def test_rfc3339_after_its_neighbours_is_the_formatting_without_the_cache(moment: datetime) -> None:
    """Each moment, right after its neighbours a microsecond apart were formatted, shows its own second."""
    expected = clock._format_rfc3339(moment)
    for step in (timedelta(microseconds=-1), timedelta(microseconds=1)):
        try:
            neighbour = moment + step
        except OverflowError:
            continue
        rfc3339(neighbour)
        assert rfc3339(moment) == expected



def test_the_virtual_clock_stamps_its_start_plus_timedelta_seconds_of_its_offset() -> None:
    """``VirtualClock.now`` builds its datetime with the positional ``timedelta(0, offset)``: the same microsecond
    rounding (half to even) as ``timedelta(seconds=offset)`` for every offset, ties and large ones included."""
    import random

    rng = random.Random(16)
    offsets = [i * 0.0012345 for i in range(2000)] + [rng.uniform(0, 1e7) for _ in range(5000)]
    offsets += [k / 2e6 for k in range(1, 4000, 7)] + [rng.randrange(10**12) / 2e6 for _ in range(3000)]
    for offset in offsets:
        c = VirtualClock()
        c.advance_to(offset)
        assert c.now() == c.now() is c.now()
        assert c.now() == datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=offset), offset
