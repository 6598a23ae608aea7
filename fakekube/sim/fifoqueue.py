"""client-go's classic rate-limiting workqueue, in virtual time (``util/workqueue``: queue.go,
delaying_queue.go, rate_limiting_queue.go).

controller-runtime builds its controllers on it when the priority queue is off (the default before v0.23),
with ``DefaultTypedControllerRateLimiter`` as the rate limiter. What differs from the priority queue
(:class:`fakekube.sim.workqueue.WorkQueue`):

- strict FIFO: no priorities (objects from the initial list are not handed out last);
- ``add_after`` does not touch the queue: the delayed add fires at its time and adds the key then. Two
  delayed adds of one key keep the earlier time; an immediate ``add`` in between does not cancel the delayed
  one, so the key can be handed out again when it fires (one more pass);
- a key being processed that is added again is *dirty* and goes to the back of the queue at ``done``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import TYPE_CHECKING

from .ratelimit import RateLimiter, default_controller_rate_limiter

if TYPE_CHECKING:
    from .scheduler import Future, Scheduler


class FifoWorkQueue:
    """The same interface as :class:`~fakekube.sim.workqueue.WorkQueue`; priorities are accepted and ignored."""

    def __init__(self, scheduler: Scheduler, rate_limiter: RateLimiter | None = None, name: str = "") -> None:
        self.scheduler = scheduler
        self.rate_limiter: RateLimiter = rate_limiter or default_controller_rate_limiter(lambda: scheduler.now)
        self.name = name
        self._queue: deque[Hashable] = deque()
        self._dirty: dict[Hashable, None] = {}
        self._processing: dict[Hashable, None] = {}
        self._waiting: dict[Hashable, float] = {}  # key → ready time of its delayed add (the earliest)
        self._getters: deque[Future] = deque()
        self.adds = 0
        self.retries = 0
        self.shutting_down = False

    # -- adding ---------------------------------------------------------------------------------------

    def add(self, key: Hashable, priority: int = 0) -> None:
        if self.shutting_down or key in self._dirty:
            return
        self.adds += 1
        self._dirty[key] = None
        if key in self._processing:
            return
        self._queue.append(key)
        if self._getters:
            self._hand_out()

    def add_after(self, key: Hashable, after: float, priority: int = 0) -> None:
        if self.shutting_down:
            return
        self.retries += 1
        if after <= 0:
            self.add(key)
            return
        ready_at = self.scheduler.now + after
        existing = self._waiting.get(key)
        if existing is not None and existing <= ready_at:
            return
        self._waiting[key] = ready_at
        self.scheduler.call_at(ready_at, lambda: self._fire(key, ready_at))

    def _fire(self, key: Hashable, ready_at: float) -> None:
        if self._waiting.get(key) == ready_at:
            del self._waiting[key]
            self.add(key)

    def add_rate_limited(self, key: Hashable, priority: int = 0) -> None:
        self.add_after(key, self.rate_limiter.when(key))

    def add_with_opts(self, key: Hashable, *, after: float = 0.0, rate_limited: bool = False,
                      priority: int = 0) -> None:
        if rate_limited:
            self.add_rate_limited(key)
        elif after > 0:
            self.add_after(key, after)
        else:
            self.add(key)

    # -- getting --------------------------------------------------------------------------------------

    def try_get(self) -> Hashable | None:
        if not self._queue:
            return None
        key = self._queue.popleft()
        self._processing[key] = None
        self._dirty.pop(key, None)
        return key

    def wait(self) -> Future:
        future = self.scheduler.future()
        self._getters.append(future)
        return future

    def _hand_out(self) -> None:
        while self._getters and self._queue:
            key = self.try_get()
            self._getters.popleft().set_result(key)

    def priority_of(self, key: Hashable) -> int:
        return 0

    def done(self, key: Hashable) -> None:
        self._processing.pop(key, None)
        if key in self._dirty:
            self._queue.append(key)
            if self._getters:
                self._hand_out()

    # -- rate limiter ---------------------------------------------------------------------------------

    def forget(self, key: Hashable) -> None:
        self.rate_limiter.forget(key)

    def num_requeues(self, key: Hashable) -> int:
        return self.rate_limiter.num_requeues(key)

    # -- introspection --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def processing(self) -> int:
        return len(self._processing)

    def is_locked(self, key: Hashable) -> bool:
        return key in self._processing

    def contains(self, key: Hashable) -> bool:
        return key in self._dirty or key in self._waiting

    def shutdown(self) -> None:
        self.shutting_down = True
