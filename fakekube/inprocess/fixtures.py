"""pytest fixture for in-process clients, registered by fakekube's pytest plugin.

- ``kube_inprocess``: the test's ``kube`` store behind ``mock_kubernetes``: unchanged clients
  (``kubernetes.config.load_kube_config()``, ``kr8s.api()``, ``lightkube.Client()``, kubernetes_asyncio, kopf) reach it with no server, no
  port and no socket; any socket connect fails. Gives a ``Cluster`` (``.store``, ``.kubeconfig``, ``.url``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fakekube.inprocess.mock import Cluster, mock_kubernetes
from fakekube.store import Store

__all__ = ["kube_inprocess"]


@pytest.fixture
def kube_inprocess(kube: Store) -> Iterator[Cluster]:
    """``kube`` served in process to unchanged clients (docs/in-process.md)."""
    with mock_kubernetes(kube) as cluster:
        yield cluster
