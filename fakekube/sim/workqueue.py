"""A controller workqueue with controller-runtime v0.23's semantics, in virtual time.

controller-runtime v0.23 uses its priority queue by default (``pkg/controller/priorityqueue``). What we keep
from it (see docs/concepts.md for the sources):

- one entry per key: adding a key that is already queued does nothing, except that an immediate add makes a
  delayed entry ready now and an earlier ``add_after`` moves the ready time earlier (the minimum wins);
- a key handed to a worker is *locked* until ``done``; adding it meanwhile queues it again, but it is not
  handed out before ``done`` ("dirty while processing");
- hand-out order: keys without a ready time first (higher priority first, then insertion order), then
  delayed keys that became ready, by ready time;
- ``add_rate_limited``: the rate limiter's wait; by default, as controller-runtime configures its priority
  queue, only the per-item exponential backoff, 5 ms doubling to 1,000 s, reset by ``forget``.

Controllers on client-go's classic workqueue (controller-runtime before v0.23, or ``UsePriorityQueue=false``)
use :class:`fakekube.sim.fifoqueue.FifoWorkQueue` instead.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from .ratelimit import ItemExponentialBackoff, RateLimiter

if TYPE_CHECKING:
    from .scheduler import Future, Scheduler

__all__ = ["LOW_PRIORITY", "ItemExponentialBackoff", "WorkQueue"]

LOW_PRIORITY = -100  # handler.LowPriority: adds for objects from the initial list


_RANK_SPAN = 1 << 64  # more insertions than any run makes: the counter never reaches the next priority


def _rank(priority: int, counter: int) -> int:
    """One integer ordered as (-priority, counter)."""
    return -priority * _RANK_SPAN + counter


class _Item:
    __slots__ = ("key", "counter", "priority", "ready_at", "sort")

    def __init__(self, key: Hashable, counter: int, priority: int, ready_at: float | None) -> None:
        self.key = key
        self.counter = counter
        self.priority = priority
        self.ready_at = ready_at
        self.sort: int | tuple[Any, ...] | None = None  # the heap entry currently valid for this item


class WorkQueue:
    """controller-runtime's priority queue (``pkg/controller/priorityqueue``)."""

    def __init__(self, scheduler: Scheduler, rate_limiter: RateLimiter | None = None,
                 name: str = "") -> None:
        self.scheduler = scheduler
        self.rate_limiter: RateLimiter = rate_limiter or ItemExponentialBackoff()
        self.name = name
        self._items: dict[Hashable, _Item] = {}
        # Ready keys in two heaps, lazily invalidated (an entry counts only while it is its item's ``sort``):
        # keys without a ready time by their ``rank`` alone (``_ranked`` maps it to the key), before delayed keys
        # that became ready, as (ready_at, rank, key). ``rank`` orders by priority (higher first), then by first
        # insertion, in one integer, so a comparison in the first heap is one number's, not a tuple's (the
        # initial list puts every object in it at once). A rank is pushed at most once: an item's counter is
        # its own, and its priority only ever rises. Ranks placed in rising order (new keys of one priority,
        # the usual case) wait in a sorted run instead of the heap, taken in O(1): the next rank handed out is
        # the smaller of the run's first and the heap's top, so the order is the one heap's.
        self._now: list[int] = []
        self._run: deque[int] = deque()
        self._ranked: dict[int, Hashable] = {}
        self._later: list[tuple[float, int, Hashable]] = []
        self._locked: dict[Hashable, int] = {}  # key handed out → the priority it had
        self._getters: deque[Future] = deque()
        self._counter = 0
        self.adds = 0
        self.retries = 0
        self.shutting_down = False
        self.direct_hand_out = True  # False: every add goes through the item and the ready heaps (tests compare)

    # -- adding ---------------------------------------------------------------------------------------

    def add(self, key: Hashable, priority: int = 0) -> None:
        """``add_with_opts`` without a delay or the rate limiter: every watch event's add, spelt out."""
        if self.shutting_down:
            return
        item = self._items.get(key)
        if item is None:
            self._add_new(key, priority, None)
            return
        changed = _raise_priority(item, priority)
        if item.ready_at is not None:  # an immediate add makes a delayed key ready now
            item.ready_at = None
            changed = True
        if changed:
            self._place(item)

    def add_after(self, key: Hashable, after: float, priority: int = 0) -> None:
        self.add_with_opts(key, after=after, priority=priority)

    def add_rate_limited(self, key: Hashable, priority: int = 0) -> None:
        self.add_with_opts(key, rate_limited=True, priority=priority)

    def add_with_opts(self, key: Hashable, *, after: float = 0.0, rate_limited: bool = False,
                      priority: int = 0) -> None:
        if self.shutting_down:
            return
        if rate_limited:
            limited = self.rate_limiter.when(key)
            if after <= 0 or limited < after:
                after = limited
        now = self.scheduler.now
        ready_at = now + after if after > 0 else None
        if ready_at is not None:
            self.retries += 1
        item = self._items.get(key)
        if item is None:
            self._add_new(key, priority, ready_at)
            return
        changed = _raise_priority(item, priority)
        if item.ready_at is not None and (ready_at is None or ready_at < item.ready_at):
            item.ready_at = ready_at
            changed = True
        if changed:
            self._place(item)

    def _add_new(self, key: Hashable, priority: int, ready_at: float | None) -> None:
        if (ready_at is None and self._getters and not (self._run or self._now or self._later)
                and self.direct_hand_out and key not in self._locked):
            self._hand_new(key, priority)
            return
        self._counter += 1
        item = self._items[key] = _Item(key, self._counter, priority, ready_at)
        self.adds += 1
        self._place(item)

    def _hand_new(self, key: Hashable, priority: int) -> None:
        """A new key, ready now, while a worker waits and the ready heaps hold no entry (not even a superseded
        one; a worker waits only when ``try_get`` found nothing, so this is the usual state while one does):
        ``_add_new`` would rank it as the only entry and ``_hand_out`` take it back at once, for the first
        waiter. Hand it over directly instead (the same counters, lock and waiter; no item, rank or heap entry
        made only to be taken again): what every watch event's add is on a controller whose workers keep up."""
        self._counter += 1
        self.adds += 1
        self._locked[key] = priority
        self._getters.popleft().set_result(key)

    def _place(self, item: _Item) -> None:
        """Put ``item`` in the ready heap or arm its timer (a locked key waits for ``done``)."""
        if item.ready_at is not None and item.ready_at > self.scheduler.now:
            ready_at = item.ready_at
            self.scheduler.call_at(ready_at, lambda: self._became_ready(item, ready_at))
            item.sort = None
            return
        if item.key in self._locked:
            item.sort = None
            return
        rank = _rank(item.priority, item.counter)
        sort: int | tuple[Any, ...]
        if item.ready_at is None:
            sort = rank
            self._ranked[rank] = item.key
            run = self._run
            if not run or rank > run[-1]:
                run.append(rank)
            else:
                heapq.heappush(self._now, rank)
        else:
            sort = (item.ready_at, rank, item.key)
            heapq.heappush(self._later, sort)
        item.sort = sort
        if self._getters:
            self._hand_out()

    def _became_ready(self, item: _Item, ready_at: float) -> None:
        if self._items.get(item.key) is item and item.ready_at == ready_at and item.sort is None:
            self._place(item)

    # -- getting --------------------------------------------------------------------------------------

    def try_get(self) -> Hashable | None:
        """A ready key (now locked: handed out, it leaves the queue until ``done``), or None."""
        items = self._items
        now, run, ranked = self._now, self._run, self._ranked
        while now or run:
            rank = run.popleft() if run and (not now or run[0] < now[0]) else heapq.heappop(now)
            key = ranked.pop(rank)
            item = items.get(key)
            if item is not None and item.sort == rank:  # else a superseded entry
                del items[key]
                self._locked[key] = item.priority
                return key
        later = self._later
        while later:
            sort = heapq.heappop(later)
            key = sort[-1]
            item = items.get(key)
            if item is not None and item.sort is sort:  # else a superseded entry
                del items[key]
                self._locked[key] = item.priority
                return key
        return None

    def wait(self) -> Future:
        """A future resolved with the next key handed to this waiter."""
        future = self.scheduler.future()
        self._getters.append(future)
        return future

    def _hand_out(self) -> None:
        while self._getters and (self._run or self._now or self._later):
            key = self.try_get()
            if key is None:
                return
            self._getters.popleft().set_result(key)

    def priority_of(self, key: Hashable) -> int:
        """The priority a locked key was handed out with (requeues keep it, as upstream's reconcileHandler)."""
        return self._locked.get(key, 0)

    def done(self, key: Hashable) -> None:
        self._locked.pop(key, None)
        item = self._items.get(key)
        if item is not None and item.sort is None and (item.ready_at is None
                                                       or item.ready_at <= self.scheduler.now):
            self._place(item)

    # -- rate limiter ---------------------------------------------------------------------------------

    def forget(self, key: Hashable) -> None:
        self.rate_limiter.forget(key)

    def num_requeues(self, key: Hashable) -> int:
        return self.rate_limiter.num_requeues(key)

    # -- introspection --------------------------------------------------------------------------------

    def __len__(self) -> int:
        """Keys ready to hand out (like ``Len()``: delayed keys that are not ready yet are not counted)."""
        now = self.scheduler.now
        return sum(1 for item in self._items.values()
                   if item.key not in self._locked and (item.ready_at is None or item.ready_at <= now))

    @property
    def processing(self) -> int:
        return len(self._locked)

    def is_locked(self, key: Hashable) -> bool:
        return key in self._locked

    def contains(self, key: Hashable) -> bool:
        return key in self._items

    def shutdown(self) -> None:
        self.shutting_down = True


def _raise_priority(item: _Item, priority: int) -> bool:
    """A key added again at a higher priority takes it (controller-runtime's priority queue keeps the highest)."""
    if priority > item.priority:
        item.priority = priority
        return True
    return False
