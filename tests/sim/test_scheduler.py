from __future__ import annotations

import pytest

from fakekube.clock import VirtualClock
from fakekube.sim import Simulation, SimulationError
from fakekube.sim.scheduler import Scheduler


def test_sleeps_run_in_virtual_time_order_and_ties_in_scheduling_order():
    sched = Scheduler(VirtualClock())
    log = []

    async def worker(name, delays):
        for d in delays:
            await sched.sleep(d)
            log.append((sched.now, name))

    sched.spawn(worker("a", [0.5, 0.5]))
    sched.spawn(worker("b", [1.0]))
    sched.spawn(worker("c", [0.0]))
    sched.run()
    assert log == [(0.0, "c"), (0.5, "a"), (1.0, "b"), (1.0, "a")]  # b was scheduled for 1.0 first
    assert sched.clock.monotonic == 1.0


def test_futures_and_join():
    sim = Simulation(seed=1)
    fut = sim.future()

    async def producer():
        await sim.sleep(2)
        fut.set_result(42)

    async def consumer():
        value = await fut
        return value + 1

    sim.spawn(producer())
    assert sim.run_until_complete(consumer()) == 43
    assert sim.now == 2


def test_run_until_stops_and_can_advance_time():
    sim = Simulation(seed=1)

    async def ticker():
        while True:
            await sim.sleep(1)

    sim.spawn(ticker())
    sim.run(until=3.5)
    assert sim.now == 3.0
    sim.run(until=10, until_idle=False)
    assert sim.now == 10.0
    sim.run(for_=0.5, until_idle=False)
    assert sim.now == 10.5


def test_stop_when_and_progress():
    sim = Simulation(seed=1)
    count = [0]
    ticks = []

    async def ticker():
        while True:
            await sim.sleep(0.25)
            count[0] += 1

    sim.spawn(ticker())
    sim.run(stop_when=lambda: count[0] >= 10, progress=lambda s: ticks.append(s.now))
    assert count[0] == 10
    assert ticks == [1.0, 2.0]


def test_a_failing_task_stops_the_run():
    sim = Simulation(seed=1)

    async def bad():
        await sim.sleep(1)
        raise ValueError("boom")

    sim.spawn(bad(), "driver")
    with pytest.raises(SimulationError, match="driver failed.*boom"):
        sim.run()


def test_datetime_now_follows_virtual_time_during_run():
    # freezegun patches module attributes, so look datetime up through the module (as code importing it at
    # module level does); a name bound in a function before run() starts keeps the real class.
    import datetime as dt
    from datetime import timedelta

    sim = Simulation(seed=1)
    seen = []

    async def clocky():
        seen.append(dt.datetime.now())
        await sim.sleep(90)
        seen.append(dt.datetime.now())

    sim.spawn(clocky())
    sim.run()
    assert seen[1] - seen[0] == timedelta(seconds=90)
    assert seen[0] == dt.datetime(2026, 1, 1)
    assert dt.datetime.now() != seen[1]  # time is released after run()


def test_frozen_time_is_read_from_the_clock_at_every_instant():
    # fakekube.sim.frozen computes the frozen time when read: reads at several instants, repeated reads at
    # one instant, time.time() and a value assigned through freezegun's factory (held until the clock moves).
    import datetime as dt
    import time as t
    from datetime import timedelta

    sim = Simulation(seed=1)
    seen: list[tuple[float, dt.datetime, float]] = []

    async def clocky():
        for delay in (0.0, 0.000_001, 0.25, 3.5, 0.000_001):
            await sim.sleep(delay)
            seen.append((sim.now, dt.datetime.now(), t.time()))
            assert dt.datetime.now() == seen[-1][1]
        sim._frozen.time_to_freeze = dt.datetime(2030, 1, 1)
        assert dt.datetime.now() == dt.datetime(2030, 1, 1)
        await sim.sleep(0)  # the clock does not move: the assigned time stays
        assert dt.datetime.now() == dt.datetime(2030, 1, 1)
        await sim.sleep(1)
        seen.append((sim.now, dt.datetime.now(), t.time()))

    sim.spawn(clocky())
    sim.run()
    start = dt.datetime(2026, 1, 1)
    assert [s[1] for s in seen] == [start + timedelta(seconds=s[0]) for s in seen]
    assert [s[2] for s in seen] == [(start + timedelta(seconds=s[0])).replace(tzinfo=dt.UTC).timestamp()
                                    for s in seen]
    assert seen[-1][0] == 4.750002


def test_frozen_time_resumes_from_the_clock_on_a_second_run():
    import datetime as dt
    from datetime import timedelta

    sim = Simulation(seed=1)
    seen = []

    async def clocky():
        await sim.sleep(2)
        seen.append(dt.datetime.now())

    sim.spawn(clocky())
    sim.run()
    sim.spawn(clocky())
    sim.run()
    assert seen == [dt.datetime(2026, 1, 1) + timedelta(seconds=2), dt.datetime(2026, 1, 1) + timedelta(seconds=4)]


def test_stop_on_error_stops_at_the_failing_step():
    def scheduler_with_a_failure() -> tuple[Scheduler, list[float]]:
        scheduler = Scheduler()
        ran: list[float] = []

        async def fails():
            await scheduler.sleep(1)
            raise ValueError("boom")

        async def ticks():
            for _ in range(4):
                await scheduler.sleep(0.5)
                ran.append(scheduler.now)

        scheduler.spawn(fails())
        scheduler.spawn(ticks())
        return scheduler, ran

    scheduler, ran = scheduler_with_a_failure()
    scheduler.run(stop_on_error=True, until=10, advance=True)
    # the tick due at 1.0 was scheduled after the failing task's wake-up, so it has not run
    assert ran == [0.5] and scheduler.now == 1.0 and len(scheduler.task_errors) == 1
    scheduler.run(stop_on_error=True)  # an earlier failure: not a step more
    assert ran == [0.5]
    scheduler, ran = scheduler_with_a_failure()
    scheduler.run()
    assert ran == [0.5, 1.0, 1.5, 2.0] and len(scheduler.task_errors) == 1


def test_every_step_runs_the_earliest_pending_entry_in_time_then_scheduling_order():
    # Zero sleeps, tiny sleeps (now + d == now) and callbacks due now, mixed: whichever internal queue an entry
    # sits in, the next one to run is the pending entry with the smallest (time, order scheduled).
    import random

    sched = Scheduler(VirtualClock())
    rng = random.Random(5)
    counter = [0]
    pending: dict[int, float] = {}  # scheduling order -> due time
    ran: list[tuple[float, int]] = []

    def scheduled(due: float) -> int:
        counter[0] += 1
        pending[counter[0]] = due
        return counter[0]

    def step(order: int) -> None:
        due = pending.pop(order)
        assert due == sched.now
        assert all((due, order) < (t, o) for o, t in pending.items())
        ran.append((due, order))

    def callback(order: int) -> None:
        step(order)

    async def task() -> None:
        for _ in range(40):
            choice = rng.random()
            if choice < 0.3:
                delay = 0.0
            elif choice < 0.4:
                delay = 1e-30 if sched.now > 0 else 0.0  # lost to rounding once time is not 0
            elif choice < 0.5:
                order = scheduled(sched.now)
                sched.call_later(0, lambda order=order: callback(order))
                continue
            else:
                delay = rng.choice([0.001, 0.002, 0.5])
            order = scheduled(sched.now + delay)
            await sched.sleep(delay)
            step(order)

    for _ in range(8):
        sched.spawn(task())
    sched.run()
    assert not pending and len(ran) > 250 and sched.idle
