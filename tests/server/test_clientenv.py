"""``only_fake_cluster``: every installed Python client resolves to the fake's loopback server, even with a decoy
``~/.kube/config`` naming a real-looking cluster, and a non-loopback kubeconfig is refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fakekube.server.clientenv import NotLoopback, is_loopback, only_fake_cluster, resolved_servers
from fakekube.server.kubeconfig import write_kubeconfig

DECOY = "https://203.0.113.7:6443"           # TEST-NET-3: never routable


@pytest.fixture
def decoy_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME with a ~/.kube/config pointing at a non-loopback server, and in-cluster variables set."""
    home = tmp_path / "home"
    write_kubeconfig(home / ".kube" / "config", DECOY)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "203.0.113.7")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "6443")
    return home


def test_clients_resolve_to_the_fake_despite_a_decoy_home(decoy_home: Path, tmp_path: Path) -> None:
    # Without the guard the clients read the decoy (the official client's import-time default is
    # ~/.kube/config unless KUBECONFIG was set when it was imported; kubernetes_asyncio expanded ~ at import,
    # so it would read the HOME of the process's start, a developer's own config).
    import kubernetes.config.kube_config as kc
    if kc.KUBE_CONFIG_DEFAULT_LOCATION == "~/.kube/config":
        before = resolved_servers()
        assert {before[c] for c in ("kubernetes", "lightkube", "kr8s", "kopf")} == {DECOY}, before
    fake = write_kubeconfig(tmp_path / "fake-kubeconfig", "http://127.0.0.1:45678")
    with only_fake_cluster(fake) as servers:
        assert set(servers) >= {"kubernetes", "kubernetes_asyncio", "lightkube", "kr8s", "kopf"}
        assert set(servers.values()) == {"http://127.0.0.1:45678"}, servers
        assert os.environ["KUBECONFIG"] == str(fake.resolve())
        assert "KUBERNETES_SERVICE_HOST" not in os.environ
    assert os.environ["KUBERNETES_SERVICE_HOST"] == "203.0.113.7"        # restored on exit


def test_a_non_loopback_kubeconfig_is_refused(tmp_path: Path) -> None:
    remote = write_kubeconfig(tmp_path / "kc", DECOY)
    with pytest.raises(NotLoopback, match="203.0.113.7"), only_fake_cluster(remote):
        pass


@pytest.mark.parametrize(("url", "loopback"), [
    ("http://127.0.0.1:1", True), ("https://127.9.9.9", True), ("http://[::1]:8", True),
    ("http://localhost:3", True), ("https://203.0.113.7:6443", False), ("https://kubernetes.default.svc", False),
    ("", False)])
def test_is_loopback(url: str, loopback: bool) -> None:
    assert is_loopback(url) is loopback


def test_fresh_kopf_registry_is_fresh_keeps_logins_and_is_restored() -> None:
    kopf = pytest.importorskip("kopf")
    from fakekube.server.clientenv import fresh_kopf_registry

    before = kopf.get_default_registry()
    with fresh_kopf_registry():
        fresh = kopf.get_default_registry()
        assert fresh is not before and type(fresh) is type(before)

        @kopf.on.create("configmaps")
        def reconcile(**_: object) -> None: ...

        assert fresh._changing.get_all_handlers()                       # registered into the fresh one
        assert fresh._activities.get_all_handlers()                     # kopf's built-in login handlers
    assert kopf.get_default_registry() is before
    assert all(h.fn is not reconcile for h in before._changing.get_all_handlers())
