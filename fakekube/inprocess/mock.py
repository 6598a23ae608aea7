"""``mock_kubernetes``: unchanged client code against a fake API server in this process, moto-style.

Inside it, requests to the fake's host (``kubernetes.fakekube.invalid``, a name that never resolves) from the
official ``kubernetes`` client (urllib3) and from httpx clients (kr8s, lightkube) are answered by
``Front.handle`` — the same code that answers over HTTP — without a socket; ``KUBECONFIG`` names a kubeconfig
for that host, ``KUBERNETES_SERVICE_HOST``/``_PORT`` and the official client's service-account files make
``load_incluster_config()`` resolve to it, and (unless ``block_network=False``) no socket may connect anywhere.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import tempfile
from contextlib import ContextDecorator, ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from fakekube.identity import UserInfo
from fakekube.inprocess import guard
from fakekube.server.front import Front
from fakekube.server.kubeconfig import write_kubeconfig
from fakekube.store import Store

HOST = "kubernetes.fakekube.invalid"  # RFC 2606: .invalid never resolves, so a request that escapes fails
URL = f"http://{HOST}"
IN_CLUSTER_PORT = "443"
_CLUSTERS: list[Cluster] = []


@dataclass
class Cluster:
    """The fake a ``mock_kubernetes`` block talks to: seed and assert through ``store``."""

    front: Front
    kubeconfig: Path
    url: str = URL

    @property
    def store(self) -> Store:
        return self.front.store


def current_cluster() -> Cluster:
    """The innermost active ``mock_kubernetes``'s cluster (for code under ``@mock_kubernetes``)."""
    if not _CLUSTERS:
        raise RuntimeError("no mock_kubernetes is active")
    return _CLUSTERS[-1]


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


class mock_kubernetes(ContextDecorator):  # noqa: N801 - named as users know moto's mock_aws
    """``with mock_kubernetes() as cluster:`` or ``@mock_kubernetes()``. ``store``: the store to serve (a new
    one by default); ``block_network``: refuse every socket connect inside; other keyword arguments are
    ``Front``'s (``authorizer=``, ``tokens=`` ...)."""

    def __init__(self, store: Store | None = None, *, block_network: bool = True, namespace: str = "default",
                 **front_options: Any) -> None:
        self._store = store
        self._block = block_network
        self._namespace = namespace
        self._options = front_options
        self._stacks: list[ExitStack] = []

    def __enter__(self) -> Cluster:
        stack = ExitStack()
        try:
            cluster = self._enter(stack)
        except BaseException:
            stack.close()
            raise
        self._stacks.append(stack)
        return cluster

    def _enter(self, stack: ExitStack) -> Cluster:
        front = Front(self._store if self._store is not None else Store(), host=HOST, **self._options)
        stack.callback(front.close)
        directory = Path(tempfile.mkdtemp(prefix="fakekube-mock-"))
        stack.callback(shutil.rmtree, directory, True)
        kubeconfig = write_kubeconfig(directory / "kubeconfig", URL, namespace=self._namespace)
        # The in-cluster service account: a token the front knows (an admin), and a CA file the official
        # client insists exists (no TLS happens in process).
        token = secrets.token_hex(16)
        front.store.tokens.static[token] = UserInfo("admin", groups=("system:masters",))
        (directory / "token").write_text(token)
        (directory / "ca.crt").write_text("# fakekube: no TLS in process\n")
        (directory / "namespace").write_text(self._namespace)
        stack.enter_context(mock.patch.dict(os.environ, {"KUBECONFIG": str(kubeconfig),
                                                         "KUBERNETES_SERVICE_HOST": HOST,
                                                         "KUBERNETES_SERVICE_PORT": IN_CLUSTER_PORT}))
        if _installed("kubernetes"):
            import kubernetes.config
            from kubernetes.config import incluster_config, kube_config

            # read from KUBECONFIG when the module was imported: the environment alone is too late
            for module in (kube_config, kubernetes.config):
                stack.enter_context(mock.patch.object(module, "KUBE_CONFIG_DEFAULT_LOCATION", str(kubeconfig)))

            stack.enter_context(mock.patch.object(incluster_config, "SERVICE_TOKEN_FILENAME", str(directory / "token")))
            stack.enter_context(mock.patch.object(incluster_config, "SERVICE_CERT_FILENAME", str(directory / "ca.crt")))
        if _installed("urllib3"):
            from fakekube.inprocess import urllib3_transport

            urllib3_transport.install(HOST, front)
            stack.callback(urllib3_transport.uninstall, HOST, front)
        if _installed("httpx"):
            from fakekube.inprocess import httpx_transport

            httpx_transport.install(HOST, front)
            stack.callback(httpx_transport.uninstall, HOST, front)
        if self._block:
            guard.block()
            stack.callback(guard.unblock)
        cluster = Cluster(front, kubeconfig)
        _CLUSTERS.append(cluster)
        stack.callback(_CLUSTERS.remove, cluster)
        return cluster

    def __exit__(self, *exc: object) -> None:
        self._stacks.pop().close()
