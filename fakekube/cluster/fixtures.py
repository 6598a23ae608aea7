"""pytest fixtures for a cluster, registered by fakekube's pytest plugin (``pytest_plugins``).

- ``kube_cluster``: the ``kube`` store served over HTTP (like ``kube_server``) with a cluster acting on it in
  wall-clock time: nodes with kubelets, the scheduler, kube-controller-manager's controllers. Gives what
  ``kube_server`` gives (``.url``, ``.kubeconfig``, ``.env``, ``.store``) plus ``.cluster`` (the
  ``ClusterRunner``). Options come from ``kube_cluster_options`` (override it in a module or conftest):
  ``nodes``, ``controllers``, ``timing``, ``bootstrap_objects``, and ``authorization_mode: "RBAC"``, which
  serves with RBAC over the bootstrap policy as ``fakekube serve --authorization-mode RBAC`` does: the
  kubeconfig's admin is cluster-admin, service-account tokens act as their accounts, and whatever a Role
  does not grant is a 403 (``fakekube audit denials`` lists them from the audit log).
- ``kopf_cluster``: ``kube_cluster`` with every Kubernetes client of the process pointed at it and never
  elsewhere (``fakekube.server.clientenv.only_fake_cluster``): ``KUBECONFIG`` set, the ``kubernetes``
  package's import-time default repointed, in-cluster variables removed, and each installed client
  (kubernetes, kubernetes_asyncio, lightkube, kr8s, kopf's logins) checked to resolve to loopback, else
  ``NotLoopback``; and a fresh kopf default registry for the test (``fresh_kopf_registry``). For kopf operators
  whose handlers call ``load_kube_config()``; see docs/http/kopf.md.
- ``sim_cluster``: a ``Cluster`` on a fresh simulation (virtual time, deterministic; the simulation's own
  kubelet is left out), options from ``sim_cluster_options`` plus ``seed``.

Function-scoped, nothing shared between tests.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from fakekube.server.clientenv import fresh_kopf_registry, only_fake_cluster
from fakekube.server.fixtures import KubeServer
from fakekube.server.rbacmode import rbac_options
from fakekube.store import Store

from .cluster import Cluster
from .rbac import bootstrap_rbac
from .runner import ClusterRunner
from .timing import Timing

__all__ = ["kube_cluster", "kube_cluster_options", "kopf_cluster", "sim_cluster", "sim_cluster_options", "ClusterServer"]


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
    options = dict(kube_cluster_options)
    mode = options.pop("authorization_mode", "AlwaysAllow")
    if mode not in ("AlwaysAllow", "RBAC"):
        raise ValueError(f"authorization_mode must be AlwaysAllow or RBAC, not {mode!r}")
    server_options: dict[str, Any] = {}
    if mode == "RBAC":
        bootstrap_rbac(kube)  # the roles the admin binding names exist before the first request
        token = secrets.token_hex(16)  # the kubeconfig's admin, in system:masters
        server_options = {"token": token, **rbac_options(kube, token)}
    served = kube_server_factory(kube, **server_options)
    runner = ClusterRunner(kube, **{"timing": Timing(), **options}).start()
    try:
        runner.wait_ready()
        yield ClusterServer(served, runner)
    finally:
        runner.stop()


@pytest.fixture
def kopf_cluster(kube_cluster: ClusterServer) -> Iterator[ClusterServer]:
    """``kube_cluster``, with kopf and the operator's own clients pointed at it (and only at it)."""
    with only_fake_cluster(kube_cluster.kubeconfig), fresh_kopf_registry():
        yield kube_cluster


@pytest.fixture
def sim_cluster_options() -> dict[str, Any]:
    """Override to change ``sim_cluster``: ``{"seed": 2, "nodes": 2, "timing": Timing(...)}``."""
    return {}


@pytest.fixture
def sim_cluster(sim_factory: Callable[..., Any], sim_cluster_options: dict[str, Any]) -> Cluster:
    options = dict(sim_cluster_options)
    sim = sim_factory(seed=options.pop("seed", 1), kubelet=False, gc=False)
    return Cluster(sim, **options)
