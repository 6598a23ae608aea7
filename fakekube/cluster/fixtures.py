"""pytest fixtures for a cluster, registered by fakekube's pytest plugin (``pytest_plugins``).

- ``kube_cluster``: the ``kube`` store served over HTTP (like ``kube_server``) with a cluster acting on it in
  wall-clock time: nodes with kubelets, the scheduler, kube-controller-manager's controllers. Gives what
  ``kube_server`` gives (``.url``, ``.kubeconfig``, ``.env``, ``.store``) plus ``.cluster`` (the
  ``ClusterRunner``). Options come from ``kube_cluster_options`` (override it in a module or conftest):
  ``nodes``, ``controllers``, ``timing``, ``bootstrap_objects``.
- ``sim_cluster``: a ``Cluster`` on a fresh simulation (virtual time, deterministic; the simulation's own
  kubelet is left out), options from ``sim_cluster_options`` plus ``seed``.

Function-scoped, nothing shared between tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from fakekube.server.fixtures import KubeServer
from fakekube.store import Store

from .cluster import Cluster
from .runner import ClusterRunner
from .timing import Timing

__all__ = ["kube_cluster", "kube_cluster_options", "sim_cluster", "sim_cluster_options", "ClusterServer"]


@dataclass
class ClusterServer:
    """A served store with a cluster acting on it."""

    served: KubeServer
    cluster: ClusterRunner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.served, name)


@pytest.fixture
def kube_cluster_options() -> dict[str, Any]:
    """Override to change ``kube_cluster``: ``{"nodes": 3, "controllers": "*,-job", "timing": Timing.fast()}``."""
    return {}


@pytest.fixture
def kube_cluster(kube: Store, kube_server_factory: Callable[..., KubeServer],
                 kube_cluster_options: dict[str, Any]) -> Iterator[ClusterServer]:
    served = kube_server_factory(kube)
    runner = ClusterRunner(kube, **{"timing": Timing(), **kube_cluster_options}).start()
    try:
        runner.wait_ready()
        yield ClusterServer(served, runner)
    finally:
        runner.stop()


@pytest.fixture
def sim_cluster_options() -> dict[str, Any]:
    """Override to change ``sim_cluster``: ``{"seed": 2, "nodes": 2, "timing": Timing(...)}``."""
    return {}


@pytest.fixture
def sim_cluster(sim_factory: Callable[..., Any], sim_cluster_options: dict[str, Any]) -> Cluster:
    options = dict(sim_cluster_options)
    sim = sim_factory(seed=options.pop("seed", 1), kubelet=False, gc=False)
    return Cluster(sim, **options)
