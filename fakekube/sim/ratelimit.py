"""Rate limiters: client-go's token bucket and the workqueue's retry limiters, in virtual time.

- :class:`TokenBucket` — ``x/time/rate`` reservations as client-go's ``flowcontrol`` uses them: refill at
  ``qps``, capacity ``burst``, a reservation that finds the bucket empty waits (waits accumulate).
- :class:`ItemExponentialBackoff` — ``workqueue.TypedItemExponentialFailureRateLimiter``: ``base * 2^n`` for
  the n-th failure of one key, capped; ``forget`` resets the key.
- :class:`BucketRateLimiter` — ``workqueue.TypedBucketRateLimiter``: one token bucket for every key together.
- :class:`MaxOfRateLimiter` — ``workqueue.TypedMaxOfRateLimiter``: asks every limiter, waits the longest.
- :func:`default_controller_rate_limiter` — ``workqueue.DefaultTypedControllerRateLimiter``: the max of the
  per-item backoff (5 ms doubling to 1,000 s) and an overall 10 qps / burst 100 bucket. controller-runtime
  uses it for controllers on client-go's classic workqueue; with its priority queue (the default from v0.23)
  the default is the per-item backoff alone (docs/concepts.md has the sources).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Protocol


class TokenBucket:
    """client-go's flowcontrol token bucket (x/time/rate reservations): QPS refill, ``burst`` capacity."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps = qps
        self.burst = max(1, burst)
        self.tokens = float(self.burst)
        self.last = 0.0
        self.waited = 0.0
        self.throttled = 0

    def reserve(self, now: float) -> float:
        """Take one token; returns how long the caller has to wait for it."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.qps)
        self.last = now
        self.tokens -= 1.0
        if self.tokens >= 0:
            return 0.0
        wait = -self.tokens / self.qps
        self.waited += wait
        self.throttled += 1
        return wait


class RateLimiter(Protocol):
    """``workqueue.TypedRateLimiter``: how long to wait before retrying a key."""

    def when(self, key: Hashable) -> float: ...

    def forget(self, key: Hashable) -> None: ...

    def num_requeues(self, key: Hashable) -> int: ...


class ItemExponentialBackoff:
    """workqueue.TypedItemExponentialFailureRateLimiter: base * 2^failures, capped."""

    def __init__(self, base: float = 0.005, cap: float = 1000.0) -> None:
        self.base = base
        self.cap = cap
        self.failures: dict[Hashable, int] = {}

    def when(self, key: Hashable) -> float:
        n = self.failures.get(key, 0)
        self.failures[key] = n + 1
        if n > 60:
            return self.cap
        return min(self.base * (2**n), self.cap)

    def forget(self, key: Hashable) -> None:
        self.failures.pop(key, None)

    def num_requeues(self, key: Hashable) -> int:
        return self.failures.get(key, 0)


class BucketRateLimiter:
    """workqueue.TypedBucketRateLimiter: every retry, of any key, takes a token of one shared bucket."""

    def __init__(self, now: Callable[[], float], qps: float = 10.0, burst: int = 100) -> None:
        self.now = now
        self.bucket = TokenBucket(qps, burst)

    def when(self, key: Hashable) -> float:
        return self.bucket.reserve(self.now())

    def forget(self, key: Hashable) -> None:
        """Forgetting a key returns no token (upstream's Forget is a no-op)."""

    def num_requeues(self, key: Hashable) -> int:
        return 0


class MaxOfRateLimiter:
    """workqueue.TypedMaxOfRateLimiter: every limiter is asked (each records the retry), the longest wait wins."""

    def __init__(self, *limiters: RateLimiter) -> None:
        self.limiters = limiters

    def when(self, key: Hashable) -> float:
        longest = 0.0
        for limiter in self.limiters:
            wait = limiter.when(key)
            if wait > longest:
                longest = wait
        return longest

    def forget(self, key: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(key)

    def num_requeues(self, key: Hashable) -> int:
        return max((limiter.num_requeues(key) for limiter in self.limiters), default=0)


def default_controller_rate_limiter(now: Callable[[], float]) -> MaxOfRateLimiter:
    """``DefaultTypedControllerRateLimiter``: max(per-item 5 ms → 1,000 s, overall 10 qps / burst 100)."""
    return MaxOfRateLimiter(ItemExponentialBackoff(0.005, 1000.0), BucketRateLimiter(now, 10.0, 100))
