"""pytest fixtures, registered through the ``pytest11`` entry point (no conftest needed).

- ``kube``: a fresh in-memory API server (a ``Store``) with the built-in kinds and the default namespaces.
- ``kube_factory``: make more stores with options (seed, clock, gc mode ...).
- ``webhook_services``: the Service-to-address map of ``kube``'s admission webhooks (empty; override it).
- ``load_manifests``: create objects (and register CRDs) from YAML files or text into ``kube``.

Every fixture is function-scoped and shares nothing between tests, so it is safe under pytest-xdist.
Fixtures of the simulation, the HTTP front and in-process clients (``kube_inprocess``) are added by their packages (see docs/). The agent-sandbox
fixtures are not loaded here: a suite opts in with ``pytest_plugins = ["fakekube.agentsandbox.pytest_plugin"]``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fakekube.store import Store


@pytest.fixture
def kube_factory() -> Callable[..., Store]:
    """Build stores: ``kube_factory(seed=1, gc="manual", require_namespaces=False)``."""
    return Store


@pytest.fixture
def webhook_services() -> dict[str, str]:
    """Where ``kube``'s admission webhooks reach a Service: ``{"NAMESPACE/NAME[:PORT]": "HOST:PORT"}``; override
    it in a test module (or parametrize it) to map the Services your webhook configurations name
    (docs/admission.md, "Admission webhooks")."""
    return {}


@pytest.fixture
def kube(kube_factory: Callable[..., Store], webhook_services: dict[str, str]) -> Store:
    """A fresh fake API server with built-ins registered and namespaces default, kube-system, kube-public. It
    keeps every request's body and answer on its audit entry (``kube.audit.filter(...)``,
    ``kube.audit.history(resource, name)``)."""
    store = kube_factory(webhook_services=webhook_services) if webhook_services else kube_factory()
    store.audit.keep_bodies()
    return store


@pytest.fixture
def load_manifests(kube: Store) -> Callable[[str | Path | dict[str, Any]], list[dict[str, Any]]]:
    """``load_manifests("crds.yaml")``: register CRDs and create every other object in the file or text."""
    return kube.load


# The simulation, the HTTP front and the cluster ship fixtures of their own, registered with this plugin. The
# fakekube_explore marker comes last: its sim_factory (seeded and perturbed per explored run) overrides the sim's.
pytest_plugins = ["fakekube.sim.fixtures", "fakekube.server.fixtures", "fakekube.inprocess.fixtures",
                  "fakekube.cluster.fixtures", "fakekube.explore.marker"]
