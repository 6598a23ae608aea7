"""Point every Kubernetes client in the process at a fake server, and never at a real cluster.

Setting ``KUBECONFIG`` is not enough for Python clients: the official ``kubernetes`` package (and
``kubernetes_asyncio``) read it once, at import time, into ``KUBE_CONFIG_DEFAULT_LOCATION``, so a later
``load_kube_config()`` reads ``~/.kube/config`` — a developer's real cluster when one is configured. In a pod,
``KUBERNETES_SERVICE_HOST`` and the mounted service-account token make ``load_incluster_config()``, lightkube's
``KubeConfig.from_env()`` and kopf's ``login_with_service_account`` choose the pod's own cluster first.

``only_fake_cluster(kubeconfig)`` sets ``KUBECONFIG``, repoints the import-time defaults, removes the
in-cluster variables, then asks each installed client (``kubernetes``, ``kubernetes_asyncio``, lightkube, kr8s,
kopf's own login handlers; its ``login_via_client`` is the official client's loaders) where it would connect,
and raises :class:`NotLoopback` unless every answer is a loopback address. Everything is restored on exit. ``kopf_cluster`` (fakekube/cluster/fixtures.py) is
``kube_cluster`` inside it.
"""

from __future__ import annotations

import asyncio
import importlib
import ipaddress
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

__all__ = ["NotLoopback", "only_fake_cluster", "resolved_servers", "is_loopback", "fresh_kopf_registry"]

IN_CLUSTER_VARS = ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")
# Modules whose KUBE_CONFIG_DEFAULT_LOCATION was copied from $KUBECONFIG at import (``kubernetes.config``
# re-exports the name, so its own binding is patched too: ``load_config()`` reads that one).
DEFAULT_LOCATIONS = ("kubernetes.config.kube_config", "kubernetes.config",
                     "kubernetes_asyncio.config.kube_config", "kubernetes_asyncio.config")


class NotLoopback(RuntimeError):
    """A client would connect somewhere other than this machine's loopback interface."""


def is_loopback(server: str) -> bool:
    host = urlsplit(server).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _kubernetes(module: str) -> str:
    config = importlib.import_module(f"{module}.config")
    client = importlib.import_module(f"{module}.client")
    configuration = client.Configuration()
    result = config.load_kube_config(client_configuration=configuration)
    if asyncio.iscoroutine(result):          # kubernetes_asyncio
        _run(lambda: result)
    return configuration.host


def _lightkube() -> str:
    from lightkube.config.kubeconfig import KubeConfig
    return KubeConfig.from_env().get().cluster.server


def _kr8s() -> str:
    return _run(_kr8s_server)


async def _kr8s_server() -> str:
    from kr8s._auth import KubeAuth  # what kr8s.api() authenticates with: $KUBECONFIG, then in-cluster
    auth = KubeAuth()
    await auth.reauthenticate()
    return auth.server


def _kopf() -> str:
    import kopf
    settings = kopf.OperatorSettings()
    logger = logging.getLogger("fakekube.clientenv")
    servers = []
    # kopf.login_via_client is the official client's load_incluster_config()/load_kube_config(), checked by
    # _kubernetes without its side effect (it would replace the client's process-wide default configuration).
    for login in (kopf.login_with_kubeconfig, kopf.login_with_service_account):
        info = login(settings=settings, logger=logger)
        if info is not None:
            servers.append(info.server)
    bad = [s for s in servers if not is_loopback(s)]
    return bad[0] if bad else (servers[0] if servers else "")


def _run(make: Callable[[], Any]) -> Any:
    """Run a coroutine to completion in a thread of its own (the caller may be inside an event loop)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(make())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


CLIENTS: dict[str, tuple[str, Callable[[], str]]] = {
    "kubernetes": ("kubernetes", lambda: _kubernetes("kubernetes")),
    "kubernetes_asyncio": ("kubernetes_asyncio", lambda: _kubernetes("kubernetes_asyncio")),
    "lightkube": ("lightkube", _lightkube),
    "kr8s": ("kr8s", _kr8s),
    "kopf": ("kopf", _kopf),
}


def resolved_servers() -> dict[str, str]:
    """Where each installed client would connect now (its server URL, or ``<error>`` when it cannot load a
    configuration), by client name."""
    servers = {}
    for name, (module, resolve) in CLIENTS.items():
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        try:
            servers[name] = resolve()
        except Exception as exc:  # noqa: BLE001 - a client that cannot load its config connects nowhere
            servers[name] = f"<{type(exc).__name__}: {exc}>"
    return servers


def _kubeconfig_servers(kubeconfig: Path) -> list[str]:
    document = yaml.safe_load(kubeconfig.read_text()) or {}
    return [c.get("cluster", {}).get("server", "") for c in document.get("clusters") or []]


@contextmanager
def only_fake_cluster(kubeconfig: str | Path) -> Iterator[dict[str, str]]:
    """Within the block every installed client resolves to ``kubeconfig``'s loopback server; yields
    ``resolved_servers()``. Raises :class:`NotLoopback` (before any client connects) otherwise."""
    import pytest

    path = Path(kubeconfig).resolve()
    bad = [s for s in _kubeconfig_servers(path) if not is_loopback(s)]
    if bad:
        raise NotLoopback(f"{path} names a server that is not loopback: {bad}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KUBECONFIG", str(path))
        for name in IN_CLUSTER_VARS:
            patch.delenv(name, raising=False)
        for module in DEFAULT_LOCATIONS:
            try:
                patch.setattr(importlib.import_module(module), "KUBE_CONFIG_DEFAULT_LOCATION", str(path))
            except (ImportError, AttributeError):
                continue
        servers = resolved_servers()
        bad = {name: server for name, server in servers.items() if not is_loopback(server)}
        if bad:
            raise NotLoopback(f"clients would connect beyond loopback: {bad} (KUBECONFIG={path}; "
                              f"in-cluster credentials at /var/run/secrets/kubernetes.io/serviceaccount?)")
        yield servers


@contextmanager
def fresh_kopf_registry() -> Iterator[None]:
    """kopf's default registry, fresh for the block, then the previous one again.

    ``kopf run`` imports the operator file, whose decorators add handlers to the process-wide default registry;
    under KopfRunner, a second test's operator would also run the first test's handlers, and a handler with the
    same name (``reconcile``) would count as already done. A fresh registry of the default's own type keeps
    kopf's built-in login handlers. Without kopf installed it does nothing."""
    try:
        import kopf
    except ImportError:
        yield
        return
    previous = kopf.get_default_registry()
    kopf.set_default_registry(type(previous)())
    try:
        yield
    finally:
        kopf.set_default_registry(previous)
