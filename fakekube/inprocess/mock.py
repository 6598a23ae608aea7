"""``mock_kubernetes``: unchanged client code against a fake API server in this process, moto-style.

Inside it, requests to the fake's host (``kubernetes.fakekube.invalid``, a name that never resolves) from the
official ``kubernetes`` client (urllib3, and websocket-client for its exec, attach and port-forward streams), httpx clients (kr8s, lightkube)
and aiohttp clients (kubernetes_asyncio, kopf) are answered by
``Front.handle`` — the same code that answers over HTTP — without a socket; ``KUBECONFIG`` names a kubeconfig
for that host, ``KUBERNETES_SERVICE_HOST``/``_PORT`` and the official client's service-account files make
``load_incluster_config()`` resolve to it, and (unless ``block_network=False``) no socket may connect anywhere.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import ContextDecorator, ExitStack, contextmanager
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


# The service account's ``ca.crt``: clients load it into an SSL context (kopf does) though no TLS happens in
# process. A self-signed CA certificate fakekube generated once (EC P-256, valid 2026-2126), whose key was
# discarded: nothing can be signed by it, and writing it costs nothing per test.
IN_CLUSTER_CA = b"""\
-----BEGIN CERTIFICATE-----
MIIBeTCCAR+gAwIBAgIULk54hhMS1XHY3RRadbLDjWn1+lIwCgYIKoZIzj0EAwIw
MTEvMC0GA1UEAwwmZmFrZWt1YmUgaW4tcHJvY2VzcyBDQSAoa2V5IGRpc2NhcmRl
ZCkwIBcNMjYwMTAxMDAwMDAwWhgPMjEyNTEyMDgwMDAwMDBaMDExLzAtBgNVBAMM
JmZha2VrdWJlIGluLXByb2Nlc3MgQ0EgKGtleSBkaXNjYXJkZWQpMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEt8TuPJCitHXlHWvSjApBm3Lh/oiaHtWA/JR+wwkJ
wlwqEYb7WfaXC00ZQUYuMV79XOspEK46+nJ7jMWGGwyj7KMTMBEwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiBt7P4eN/y6QIDxF9MV1ZMXQdfw8bHI
PbovCkKX/32HrwIhAMcHvbG5aWcmFcjA80EFi2G5XB44/02PtWaohZS+Ul97
-----END CERTIFICATE-----
"""


CONFIG_PACKAGES = ("kubernetes", "kubernetes_asyncio")  # clients whose config modules hold import-time paths


def _reset_default_location(package: str, outside: str) -> None:
    """A client config module imported inside a mock read the fake's kubeconfig: give it the outside one."""
    for name in (f"{package}.config.kube_config", f"{package}.config"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "KUBE_CONFIG_DEFAULT_LOCATION"):
            module.KUBE_CONFIG_DEFAULT_LOCATION = outside


# Directories for a block's kubeconfig and service-account files, emptied when the block ends and free for the
# next one: on the ext4 machines measured, removing a directory and overwriting a file each cost about 4 ms
# (a journal commit), creating or unlinking a file 0.01-0.02 ms. Whatever remains goes when the process ends.
_FILES = ("kubeconfig", "token", "ca.crt", "namespace")
_FREE_DIRECTORIES: list[Path] = []
_ALL_DIRECTORIES: list[Path] = []


def _take_directory() -> Path:
    while _FREE_DIRECTORIES:
        directory = _FREE_DIRECTORIES.pop()
        if directory.is_dir():
            return directory
    directory = Path(tempfile.mkdtemp(prefix="fakekube-mock-"))
    if not _ALL_DIRECTORIES:
        atexit.register(_remove_directories)
    _ALL_DIRECTORIES.append(directory)
    return directory


def _release_directory(directory: Path) -> None:
    for name in _FILES:
        (directory / name).unlink(missing_ok=True)
    _FREE_DIRECTORIES.append(directory)


def _remove_directories() -> None:
    for directory in _ALL_DIRECTORIES:
        shutil.rmtree(directory, True)


@contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """``mock.patch.dict(os.environ, values)``: the environment as it was when the block began, whatever the
    block changed in it, restored by setting back only what differs (``patch.dict`` clears and refills every
    variable, a system call each)."""
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        for name in [name for name in os.environ if name not in saved]:
            del os.environ[name]
        for name, value in saved.items():
            if os.environ.get(name) != value:
                os.environ[name] = value


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
        directory = _take_directory()
        stack.callback(_release_directory, directory)
        kubeconfig = write_kubeconfig(directory / "kubeconfig", URL, namespace=self._namespace)
        # The in-cluster service account: a token the front knows (an admin), and a CA certificate (clients
        # load it into their SSL context; no TLS happens in process).
        token = secrets.token_hex(16)
        front.store.tokens.static[token] = UserInfo("admin", groups=("system:masters",))
        (directory / "token").write_text(token)
        (directory / "ca.crt").write_bytes(IN_CLUSTER_CA)
        (directory / "namespace").write_text(self._namespace)
        stack.enter_context(_environment({"KUBECONFIG": str(kubeconfig), "KUBERNETES_SERVICE_HOST": HOST,
                                          "KUBERNETES_SERVICE_PORT": IN_CLUSTER_PORT}))
        for package in CONFIG_PACKAGES:
            self._point_config_at(stack, package, kubeconfig, directory)
        if "kr8s._api" in sys.modules:
            # kr8s.api() without arguments returns any client this thread made before (another test's, for
            # another server): inside the block it discovers the fake afresh, outside it finds its own again.
            stack.enter_context(mock.patch.object(sys.modules["kr8s._api"].Api, "_instances", {}))
        if _installed("urllib3"):
            from fakekube.inprocess import urllib3_transport

            urllib3_transport.install(HOST, front)
            stack.callback(urllib3_transport.uninstall, HOST, front)
        if _installed("httpx"):
            from fakekube.inprocess import httpx_transport

            httpx_transport.install(HOST, front)
            stack.callback(httpx_transport.uninstall, HOST, front)
        if _installed("aiohttp"):
            from fakekube.inprocess import aiohttp_transport

            aiohttp_transport.install(HOST, front)
            stack.callback(aiohttp_transport.uninstall, HOST, front)
        if _installed("websocket"):
            from fakekube.inprocess import websocket_transport

            websocket_transport.install(HOST, front)
            stack.callback(websocket_transport.uninstall, HOST, front)
        if self._block:
            guard.block()
            stack.callback(guard.unblock)
        cluster = Cluster(front, kubeconfig)
        _CLUSTERS.append(cluster)
        stack.callback(_CLUSTERS.remove, cluster)
        return cluster

    @staticmethod
    def _point_config_at(stack: ExitStack, package: str, kubeconfig: Path, directory: Path) -> None:
        """The official clients read ``KUBECONFIG`` when their config module is imported, and the in-cluster
        loader's file names are module constants: an imported client's are patched. One imported inside the
        block reads the environment's ``KUBECONFIG`` (the fake's), and is set back to what it would have read
        outside when the block ends; its in-cluster loader is not redirected (import it before)."""
        if f"{package}.config" not in sys.modules:
            outside = os.environ.get("KUBECONFIG", "~/.kube/config")
            stack.callback(_reset_default_location, package, outside)
            return
        config = sys.modules[f"{package}.config"]
        kube_config = importlib.import_module(f"{package}.config.kube_config")
        incluster_config = importlib.import_module(f"{package}.config.incluster_config")
        for module in (kube_config, config):
            if hasattr(module, "KUBE_CONFIG_DEFAULT_LOCATION"):
                stack.enter_context(mock.patch.object(module, "KUBE_CONFIG_DEFAULT_LOCATION", str(kubeconfig)))
        stack.enter_context(mock.patch.object(incluster_config, "SERVICE_TOKEN_FILENAME", str(directory / "token")))
        stack.enter_context(mock.patch.object(incluster_config, "SERVICE_CERT_FILENAME", str(directory / "ca.crt")))

    def __exit__(self, *exc: object) -> None:
        self._stacks.pop().close()
