"""FifoWorkQueue against client-go's classic workqueue (util/workqueue queue.go, delaying_queue.go) and the
default controller rate limiter controller-runtime gives it (DefaultTypedControllerRateLimiter)."""

from __future__ import annotations

from fakekube.clock import VirtualClock
from fakekube.sim import (
    BucketRateLimiter,
    ItemExponentialBackoff,
    MaxOfRateLimiter,
    default_controller_rate_limiter,
)
from fakekube.sim.fifoqueue import FifoWorkQueue
from fakekube.sim.scheduler import Scheduler


def make(rate_limiter=None):
    sched = Scheduler(VirtualClock())
    return sched, FifoWorkQueue(sched, rate_limiter)


def test_fifo_dedup_and_no_priorities():
    _, q = make()
    q.add("low", priority=-100)  # priorities are the priority queue's; the classic queue ignores them
    q.add("normal")
    q.add("low")
    assert len(q) == 2
    assert [q.try_get(), q.try_get(), q.try_get()] == ["low", "normal", None]


def test_dirty_while_processing_goes_to_the_back_at_done():
    _, q = make()
    q.add("a")
    assert q.try_get() == "a"
    q.add("a")
    q.add("b")
    assert q.try_get() == "b" and q.try_get() is None  # "a" is being processed
    q.done("a")
    assert q.try_get() == "a"


def test_a_delayed_add_is_not_cancelled_by_an_immediate_one():
    """Unlike the priority queue, an immediate Add leaves the delayed entry in place: it fires later and
    hands the key out once more."""
    sched, q = make()
    q.add_after("a", 5)
    q.add_after("a", 2)  # the earlier time wins
    q.add_after("a", 9)
    q.add("a")
    assert q.try_get() == "a"
    q.done("a")
    sched.run(until=1.9)
    assert q.try_get() is None
    sched.run(until=2.0)
    assert q.try_get() == "a"  # the delayed add fired at 2 s
    q.done("a")
    sched.run(until=10)
    assert q.try_get() is None  # the later times were merged into the one at 2 s


def test_default_controller_rate_limiter_is_the_max_of_backoff_and_an_overall_bucket():
    now = [0.0]
    rl = default_controller_rate_limiter(lambda: now[0])
    assert isinstance(rl, MaxOfRateLimiter)
    # One key: the per-item backoff dominates while the bucket has tokens.
    assert [rl.when("k") for _ in range(3)] == [0.005, 0.01, 0.02]
    # 100 different keys failing at once: the bucket (burst 100, 10/s) is empty after 100 retries in all,
    # so the next ones wait 100 ms, 200 ms, ... although each key failed only once.
    waits = [rl.when(f"key-{i}") for i in range(100)]
    assert waits[:97] == [0.005] * 97
    assert [round(w, 6) for w in waits[97:]] == [0.1, 0.2, 0.3]
    rl.forget("key-99")
    assert rl.num_requeues("key-99") == 0 and rl.num_requeues("k") == 3


def test_bucket_refills_at_10_per_second():
    now = [0.0]
    bucket = BucketRateLimiter(lambda: now[0], qps=10, burst=2)
    assert [bucket.when(i) for i in range(3)] == [0.0, 0.0, 0.1]
    now[0] = 1.0
    assert bucket.when("x") == 0.0


def test_add_rate_limited_on_the_classic_queue_waits_the_max():
    sched, q = make(MaxOfRateLimiter(ItemExponentialBackoff(0.005, 1000),
                                     BucketRateLimiter(lambda: sched.now, qps=10, burst=1)))
    q.add_rate_limited("a")  # backoff 5 ms, bucket has its one token
    q.add_rate_limited("b")  # backoff 5 ms, bucket empty: 100 ms
    sched.run(until=0.005)
    assert q.try_get() == "a" and q.try_get() is None
    sched.run(until=0.1)
    assert q.try_get() == "b"


def test_controllers_use_the_queue_their_controller_runtime_would():
    from fakekube.sim import Simulation, WorkQueue

    sim = Simulation(seed=1)
    v023 = sim.manager("v0.23")  # priority queue, per-item backoff only
    v022 = sim.manager("v0.22", priority_queue=False)

    async def noop(req):
        return None

    new, old = v023.controller("c", noop), v022.controller("c", noop)
    assert isinstance(new.queue, WorkQueue) and isinstance(new.queue.rate_limiter, ItemExponentialBackoff)
    assert isinstance(old.queue, FifoWorkQueue) and isinstance(old.queue.rate_limiter, MaxOfRateLimiter)
    sim.run()
