"""pytest fixtures for the HTTP front, registered by fakekube's pytest plugin (``pytest_plugins``).

- ``kube_server``: the ``kube`` store served on an ephemeral loopback port from a background thread, with a
  kubeconfig written under ``tmp_path``. Gives ``.url``, ``.kubeconfig`` (path), ``.store``, ``.server`` and
  ``.env`` (environment for kubectl subprocesses: KUBECONFIG plus a private KUBECACHEDIR).
- ``kube_server_factory``: start more servers with options (``token=``, ``authorizer=``, ``store=`` ...).

Nothing is shared between tests (own port, own files), so the fixtures are safe under pytest-xdist.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fakekube.pods.logs import PodLogs, pod_logs
from fakekube.server.app import ApiServer
from fakekube.store import Store

__all__ = ["kube_server", "kube_server_factory", "KubeServer"]


@dataclass
class KubeServer:
    server: ApiServer
    kubeconfig: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def store(self) -> Store:
        return self.server.store

    @property
    def token(self) -> str | None:
        return self.server.token

    @property
    def logs(self) -> PodLogs:
        """The store's container logs (``fakekube.pods.logs``): what ``pods/<name>/log`` serves."""
        return pod_logs(self.store)


def _start(store: Store, directory: Path, **options: Any) -> KubeServer:
    server = ApiServer(store, **options).start()
    directory.mkdir(parents=True, exist_ok=True)
    kubeconfig = server.write_kubeconfig(directory / "kubeconfig")
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(directory / "kube-cache")}
    return KubeServer(server, kubeconfig, env)


@pytest.fixture
def kube_server_factory(tmp_path: Path) -> Iterator[Callable[..., KubeServer]]:
    """``kube_server_factory(store=None, token=None, authorizer=None, ...)`` → a started ``KubeServer``."""
    started: list[KubeServer] = []

    def make(store: Store | None = None, **options: Any) -> KubeServer:
        served = _start(store if store is not None else Store(), tmp_path / f"fakekube-server-{len(started)}",
                        **options)
        started.append(served)
        return served

    yield make
    for served in reversed(started):
        served.server.stop()


@pytest.fixture
def kube_server(kube: Store, kube_server_factory: Callable[..., KubeServer]) -> KubeServer:
    """The test's ``kube`` store served over HTTP: seed objects through ``kube`` or through any client."""
    return kube_server_factory(kube)
