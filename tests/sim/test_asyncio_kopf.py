"""kopf, unchanged, inside a simulation in virtual time (fakekube.sim.asyncioloop): its sync handler runs inline
(no executor thread), its watches end and restart on the virtual clock, and a seed replays."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from fakekube.inprocess.mock import mock_kubernetes
from fakekube.sim import Lag, RequestLatency, Simulation
from fakekube.sim.asyncioloop import VirtualEventLoop

from .threadspy import threads_started

kopf = pytest.importorskip("kopf")


def make_registry(ticks: list[tuple[str, float]]) -> Any:
    registry = kopf.OperatorRegistry()

    @kopf.on.login(registry=registry)
    def login(**kwargs: Any) -> Any:
        return kopf.login_with_kubeconfig(**kwargs)

    @kopf.on.startup(registry=registry)
    def configure(settings: Any, **_: Any) -> None:
        settings.peering.standalone = True
        settings.scanning.disabled = True
        settings.posting.enabled = False
        settings.watching.server_timeout = 20

    @kopf.on.create("", "v1", "configmaps", registry=registry)
    def created(patch: Any, **_: Any) -> None:  # a sync handler: kopf runs it with run_in_executor
        patch.metadata.annotations["seen"] = "yes"

    @kopf.timer("", "v1", "configmaps", interval=10, registry=registry)
    async def tick(name: str, **_: Any) -> None:  # kopf's own sleeps: virtual
        ticks.append((name, asyncio.get_running_loop().time()))

    return registry


def run(seed: int, ticks: list[tuple[str, float]] | None = None
        ) -> tuple[Simulation, VirtualEventLoop, list[threading.Thread]]:
    sim = Simulation(seed=seed, freeze_time=False)  # see test_asyncio_operator.py: freezegun and datetime
    latency = RequestLatency(default=Lag.uniform(0.010, 0.030), commit_at=0.5)
    with mock_kubernetes(store=sim.store), threads_started() as started:
        loop = VirtualEventLoop(sim, latency=latency, name="kopf")
        load = sim.manager("load", latency=latency).client("load")

        async def driver() -> None:
            for i in range(3):
                await sim.sleep(2.0)
                await load.create("configmaps", {"metadata": {"name": f"cm-{i}", "namespace": "default"}})

        stop = asyncio.Event()
        operator = loop.spawn(kopf.operator(registry=make_registry([] if ticks is None else ticks), standalone=True,
                                            clusterwide=False, namespaces=["default"], stop_flag=stop))
        sim.spawn(driver(), "load driver")
        sim.run(for_=60, until_idle=False)
        assert not operator.done()
        loop.call_soon(stop.set)
        sim.run(for_=10, stop_when=operator.done)
        assert operator.done() and operator.exception() is None
        loop.cancel_tasks()
        loop.close()
    return sim, loop, started


def test_kopf_reconciles_in_virtual_time_without_threads() -> None:
    ticks: list[tuple[str, float]] = []
    sim, loop, started = run(1, ticks)
    assert started == []
    inline = [name for name in loop.executor_calls if name.startswith(__name__)]
    assert inline == [f"{__name__}.make_registry.<locals>.{name}" for name in ("configure", "login")] + [
        f"{__name__}.make_registry.<locals>.created"] * 3  # the sync handlers, inline: once per ConfigMap
    annotations = {o["metadata"]["name"]: o["metadata"]["annotations"]["seen"]
                   for o in sim.store.list("configmaps", namespace="default")["items"]}
    assert annotations == {"cm-0": "yes", "cm-1": "yes", "cm-2": "yes"}
    watches = [round(sim.elapsed(e)) for e in sim.audit if e.actor == "kopf" and e.verb == "watch"]
    assert watches == [0, 20, 40]  # settings.watching.server_timeout on the virtual clock
    for i in range(3):
        created = next(e for e in sim.audit if e.verb == "create" and e.name == f"cm-{i}")
        patched = next(e for e in sim.audit if e.actor == "kopf" and e.verb == "patch" and e.name == f"cm-{i}")
        assert 0.005 <= patched.time - created.time <= 0.030  # the event at the commit, then a request leg
    times = [at for name, at in ticks if name == "cm-0"]
    assert len(times) == 6  # from about 2 s to 60 s, every 10 virtual seconds
    assert all(later - earlier == pytest.approx(10) for earlier, later in zip(times, times[1:], strict=False))


def test_kopf_replays_by_seed() -> None:
    assert run(5)[0].audit.to_jsonl() == run(5)[0].audit.to_jsonl()
