"""The injected clock: the store stamps every time it writes from one of these.

``RealClock`` reads ``datetime.now`` at call time, so freezegun drives it; ``VirtualClock`` only moves when
told to, which is what the simulation runs on.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class RealClock:
    """Wall-clock time (or freezegun's frozen time, since it looks ``datetime.now`` up on every call)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class VirtualClock:
    """A clock that moves only when advanced; ``monotonic`` is seconds since the start."""

    def __init__(self, start: datetime | None = None) -> None:
        self._start = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._offset = 0.0
        self._now = (0.0, self._start)  # (offset, the datetime at it): many stamps share one instant

    def now(self) -> datetime:
        offset, moment = self._now
        if offset != self._offset:
            offset = self._offset
            moment = self._start + timedelta(0, offset)  # = timedelta(seconds=offset), without parsing keywords
            self._now = (offset, moment)
        return moment  # datetimes are immutable: one object per instant is safe to share

    @property
    def monotonic(self) -> float:
        return self._offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._offset += seconds

    def advance_to(self, monotonic: float) -> None:
        if monotonic < self._offset:
            raise ValueError("a clock cannot go backwards")
        self._offset = monotonic


_SECOND = timedelta(seconds=1)
# The last second formatted: [start, end) and its text. Every stamp within one second has the same text, and
# a simulation stamps many times a second (UTC datetimes only: a naive one is local time to astimezone, and
# another zone's second need not start where UTC's does).
_last_second: tuple[datetime, datetime, str] | None = None
_LAST_CACHED_SECOND = datetime.max.replace(microsecond=0, tzinfo=UTC)


def rfc3339(moment: datetime) -> str:
    """metav1.Time's JSON form: RFC 3339 in UTC with second precision."""
    global _last_second
    last = _last_second
    utc = moment.tzinfo is UTC
    if utc and last is not None and last[0] <= moment < last[1]:
        return last[2]
    text = _format_rfc3339(moment)
    if utc and moment < _LAST_CACHED_SECOND:  # the year 9999's last second has no end to compare with
        start = moment.replace(microsecond=0)
        _last_second = (start, start + _SECOND, text)
    return text


def _format_rfc3339(moment: datetime) -> str:
    t = moment.astimezone(UTC)
    if t.year < 1000:
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")  # strftime's %Y does not zero-pad such years on every platform
    # The same text without strftime, which freezegun replaces with a much slower wrapper under simulation
    # (every write stamps a time).
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
