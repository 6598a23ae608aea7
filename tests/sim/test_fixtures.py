"""The pytest fixtures exported through fakekube.sim.fixtures.__all__."""

from __future__ import annotations

import pytest

from fakekube.sim import Lag, Simulation
from fakekube.sim import fixtures as fx


def test_all_names_exist():
    for name in fx.__all__:
        assert hasattr(fx, name)


def test_sim_fixture_has_kubelet_and_gc(sim):
    assert isinstance(sim, Simulation)
    assert len(sim.kubelets) == 1 and sim.gc is not None
    sim.store.create("pods", {"metadata": {"name": "p", "namespace": "default"},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}, actor="t")
    sim.run()
    assert sim.store.get("pods", "p", "default")["status"]["phase"] == "Running"


def test_sim_manager_uses_the_knobs(sim_manager):
    assert sim_manager.cache_lag == Lag.fixed(0.010)
    assert sim_manager.api_latency == Lag.fixed(0.002)


class TestOverride:
    @pytest.fixture
    def sim_options(self):
        return {"seed": 5, "kubelet": False, "cache_lag": Lag.fixed(0.1), "qps": 5, "burst": 1}

    def test_sim_options_override(self, sim, sim_manager, sim_factory):
        assert sim.seed == 5 and sim.kubelets == []
        assert sim_manager.cache_lag == Lag.fixed(0.1) and sim_manager.qps == 5
        other = sim_factory(seed=6, gc=False)
        assert other.seed == 6 and other.gc is None
