"""pods/portforward over WebSocket: the official client and kr8s, the raw channel pairs, handlers and refusals."""

from __future__ import annotations

import socket
import threading
from typing import Any
from urllib.parse import urlencode

import pytest
import websocket
from kubernetes import client as k8s
from kubernetes.stream import portforward

from fakekube.pods.portforward import PortConnection, forward_to
from fakekube.server.fixtures import KubeServer
from fakekube.store import Store
from tests.server.test_pod_exec import run_pod


@pytest.fixture
def kube_server(either_front: Any) -> Any:
    """Every test here that takes ``kube_server`` runs over HTTP and in process, where websocket-client's
    connection is in memory (tests/server/conftest.py ``either_front``; fakekube/inprocess/websocket_transport.py)."""
    return either_front


def pf_url(server: KubeServer, ports: str, name: str = "p1") -> str:
    return (server.url.replace("http", "ws", 1)
            + f"/api/v1/namespaces/default/pods/{name}/portforward?{urlencode({'ports': ports})}")


def http_get(sock: Any, path: str = "/") -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_official_client_reaches_the_built_in_nginx(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube, image="nginx:1.27")
    core = k8s.CoreV1Api(k8s.ApiClient(k8s.Configuration(host=kube_server.url)))
    pf = portforward(core.connect_get_namespaced_pod_portforward, "p1", "default", ports="80")
    sock = pf.socket(80)
    sock.setblocking(True)
    answer = http_get(sock)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and b"Welcome to nginx!" in answer
    sock.close()
    pf.close()


def test_channel_pairs_port_prefix_and_a_registered_handler(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)

    def echo_upper(conn: PortConnection) -> None:
        while data := conn.recv():
            conn.send(data.upper())
            if data.endswith(b"\n"):
                return

    kube.on_port_forward(echo_upper, port=7000, pod="p1")
    ws = websocket.create_connection(pf_url(kube_server, "7000"), subprotocols=["v4.channel.k8s.io"], timeout=5)
    assert ws.subprotocol == "v4.channel.k8s.io"
    port = (7000).to_bytes(2, "little")
    assert ws.recv() == b"\x00" + port and ws.recv() == b"\x01" + port  # data, then error channel
    ws.send_binary(b"\x00hello\n")
    assert ws.recv() == b"\x00HELLO\n"
    opcode, _ = ws.recv_data(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE  # every port's connection ended: the stream ends
    ws.close()


def test_nothing_listening_is_refused_on_the_error_channel(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)  # busybox declares no port
    ws = websocket.create_connection(pf_url(kube_server, "81"), timeout=5)
    ws.recv()
    ws.recv()
    error = ws.recv()
    assert error[:1] == b"\x01" and b"error forwarding port 81 to pod" in error and b"connection refused" in error
    ws.close()


def test_forward_to_a_real_address(kube: Store, kube_server_factory: Any) -> None:
    """Over HTTP only: in process no socket may connect."""
    run_pod(kube)
    kube_server = kube_server_factory(kube)
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(b"real:" + conn.recv(100))

    threading.Thread(target=serve, daemon=True).start()
    kube.on_port_forward(forward_to("127.0.0.1", listener.getsockname()[1]), port=5432)
    ws = websocket.create_connection(pf_url(kube_server, "5432"), timeout=5)
    ws.recv()
    ws.recv()
    ws.send_binary(b"\x00ping")
    assert ws.recv() == b"\x00real:ping"
    ws.close()
    listener.close()


def test_refusals(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    base = kube_server.url.replace("http", "ws", 1) + "/api/v1/namespaces/default/pods/p1/portforward"
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(base, timeout=5)
    assert (refused.value.status_code, refused.value.resp_body) == (400, b'query parameter "port" is required')
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(pf_url(kube_server, "0"), timeout=5)
    assert refused.value.resp_body == b'port "0" must be > 0'
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(pf_url(kube_server, "80"), subprotocols=["v5.channel.k8s.io"], timeout=5)
    assert refused.value.status_code == 403  # the kubelet's port-forward speaks v4 and older only


def test_server_stop_ends_port_forwards_and_leaves_no_thread(kube: Store, kube_server_factory: Any) -> None:
    run_pod(kube)
    served = kube_server_factory(kube)

    def hold(conn: PortConnection) -> None:
        conn.recv()  # until the client or the server goes

    kube.on_port_forward(hold)
    before = {t.ident for t in threading.enumerate()}
    ws = websocket.create_connection(pf_url(served, "9000"), timeout=5)
    ws.recv()
    served.server.stop()
    assert [t for t in threading.enumerate() if t.ident not in before and t.is_alive()] == []
    ws.close()
