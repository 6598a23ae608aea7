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

    served = kube_server_factory(tls=True, tokens={"t": "admin"})
    ctx = ssl.create_default_context(cadata=served.server.ca_pem.decode())
    parts = urlsplit(served.url)
    raw = socket.create_connection((parts.hostname, parts.port))
    conn = ctx.wrap_socket(raw, server_hostname=parts.hostname)
    conn.sendall(b"GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n"
                 b"Authorization: Bearer t\r\n\r\n")
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
    ping.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n")
    assert ping.recv(1024).startswith(b"HTTP/1.1 200")
    ping.close()
    silent.close()


def _tls_client(served):
    import socket
    import ssl
    from urllib.parse import urlsplit

    ctx = ssl.create_default_context(cadata=served.server.ca_pem.decode())
    parts = urlsplit(served.url)
    # Ragged EOFs not suppressed: a close without close_notify raises SSLEOFError.
    return ctx.wrap_socket(socket.create_connection((parts.hostname, parts.port), timeout=10),
                           server_hostname=parts.hostname, suppress_ragged_eofs=False)


def _read_to_eof(conn) -> bytes:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


def test_the_server_closes_tls_connections_with_close_notify(kube_server_factory):
    served = kube_server_factory(tls=True, tokens={"t": "admin"})
    conn = _tls_client(served)
    conn.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n")
    assert _read_to_eof(conn).startswith(b"HTTP/1.1 200")
    conn.unwrap()  # succeeds only once the server's close_notify has arrived
    conn.close()
    # The same after an answer the server closes the connection on (a bad request) and after an idle timeout.
    conn = _tls_client(served)
    conn.sendall(b"BOGUS\r\n\r\n")
    assert _read_to_eof(conn).startswith(b"HTTP/1.1 400")
    conn.unwrap()
    conn.close()
    served.server.idle_timeout = 0.2
    conn = _tls_client(served)
    conn.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n")
    assert _read_to_eof(conn).startswith(b"HTTP/1.1 200")
    conn.unwrap()
    conn.close()


def test_a_closed_tls_watch_client_is_noticed_at_once(kube_server_factory):
    import time

    served = kube_server_factory(tls=True, tokens={"t": "admin"}, poll_interval=30.0)
    conn = _tls_client(served)
    conn.sendall(b"GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n"
                 b"Authorization: Bearer t\r\n\r\n")
    assert conn.recv(1024).startswith(b"HTTP/1.1 200")
    time.sleep(0.05)
    conn.unwrap()  # the client's close_notify
    conn.close()
    deadline = time.monotonic() + 1.0
    while served.store.hub.watcher_count() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert served.store.hub.watcher_count() == 0


# -- client certificates ----------------------------------------------------------------------------------------


def _self_subject(served, **tls) -> tuple[int, dict]:
    import http.client
    import ssl
    from urllib.parse import urlsplit

    ctx = ssl.create_default_context(cadata=served.server.ca_pem.decode())
    if tls:
        ctx.load_cert_chain(tls["cert"], tls["key"])
    parts = urlsplit(served.url)
    conn = http.client.HTTPSConnection(parts.hostname, parts.port, context=ctx, timeout=10)
    try:
        conn.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", body="{}",
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_tls_without_a_token_authenticates_kubectl_with_the_admin_certificate(kube_server_factory):
    served = kube_server_factory(tls=True)
    user = json.loads(served.kubeconfig.read_text())["users"][0]["user"]
    assert set(user) == {"client-certificate-data", "client-key-data"}  # not {}: kubectl would prompt
    listed = _kubectl(served, "get", "cm")
    assert listed.returncode == 0, listed.stderr
    me = subprocess.run([shutil.which("kubectl"), "create", "-f", "-", "-o", "json"], capture_output=True,
                        text=True, timeout=60, env=served.env,
                        input=json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}))
    assert me.returncode == 0, me.stderr
    info = json.loads(me.stdout)["status"]["userInfo"]
    # kubeadm's (and kind's) admin.conf identity since Kubernetes 1.29.
    assert (info["username"], info["groups"]) == ("kubernetes-admin", ["kubeadm:cluster-admins", "system:authenticated"])
    assert info["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("X509SHA256=")


def test_certificates_signed_by_the_server_ca_name_their_user(kube_server_factory, tmp_path):
    served = kube_server_factory(tls=True, token="tok")
    cert, key = served.server.certificates.issue_client("alice", ("dev", "qa"))
    (tmp_path / "alice.crt").write_bytes(cert)
    (tmp_path / "alice.key").write_bytes(key)
    status, body = _self_subject(served, cert=tmp_path / "alice.crt", key=tmp_path / "alice.key")
    assert status == 201
    assert body["status"]["userInfo"]["groups"] == ["dev", "qa", "system:authenticated"]
    # Token auth stays: without a certificate the static token is required.
    assert _self_subject(served)[0] == 401
    # A certificate from another CA is refused at the handshake.
    import ssl

    from fakekube.server.tls import make_certificates

    foreign = make_certificates()
    (tmp_path / "f.crt").write_bytes(foreign.client_cert_pem)
    (tmp_path / "f.key").write_bytes(foreign.client_key_pem)
    with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
        _self_subject(served, cert=tmp_path / "f.crt", key=tmp_path / "f.key")


def test_kubectl_auth_whoami_names_the_certificate_user(kube_server_factory):
    import importlib.util

    if importlib.util.find_spec("fakekube.server.protobuf") is None:
        pytest.skip("kubectl auth whoami sends a protobuf body, decoded once fakekube.server.protobuf is in")
    served = kube_server_factory(tls=True)
    whoami = _kubectl(served, "auth", "whoami")
    assert whoami.returncode == 0, whoami.stderr
    assert "kubernetes-admin" in whoami.stdout and "kubeadm:cluster-admins" in whoami.stdout
