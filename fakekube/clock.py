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

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._offset)

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


# The last second formatted and its text: a store stamps every write (a create twice), and writes come many
# to a second. One tuple, replaced whole, so threads never see a second with another second's text.
_last_formatted: tuple[int, str] = (-1, "")


def rfc3339(moment: datetime) -> str:
    """metav1.Time's JSON form: RFC 3339 in UTC with second precision."""
    global _last_formatted
    if moment.tzinfo is not UTC:  # naive or another zone: no shortcut (the clocks give UTC)
        return _format(moment)
    stamp = moment.timestamp()
    # Within 1970-2106 a float timestamp keeps microseconds apart from the next second, so its integer part
    # is the second the text shows.
    if 0 <= stamp < 2**32:
        second = int(stamp)
        last = _last_formatted
        if last[0] == second:
            return last[1]
        text = _format(moment)
        _last_formatted = (second, text)
        return text
    return _format(moment)


def _format(moment: datetime) -> str:
    t = moment.astimezone(UTC)
    if t.year < 1000:
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")  # strftime's %Y does not zero-pad such years on every platform
    # The same text without strftime, which freezegun replaces with a much slower wrapper under simulation
    # (every write stamps a time).
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
