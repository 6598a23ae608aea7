"""``--authorization-mode RBAC`` over HTTPS: who gets what, with kubeadm's admin binding and the bootstrap
policy (fakekube.server.rbacmode.rbac_options; semantics in tests/test_rbac_authorizer.py)."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakekube.cluster.rbac import bootstrap_rbac
from fakekube.server.app import ApiServer
from fakekube.server.kubeconfig import write_kubeconfig
from fakekube.server.rbacmode import rbac_options
from fakekube.store import Store

pytest.importorskip("cryptography")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ApiServer]:
    store = Store()
    bootstrap_rbac(store)
    server = ApiServer(store, tls=True, **rbac_options(store, "s3cret")).start()
    try:
        yield server
    finally:
        server.stop()


def _context(server: ApiServer, user: str | None = None, groups: tuple[str, ...] = ()) -> ssl.SSLContext:
    certs = server.certificates
    assert certs is not None
    context = ssl.create_default_context(cadata=certs.ca_pem.decode())
    if user is not None:
        cert, key = certs.issue_client(user, groups)
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "c").write_bytes(cert)
            (Path(tmp) / "k").write_bytes(key)
            context.load_cert_chain(Path(tmp) / "c", Path(tmp) / "k")
    return context


def _get(server: ApiServer, path: str, context: ssl.SSLContext, token: str | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(server.url + path, headers=headers)
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_admins_may_everything_and_others_what_they_are_bound_to(served: ApiServer) -> None:
    assert _get(served, "/api/v1/secrets", _context(served, "kubernetes-admin", ("kubeadm:cluster-admins",)))[0] \
        == 200
    assert _get(served, "/api/v1/secrets", _context(served), token="s3cret")[0] == 200
    status, body = _get(served, "/api/v1/namespaces/default/secrets", _context(served, "alice", ("dev",)))
    assert status == 403
    assert body["message"] == ('secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" '
                               'in the namespace "default"')
    # system:discovery and system:public-info-viewer: every authenticated user reads discovery and the version.
    assert _get(served, "/apis", _context(served, "alice", ("dev",)))[0] == 200
    # With a static token, a request without credentials is a 401 (docs/http/auth.md).
    assert _get(served, "/version", _context(served))[0] == 401


def test_anonymous_gets_what_system_unauthenticated_is_granted() -> None:
    store = Store()
    bootstrap_rbac(store)
    server = ApiServer(store, tls=True, **rbac_options(store, None)).start()
    try:
        assert _get(server, "/version", _context(server))[0] == 200  # system:public-info-viewer
        status, body = _get(server, "/api/v1/namespaces", _context(server))
        assert status == 403 and body["message"].startswith('namespaces is forbidden: User "system:anonymous"')
    finally:
        server.stop()


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_auth_can_i_asks_rbac(served: ApiServer, tmp_path: Path) -> None:
    kubeconfig = served.write_kubeconfig(tmp_path / "kubeconfig")

    def can_i(*args: str) -> str:
        done = subprocess.run(["kubectl", "--kubeconfig", str(kubeconfig), "auth", "can-i", *args],
                              capture_output=True, text=True, timeout=60)
        return done.stdout.strip()

    assert can_i("delete", "nodes") == "yes"  # the token's admin is in system:masters
    certs = served.certificates
    assert certs is not None
    alice = write_kubeconfig(tmp_path / "alice", served.url, ca_pem=certs.ca_pem,
                             client_certificate=certs.issue_client("alice", ("dev",)))
    kubeconfig = alice
    assert can_i("list", "pods") == "no"
    assert can_i("get", "/version") == "yes"  # a non-resource URL: system:public-info-viewer


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_as_impersonates(served: ApiServer, tmp_path: Path) -> None:
    """``kubectl --as`` sends the impersonation headers (fakekube.server.impersonation): the admin may; the
    impersonated user is then authorized as itself."""
    kubeconfig = served.write_kubeconfig(tmp_path / "kubeconfig")

    def kubectl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["kubectl", "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True,
                              timeout=60)

    refused = kubectl("--as", "bob", "get", "pods", "-n", "default")
    assert refused.returncode != 0
    assert ('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"'
            in refused.stderr)
    assert kubectl("--as", "bob", "--as-group", "system:masters", "get", "namespace", "default").returncode == 0
    whoami = kubectl("--as", "bob", "--as-group", "dev", "auth", "whoami", "-o", "json")
    assert json.loads(whoami.stdout)["status"]["userInfo"] == {"username": "bob",
                                                               "groups": ["dev", "system:authenticated"]}
    assert kubectl("auth", "can-i", "list", "pods", "--as", "bob").stdout.strip() == "no"
