"""freezegun's frozen time, read from the virtual clock when asked instead of moved on every step.

A simulation used to move freezegun's frozen instant on every step of virtual time (hundreds of thousands
per run), though reconcilers read the time far less often. ``follow_clock`` turns the factory
``freeze_time(...).start()`` returned into one that computes ``origin + timedelta(seconds=monotonic)`` (the
same sum, so the same value at every instant) when freezegun asks for the time, remembering the last answer
until the clock moves. The factory's class is swapped in place, so freezegun's own list of active factories
keeps the object it knows.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from freezegun.api import FrozenDateTimeFactory

from fakekube.clock import VirtualClock


class ClockFrozenTime(FrozenDateTimeFactory):
    """A ``FrozenDateTimeFactory`` whose time is its virtual clock's.

    Assigning ``time_to_freeze`` (freezegun's ``tick``/``move_to``) holds that value until the clock next
    moves, as when the time was set on every step.
    """

    # State in __dict__: "_clock"; "_origin", the naive UTC time at monotonic 0; "_at", the monotonic reading
    # "_value" belongs to.

    def __call__(self) -> datetime:
        state = self.__dict__
        monotonic = state["_clock"].monotonic
        if monotonic != state["_at"]:
            state["_value"] = state["_origin"] + timedelta(0, monotonic)  # the clock's sum (fakekube.clock)
            state["_at"] = monotonic
        return state["_value"]

    @property  # type: ignore[override]
    def time_to_freeze(self) -> datetime:
        return self()

    @time_to_freeze.setter
    def time_to_freeze(self, value: datetime) -> None:
        self.__dict__["_value"] = value
        self.__dict__["_at"] = self.__dict__["_clock"].monotonic


def follow_clock(factory: FrozenDateTimeFactory, clock: VirtualClock, origin: datetime) -> ClockFrozenTime:
    """Make ``factory`` answer ``origin + clock.monotonic`` from now on (in place; returns it retyped)."""
    state: dict[str, Any] = factory.__dict__
    state.pop("time_to_freeze", None)
    factory.__class__ = ClockFrozenTime
    state["_clock"] = clock
    state["_origin"] = origin
    state["_at"] = None  # nothing computed yet
    state["_value"] = None
    return factory  # type: ignore[return-value]
