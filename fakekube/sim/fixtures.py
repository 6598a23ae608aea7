"""pytest fixtures for the simulation, registered by fakekube's pytest plugin (``pytest_plugins``).

- ``sim``: a fresh :class:`Simulation` (seed 1) with a kubelet and a garbage collector; tune it with the
  ``sim_options`` fixture (override it in a test module or conftest, or parametrize it indirectly): ``seed``, ``cache_lag``, ``api_latency``, ``kubelet`` (False or kubelet options), ``gc`` (False or GC
  options), ``crds`` (manifests to load), ``freeze_time``, ``strict``.
- ``sim_factory``: build more simulations with the same knobs, e.g. to compare two seeds.
- ``sim_manager``: a manager on ``sim`` named ``"controller-manager"`` with the ``cache_lag`` /
  ``api_latency`` / ``qps`` / ``burst`` knobs.

Every fixture is function-scoped and shares nothing between tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .lag import Lag
from .manager import Manager
from .simulation import Simulation

__all__ = ["sim", "sim_factory", "sim_manager", "sim_options"]

DEFAULTS: dict[str, Any] = {
    "seed": 1,
    "cache_lag": Lag.fixed(0.010),
    "api_latency": Lag.fixed(0.002),
    "qps": None,
    "burst": 10,
    "kubelet": {},
    "gc": {},
    "crds": (),
    "freeze_time": True,
    "strict": True,
}


def build_simulation(**options: Any) -> Simulation:
    """A simulation with the fixture knobs applied (``kubelet=False`` / ``gc=False`` leave those actors out)."""
    opts = {**DEFAULTS, **options}
    sim = Simulation(seed=opts["seed"], freeze_time=opts["freeze_time"], strict=opts["strict"])
    sim.options = opts  # type: ignore[attr-defined]
    for crd in opts["crds"] or ():
        sim.store.load_crds(crd)
    if opts["kubelet"] is not False:
        sim.kubelet(**(opts["kubelet"] or {}))
    if opts["gc"] is not False:
        sim.garbage_collector(**(opts["gc"] or {}))
    return sim


@pytest.fixture
def sim_options() -> dict[str, Any]:
    """Override in a module or conftest to change the ``sim`` fixture's knobs for many tests."""
    return {}


@pytest.fixture
def sim_factory(sim_options: dict[str, Any]) -> Callable[..., Simulation]:
    """``sim_factory(seed=2, cache_lag=0.05, kubelet=False)``: more simulations with the fixture's knobs."""
    base = dict(sim_options)

    def factory(**options: Any) -> Simulation:
        return build_simulation(**{**base, **options})

    return factory


@pytest.fixture
def sim(sim_factory: Callable[..., Simulation]) -> Simulation:
    """A fresh simulation (store on a virtual clock, kubelet, garbage collector)."""
    return sim_factory()


@pytest.fixture
def sim_manager(sim: Simulation) -> Manager:
    opts = getattr(sim, "options", DEFAULTS)
    return sim.manager("controller-manager", cache_lag=opts["cache_lag"], api_latency=opts["api_latency"],
                       qps=opts["qps"], burst=opts["burst"])
