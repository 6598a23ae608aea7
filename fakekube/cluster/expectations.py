"""``ControllerExpectations`` (kubernetes ``pkg/controller/controller_utils.go``): what a controller waits to see.

A controller that creates or deletes pods cannot trust its informer cache until the cache has caught up with
those writes, or it would create the same pods again. Before writing, it records how many adds and deletes
it expects for the owner's key; the pod informer's handlers count them down as the events arrive; a sync
acts only when nothing is outstanding (or the expectations are older than five minutes, upstream's
``ExpectationsTimeout``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

EXPECTATIONS_TIMEOUT = 300.0


@dataclass
class _Expected:
    adds: int
    dels: int
    at: float


class Expectations:
    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._items: dict[Hashable, _Expected] = {}

    def expect(self, key: Hashable, adds: int = 0, dels: int = 0) -> None:
        self._items[key] = _Expected(adds, dels, self._now())

    def raise_(self, key: Hashable, adds: int = 0, dels: int = 0) -> None:
        item = self._items.get(key)
        if item is None:
            self.expect(key, adds, dels)
        else:
            item.adds += adds
            item.dels += dels

    def creation_observed(self, key: Hashable) -> None:
        item = self._items.get(key)
        if item is not None:
            item.adds -= 1

    def deletion_observed(self, key: Hashable) -> None:
        item = self._items.get(key)
        if item is not None:
            item.dels -= 1

    def satisfied(self, key: Hashable) -> bool:
        item = self._items.get(key)
        if item is None:
            return True
        if item.adds <= 0 and item.dels <= 0:
            return True
        return self._now() - item.at > EXPECTATIONS_TIMEOUT

    def forget(self, key: Hashable) -> None:
        self._items.pop(key, None)
