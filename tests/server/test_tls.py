"""TLS (a throwaway CA): kubectl sends its token only over TLS, so this is how kubectl meets 401 and 403."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

pytest.importorskip("cryptography")

from fakekube.server import RequestAttributes  # noqa: E402


def _kubectl(served, *args):
    binary = shutil.which("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed")
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60, env=served.env)


def _no_writes_for_viewer(attrs: RequestAttributes) -> bool:
    return attrs.user == "admin" or attrs.verb in ("get", "list", "watch")


def test_kubectl_over_tls_with_token_and_rbac(kube_server_factory, tmp_path):
    served = kube_server_factory(tls=True, tokens={"t-admin": "admin", "t-view": "viewer"},
                                 authorizer=_no_writes_for_viewer)
    assert served.url.startswith("https://127.0.0.1:")
    config = json.loads(served.kubeconfig.read_text())
    assert config["clusters"][0]["cluster"]["certificate-authority-data"]
    cm = tmp_path / "cm.json"
    cm.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}))
    ok = _kubectl(served, "--token", "t-admin", "create", "-f", str(cm))
    assert ok.returncode == 0, ok.stderr
    denied = _kubectl(served, "--token", "t-view", "delete", "cm", "c")
    assert denied.returncode != 0
    assert 'Error from server (Forbidden): configmaps "c" is forbidden: User "viewer" cannot delete' in denied.stderr
    assert _kubectl(served, "--token", "t-view", "get", "cm", "c").returncode == 0
    unauthenticated = _kubectl(served, "--token", "wrong", "get", "cm")
    assert unauthenticated.returncode != 0
    assert "You must be logged in to the server" in unauthenticated.stderr


def test_python_client_over_tls(kube_server_factory):
    pytest.importorskip("kubernetes")
    from kubernetes import client, config

    served = kube_server_factory(tls=True, token="tok")
    api = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        core = client.CoreV1Api(api)
        core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="t")))
        assert [c.metadata.name for c in core.list_namespaced_config_map("default").items] == ["t"]
    finally:
        api.close()


def test_tls_watch_client_disconnect_frees_the_stream(kube_server_factory):
    import socket
    import ssl
    import time
    from urllib.parse import urlsplit

    served = kube_server_factory(tls=True)
    ctx = ssl.create_default_context(cadata=served.server.ca_pem.decode())
    parts = urlsplit(served.url)
    raw = socket.create_connection((parts.hostname, parts.port))
    conn = ctx.wrap_socket(raw, server_hostname=parts.hostname)
    conn.sendall(b"GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
    assert conn.recv(1024).startswith(b"HTTP/1.1 200")
    assert served.store.hub.watcher_count() == 1
    conn.close()
    deadline = time.monotonic() + 5
    while served.store.hub.watcher_count() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert served.store.hub.watcher_count() == 0
    # A client that connects and never handshakes blocks nobody.
    silent = socket.create_connection((parts.hostname, parts.port))
    ping = ctx.wrap_socket(socket.create_connection((parts.hostname, parts.port)), server_hostname=parts.hostname)
    ping.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert ping.recv(1024).startswith(b"HTTP/1.1 200")
    ping.close()
    silent.close()
