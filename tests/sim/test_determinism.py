"""Same seed → byte-identical audit log; another seed → another interleaving."""

from __future__ import annotations

from fakekube.sim import Lag, Simulation
from tests.sim.example import WIDGETS, WidgetController, widget


def scenario(seed: int) -> str:
    sim = Simulation(seed=seed)
    from tests.sim.example import WIDGET_CRD

    sim.store.load_crds(WIDGET_CRD)
    sim.kubelet()
    sim.garbage_collector()
    mgr = sim.manager("mgr", cache_lag=Lag.exponential(0.010), api_latency=Lag.uniform(0.001, 0.004))
    WidgetController(sim, mgr, status_mode="update", workers=4)

    async def load():
        for i in range(20):
            sim.store.create(WIDGETS, widget(f"w{i}"), "default", actor="load")
            sim.store.create("pods", {"metadata": {"name": f"p{i}", "namespace": "default"},
                                      "spec": {"containers": [{"name": "c", "image": "i"}]}}, actor="load")
            await sim.sleep(0.002)

    sim.spawn(load())
    sim.run()
    return sim.audit.to_jsonl()


def test_same_seed_gives_a_byte_identical_audit_log():
    first, second = scenario(7), scenario(7)
    assert first == second
    assert first.count("\n") > 100


def test_another_seed_gives_another_interleaving():
    assert scenario(7) != scenario(8)
