"""An asyncio operator on a ``VirtualEventLoop`` beside a load driver creating ConfigMaps: the run the
asyncio-in-virtual-time tests share (kubernetes_asyncio's, kr8s's and lightkube's operators)."""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from typing import Any

from fakekube.inprocess.mock import Cluster, mock_kubernetes
from fakekube.sim import RequestLatency, Simulation
from fakekube.sim.asyncioloop import VirtualEventLoop


def run_beside_load(sim: Simulation, loop: VirtualEventLoop, operator: Coroutine[Any, Any, None], *,
                    seconds: float, creates: int, every: float, namespace: str = "default") -> float:
    """``operator`` as a task of ``loop``, beside a simulation client creating ConfigMap ``cm-<i>`` every
    ``every`` s, for ``seconds`` of virtual time; then the loop's tasks are cancelled and the loop closed.
    Returns the wall seconds the run took."""
    load = sim.manager("load", latency=RequestLatency(default=0.004, commit_at=0.5)).client("load")

    async def driver() -> None:
        for i in range(creates):
            await sim.sleep(every)
            await load.create("configmaps", {"metadata": {"name": f"cm-{i}", "namespace": namespace}})

    task = loop.spawn(operator)
    sim.spawn(driver(), "load driver")
    wall = time.perf_counter()
    sim.run(for_=seconds, until_idle=False)
    wall = time.perf_counter() - wall
    assert not task.done(), task
    loop.cancel_tasks()
    loop.close()
    return wall


def assert_a_timed_out_create_commits(attempt: Callable[[VirtualEventLoop, Cluster], Coroutine[Any, Any, str]]
                                      ) -> None:
    """The race a client timeout hides: ``attempt(loop, cluster)`` creates ConfigMap "cm" as actor "impatient"
    with a 10 ms timeout, returning "timed out at <loop time>" when it gave up. With 50 ms round trips it gives
    up at 10 ms, and the server commits the create anyway, at 25 ms."""
    sim = Simulation(seed=1, freeze_time=False)
    with mock_kubernetes(store=sim.store) as cluster:
        loop = VirtualEventLoop(sim, latency=RequestLatency(default=0.050, commit_at=0.5), name="impatient")
        assert loop.run_until_complete(attempt(loop, cluster)) == "timed out at 0.010"
        sim.run()
        loop.close()
        sim.run()
    [entry] = sim.audit.by_actor("impatient")
    assert (entry.verb, entry.code, round(sim.elapsed(entry), 6)) == ("create", 201, 0.025)
    assert sim.store.get("configmaps", "cm", "default")["metadata"]["name"] == "cm"
    assert sim.scheduler.idle  # the closed loop's driver ended
