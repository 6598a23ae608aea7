"""WorkQueue against controller-runtime v0.23's priority queue and rate limiter semantics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.clock import VirtualClock
from fakekube.sim.scheduler import Scheduler
from fakekube.sim.workqueue import ItemExponentialBackoff, WorkQueue


def make():
    sched = Scheduler(VirtualClock())
    return sched, WorkQueue(sched)


def test_dedup_and_fifo():
    _, q = make()
    q.add("a")
    q.add("b")
    q.add("a")
    assert len(q) == 2
    assert q.try_get() == "a"
    assert q.try_get() == "b"
    assert q.try_get() is None


def test_key_is_never_handed_out_twice_and_dirty_keys_come_back_after_done():
    _, q = make()
    q.add("a")
    assert q.try_get() == "a"
    q.add("a")  # arrives while "a" is processed: marked dirty
    q.add("b")
    assert q.try_get() == "b"  # "a" is locked
    assert q.try_get() is None
    q.done("a")
    assert q.try_get() == "a"


def test_add_after_keeps_the_earliest_time_and_an_immediate_add_wins():
    sched, q = make()
    q.add_after("a", 5)
    q.add_after("a", 2)
    q.add_after("a", 9)
    sched.run(until=1.9)
    assert q.try_get() is None
    sched.run(until=2.0)
    assert q.try_get() == "a"
    q.done("a")
    q.add_after("b", 10)
    q.add("b")  # an immediate add makes the delayed item ready now
    assert q.try_get() == "b"


def test_ready_items_without_delay_go_before_items_that_waited():
    sched, q = make()
    q.add_after("late", 1)
    sched.run(until=1)
    q.add("fresh")
    assert q.try_get() == "fresh"
    assert q.try_get() == "late"


def test_priority_orders_ready_items():
    _, q = make()
    q.add("low", priority=-100)
    q.add("normal")
    assert q.try_get() == "normal"
    assert q.try_get() == "low"


def test_rate_limited_backoff_doubles_from_5ms_to_1000s_and_forget_resets():
    rl = ItemExponentialBackoff()
    delays = [rl.when("k") for _ in range(20)]
    assert delays[:4] == [0.005, 0.01, 0.02, 0.04]
    assert delays[-1] == 1000.0
    assert rl.num_requeues("k") == 20
    rl.forget("k")
    assert rl.when("k") == 0.005


def test_add_rate_limited_schedules_with_backoff():
    sched, q = make()
    q.add_rate_limited("k")
    assert q.try_get() is None
    sched.run(until=0.005)
    assert q.try_get() == "k"
    q.done("k")
    q.add_rate_limited("k")  # second failure: 10 ms
    sched.run(until=0.014)
    assert q.try_get() is None
    sched.run(until=0.015)
    assert q.try_get() == "k"
    assert q.num_requeues("k") == 2


def test_waiting_worker_gets_the_next_key():
    sched, q = make()
    got = []

    async def worker():
        key = await q.wait()
        got.append((sched.now, key))

    sched.spawn(worker())
    sched.run()
    assert got == []
    sched.call_at(3.0, lambda: q.add("x"))
    sched.run()
    assert got == [(3.0, "x")]
    assert q.is_locked("x")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.sampled_from([-100, 0, 3, 10]), st.sampled_from([0.0, 0.0, 0.5, 1.5])),
                max_size=25))
def test_hand_out_order_is_priority_then_insertion_then_ready_time(adds):
    """Keys without a ready time by (higher priority, first insertion), then delayed keys by ready time (then
    priority, insertion): the documented order, checked against a plain sort of what was added."""
    sched = Scheduler()
    q = WorkQueue(sched)
    first_seen: dict[int, int] = {}
    state: dict[int, tuple[int, float | None]] = {}  # key -> (priority, ready_at)
    for key, priority, after in adds:
        q.add_with_opts(key, priority=priority, after=after)
        first_seen.setdefault(key, len(first_seen))
        old = state.get(key)
        ready_at = after if after > 0 else None
        if old is None:
            state[key] = (priority, ready_at)
        else:
            wait = old[1] if old[1] is None or (ready_at is not None and ready_at >= old[1]) else ready_at
            state[key] = (max(old[0], priority), wait)
    sched.run(until=10.0, advance=True)
    got = []
    while (key := q.try_get()) is not None:
        got.append(key)
    now_keys = sorted((k for k, (p, r) in state.items() if r is None), key=lambda k: (-state[k][0], first_seen[k]))
    later = sorted((k for k, (p, r) in state.items() if r is not None),
                   key=lambda k: (state[k][1], -state[k][0], first_seen[k]))
    assert got == now_keys + later


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "add", "opts", "get", "get", "done"]), st.integers(0, 9),
                          st.sampled_from([-100, 0, 0, 5])), max_size=60))
def test_interleaved_adds_gets_and_dones_follow_priority_then_first_insertion(ops):
    """``add`` (the events' fast path) and ``add_with_opts`` interleaved with hand-outs and ``done``: each hand-out
    is the unlocked key of highest priority, then first insertion, as a plain model of the rule says."""
    q = WorkQueue(Scheduler())
    items: dict[int, list[int]] = {}  # key -> [priority, insertion counter]
    locked: set[int] = set()
    counter = 0
    for op, key, priority in ops:
        if op in ("add", "opts"):
            q.add(key, priority) if op == "add" else q.add_with_opts(key, priority=priority)
            if key in items:
                items[key][0] = max(items[key][0], priority)
            else:
                counter += 1
                items[key] = [priority, counter]
        elif op == "get":
            ready = [k for k in items if k not in locked]
            expected = min(ready, key=lambda k: (-items[k][0], items[k][1])) if ready else None
            assert q.try_get() == expected
            if expected is not None:
                del items[expected]
                locked.add(expected)
        elif locked:
            done = min(locked) if key % 2 else max(locked)
            q.done(done)
            locked.discard(done)


def _queue_state(q: WorkQueue) -> tuple:
    return (q.adds, q.retries, q._counter, len(q), q.processing, sorted(map(str, q._locked.items())),
            sorted(str(k) for k in q._items))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "add", "opts", "limited", "wait", "wait", "get", "done", "later"]),
                          st.integers(0, 6), st.sampled_from([-100, 0, 0, 5]), st.sampled_from([0.0, 0.0, 0.2])),
                max_size=60))
def test_a_new_key_handed_straight_to_a_waiting_worker_is_what_the_ready_heaps_would_hand_out(ops):
    """The direct hand-off of a new key to a waiting worker (``WorkQueue._hand_new``) against the full path (the
    item ranked in the ready heaps, then taken back by ``_hand_out``): the same key to the same waiter, the same
    counters, locks and later hand-outs, whatever the mix of adds, delays, waits (also while keys are ready),
    gets and dones."""
    runs = []
    for direct in (True, False):
        sched = Scheduler()
        q = WorkQueue(sched)
        q.direct_hand_out = direct
        waiters = []
        log = []
        for op, key, priority, after in ops:
            if op == "add":
                q.add(key, priority)
            elif op == "opts":
                q.add_with_opts(key, after=after, priority=priority)
            elif op == "limited":
                q.add_rate_limited(key, priority)
            elif op == "wait":
                waiters.append(q.wait())
            elif op == "get":
                log.append(("get", q.try_get()))
            elif op == "done" and q._locked:
                q.done(sorted(q._locked, key=str)[key % len(q._locked)])
            elif op == "later":
                sched.run(until=sched.now + after + 0.1, advance=True)
            log.append(("waiters", [f.result() if f.done() else None for f in waiters]))
            log.append(("state", _queue_state(q)))
        runs.append(log)
    assert runs[0] == runs[1]


def test_the_direct_hand_off_is_taken_by_a_waiting_worker_and_not_while_a_key_is_ready():
    sched, q = make()
    waiter = q.wait()
    q.add("a")
    assert waiter.result() == "a" and q.is_locked("a") and not q._items  # no item made for it
    q.add("b")  # nobody waits: queued
    waiter = q.wait()  # a waiter while "b" is ready (a worker would have taken it with try_get)
    q.add("c")
    assert waiter.result() == "b"  # the ready heaps decide, as without the shortcut
