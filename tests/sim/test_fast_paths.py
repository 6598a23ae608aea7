"""The runtime's shortcuts change the cost of a run, never the run: each is compared with the plain path.

``Scheduler.fast_resume`` (a zero-delay await at a quiet instant goes on without suspending) is switched off
and the same scenarios must give the same audit log, byte for byte, and the same count of steps; an
informer's re-indexing of an update is compared with removing and adding the object.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.sim import Lag, Simulation
from fakekube.sim.informer import Informer
from tests.sim.example import WIDGET_CRD, WIDGETS, WidgetController, widget


def _widgets(sim: Simulation) -> str:
    sim.store.load_crds(WIDGET_CRD)
    sim.kubelet()
    sim.garbage_collector()
    mgr = sim.manager("mgr", cache_lag=Lag.exponential(0.010), api_latency=Lag.uniform(0.001, 0.004))
    WidgetController(sim, mgr, status_mode="update", workers=4)

    async def load() -> None:
        for i in range(20):
            sim.store.create(WIDGETS, widget(f"w{i}"), "default", actor="load")
            await sim.sleep(0.002)

    sim.spawn(load())
    sim.run()
    return sim.audit.to_jsonl()


def _plain(seed: int) -> Simulation:
    sim = Simulation(seed=seed)
    sim.scheduler.fast_resume = False
    return sim


def test_fast_resume_keeps_the_widget_run() -> None:
    fast, plain = Simulation(seed=3), _plain(3)
    assert _widgets(fast) == _widgets(plain)
    assert fast.scheduler.steps == plain.scheduler.steps > 100


def test_fast_resume_keeps_the_seed_timeline_run() -> None:
    for mode in ("update", "patch"):
        fast, plain = Simulation(seed=1), _plain(1)
        run_scenario("seed-timeline", WriteStrategies(mode), sim=fast)  # type: ignore[arg-type]
        run_scenario("seed-timeline", WriteStrategies(mode), sim=plain)  # type: ignore[arg-type]
        assert fast.audit.to_jsonl() == plain.audit.to_jsonl()
        assert fast.scheduler.steps == plain.scheduler.steps
        assert fast.scheduler.continued > 100 and plain.scheduler.continued == 0


def test_a_zero_await_suspends_when_other_work_is_due_now() -> None:
    sim = Simulation(seed=1)
    scheduler = sim.scheduler
    seen: list[tuple[str, bool]] = []

    async def reader(name: str) -> None:
        seen.append((name, scheduler.continue_now()))

    sim.spawn(reader("a"))
    sim.spawn(reader("b"))  # due at the same instant: "a" must not go on ahead of it
    sim.run()
    assert seen == [("a", False), ("b", True)]
    assert scheduler.continue_now() is False  # outside a task: nothing to continue


def test_a_zero_await_suspends_where_the_run_would_stop() -> None:
    sim = Simulation(seed=1)
    scheduler = sim.scheduler
    answers: list[bool] = []
    stop = [False]

    async def task() -> None:
        answers.append(scheduler.continue_now())
        stop[0] = True
        answers.append(scheduler.continue_now())

    sim.spawn(task())
    scheduler.run(stop_when=lambda: stop[0])
    assert answers == [True, False]
    stop[0] = False
    answers.clear()
    sim.spawn(task())
    scheduler.run(stop_when=lambda: stop[0], check_every=5)  # the loop's count decides: never skip it
    assert answers == [False, False]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.lists(st.sampled_from("abc"), max_size=3)), min_size=1, max_size=30))
def test_reindexing_an_update_leaves_the_index_as_removing_and_adding_does(versions) -> None:
    """``Informer._reindex`` against ``_unindex`` + ``_index``: the same values, keys, and orders of both."""
    fast, plain = Informer.__new__(Informer), Informer.__new__(Informer)
    current: dict[int, dict] = {}
    for informer in (fast, plain):
        informer.indexes = {"v": (lambda obj: obj["values"], {})}
    for n, values in versions:
        key = ("ns", str(n))
        new = {"values": values}
        old = current.get(n)
        if old is None:
            fast._index(key, new)
            plain._index(key, new)
        else:
            fast._reindex(key, old, new)
            plain._unindex(key, old)
            plain._index(key, new)
        current[n] = new
        got, want = fast.indexes["v"][1], plain.indexes["v"][1]
        assert [(v, list(keys)) for v, keys in got.items()] == [(v, list(keys)) for v, keys in want.items()]
