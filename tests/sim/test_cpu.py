"""The controller process's CPU (fakekube/sim/cpu.py): a FIFO queue with ``cores`` servers in virtual time,
work by running goroutines that keeps its core, and its hooks in the client, the informer and the workers."""

from __future__ import annotations

import random

import pytest

from fakekube.sim import Lag, Simulation
from fakekube.sim.cpu import Cpu, CpuModel
from fakekube.sim.model import ClusterModel
from fakekube.sim.scheduler import Scheduler


def _cpu(cores: int) -> tuple[Scheduler, Cpu]:
    scheduler = Scheduler()
    return scheduler, Cpu(scheduler, CpuModel(cores=cores), random.Random(0))


def _finishes(scheduler: Scheduler, cpu: Cpu, costs: list[float]) -> list[float]:
    """Submit one job per cost at the same instant, in order; when each one finishes."""
    done: list[float] = []

    async def job(cost: float) -> None:
        await scheduler.sleep(cpu.delay(cost))
        done.append(scheduler.now)

    for cost in costs:
        scheduler.spawn(job(cost))
    scheduler.run()
    return done


def test_one_core_serialises_the_jobs() -> None:
    scheduler, cpu = _cpu(1)
    assert _finishes(scheduler, cpu, [1.0, 1.0, 1.0]) == [1.0, 2.0, 3.0]
    assert cpu.stats()["mean_wait"] == pytest.approx(1.0)  # 0, 1 and 2 seconds in the queue


def test_n_cores_run_n_jobs_at_once() -> None:
    scheduler, cpu = _cpu(3)
    assert _finishes(scheduler, cpu, [1.0, 1.0, 1.0, 1.0]) == [1.0, 1.0, 1.0, 2.0]
    assert cpu.max_wait == 1.0


def test_jobs_start_in_the_order_they_were_submitted() -> None:
    # First come, first served (Go's run queues), not shortest first and not processor sharing: the short
    # job submitted second waits for the long one on a single core.
    scheduler, cpu = _cpu(1)
    assert _finishes(scheduler, cpu, [2.0, 0.5]) == [2.0, 2.5]
    scheduler, cpu = _cpu(2)
    assert sorted(_finishes(scheduler, cpu, [2.0, 0.5, 0.5, 0.5])) == [0.5, 1.0, 1.5, 2.0]


def test_zero_cost_is_free_even_when_every_core_is_busy() -> None:
    scheduler, cpu = _cpu(1)
    assert cpu.delay(5.0) == 5.0
    assert cpu.delay(0.0) == 0.0
    assert cpu.jobs == 1 and cpu.delay(1.0) == 6.0  # the free job left the queue as it was


def test_a_running_goroutine_keeps_its_core_and_the_queue_waits_for_it() -> None:
    scheduler, cpu = _cpu(1)
    assert cpu.keep(2.0) == 2.0  # no wait for work by a goroutine already on a core
    assert cpu.delay(1.0) == 3.0  # a goroutine the network woke afterwards queues behind it
    assert cpu.stats()["held"] == 1 and cpu.jobs == 1


def test_costs_draw_from_the_cpus_own_stream_and_scale_with_a_count() -> None:
    model = CpuModel(cores=2, copy=Lag.fixed(2e-6), event=Lag.uniform(1e-5, 2e-5))
    a = Cpu(Scheduler(), model, random.Random("s"))
    b = Cpu(Scheduler(), model, random.Random("s"))
    assert a.cost("copy", 600) == pytest.approx(1.2e-3)
    assert [a.cost("event") for _ in range(5)] == [b.cost("event") for _ in range(5)]
    assert a.cost("decode") == 0.0  # not in the model: free


def test_model_json_round_trip_and_errors() -> None:
    model = ClusterModel(cpu=CpuModel(cores=4, decode=Lag.fixed(3e-5), pass_=Lag.uniform(1e-5, 3e-5),
                                      source="test"))
    again = ClusterModel.from_json(model.to_json())
    assert again.cpu == model.cpu and again.manager_options()["cpu"] == model.cpu
    assert "cpu" not in ClusterModel().manager_options() and "cpu" not in ClusterModel().to_dict()
    with pytest.raises(ValueError, match="at least one core"):
        CpuModel(cores=0)
    with pytest.raises(ValueError, match="unknown cpu model fields: gomaxprocs"):
        CpuModel.from_dict({"gomaxprocs": 2})


def test_a_response_waits_for_a_core_then_decodes() -> None:
    sim = Simulation(seed=1)
    mgr = sim.manager("m", api_latency=0.010, cpu=CpuModel(cores=1, decode=0.002, encode=0.001))
    client = mgr.client("c")
    hog = mgr.cpu
    finished: list[float] = []

    async def write(name: str) -> None:
        await client.create("configmaps", {"metadata": {"name": name, "namespace": "default"}})
        finished.append(sim.now)

    async def busy() -> None:  # something else holds the only core when the response arrives
        await sim.sleep(0.0105)
        hog.keep(0.005)

    sim.spawn(write("a"))
    sim.spawn(busy())
    sim.run()
    # 1 ms encoding on the caller's core, 10 ms to the commit, the core busy from 10.5 to 15.5 ms, then 2 ms
    # decoding: without the other work the answer would be read at 13 ms.
    assert finished == [pytest.approx(0.0175)]
    entry = sim.audit.entries[-1]
    assert entry.verb == "create" and sim.elapsed(entry) == pytest.approx(0.011, abs=1e-6)  # the commit


def test_the_informer_queues_when_idle_and_keeps_its_core_through_a_backlog() -> None:
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=0.001, cpu=CpuModel(cores=1, event=0.003))
    cache = mgr.informer("configmaps")
    seen: dict[str, float] = {}
    from fakekube.sim.informer import InformerHandler

    cache.add_handler(InformerHandler(on_add=lambda obj, initial: seen.setdefault(obj["metadata"]["name"], sim.now)))

    def create(name: str) -> None:
        sim.store.create("configmaps", {"metadata": {"name": name}}, "default")

    sim.scheduler.call_at(0.0, lambda: create("a"))
    sim.scheduler.call_at(0.0, lambda: create("b"))  # arrives while "a" is being handled: no second wait
    sim.scheduler.call_at(0.0005, lambda: mgr.cpu.keep(0.0015))  # a worker holds the core until 2 ms
    sim.run()
    # "a" arrives at 1 ms, waits for the core until 2 ms, takes 3 ms; "b" follows on the same core.
    assert seen == {"a": pytest.approx(0.005), "b": pytest.approx(0.008)}


def test_without_a_model_nothing_changes() -> None:
    def audit(cpu: CpuModel | None) -> str:
        sim = Simulation(seed=3)
        mgr = sim.manager("m", api_latency=Lag.uniform(0.001, 0.004), cache_lag=0.002, cpu=cpu)
        client = mgr.client("c")

        async def work() -> None:
            for i in range(5):
                await client.create("configmaps", {"metadata": {"name": f"c{i}", "namespace": "default"}})
                await client.get("configmaps", f"c{i}", "default") if i == 0 else None

        sim.spawn(work())
        sim.run()
        return sim.audit.to_jsonl()

    free = CpuModel(cores=1)  # a model whose operations cost nothing takes no time either
    assert audit(None) == audit(free)
    assert audit(None) != audit(CpuModel(cores=1, decode=0.01))
