"""The official client's exec, attach and port-forward (websocket-client) in process: the same answers as over
HTTP, no internet socket, the guard still on, no thread left behind."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from fakekube.inprocess import mock_kubernetes
from fakekube.inprocess.guard import NetworkBlocked
from fakekube.pods.portforward import PortConnection
from fakekube.store import Store
from tests.server.test_pod_exec import run_pod

kubernetes = pytest.importorskip("kubernetes")
websocket = pytest.importorskip("websocket")
from kubernetes import client  # noqa: E402
from kubernetes.stream import portforward, stream  # noqa: E402
from kubernetes.stream.ws_client import ERROR_CHANNEL  # noqa: E402


def _threads() -> set[int | None]:
    return {t.ident for t in threading.enumerate()}


def _threads_back_to(before: set[int | None], bound: float = 5.0) -> set[int | None]:
    """The threads once they are back to ``before``, or after ``bound`` seconds: the official client's own
    port-forward proxy thread (``PortForward._proxy``) ends on its own shortly after the connection closes, with
    nothing to join it by; fakekube's session threads are joined when the client closes."""
    deadline = time.monotonic() + bound
    while (now := _threads()) != before and time.monotonic() < deadline:
        time.sleep(0.01)
    return now


def _core(url: str) -> client.CoreV1Api:
    return client.CoreV1Api(client.ApiClient(client.Configuration(host=url)))


def _exec(core: client.CoreV1Api, command: list[str], pod: str = "p1", **kw: Any) -> Any:
    options = {"stderr": True, "stdin": False, "stdout": True, "tty": False, **kw}
    return stream(core.connect_get_namespaced_pod_exec, pod, "default", command=command, **options)


def test_exec_output_exit_code_stdin_tty_and_attach(inet_sockets: list[int]) -> None:
    before = _threads()
    store = Store()
    run_pod(store)
    with mock_kubernetes(store) as cluster:
        core = _core(cluster.url)
        assert _exec(core, ["sh", "-c", "echo out; echo err >&2"]) == "out\nerr\n"
        resp = _exec(core, ["sh", "-c", "echo bad >&2; exit 7"], _preload_content=False)
        resp.run_forever(timeout=5)
        assert (resp.returncode, resp.read_stderr()) == (7, "bad\n")
        resp = _exec(core, ["cat"], stdin=True, _preload_content=False)
        resp.write_stdin("typed\n")
        assert resp.readline_stdout(timeout=5) == "typed"
        resp.close_channel(0)  # v5: the end of stdin ends cat
        resp.run_forever(timeout=5)
        assert resp.returncode == 0
        resp = _exec(core, ["sh"], stdin=True, tty=True, _preload_content=False)
        resp.write_stdin("echo hi\r")
        resp.write_stdin("exit 3\r")
        resp.run_forever(timeout=5)
        out = resp.read_stdout()
        assert out.startswith("# ") and "\r\nhi\r\n" in out and resp.returncode == 3
        resp = stream(core.connect_get_namespaced_pod_attach, "p1", "default", container="c", stdout=True,
                      stderr=True, stdin=False, tty=False, _preload_content=False)
        assert resp.is_open()
        resp.close()
    assert inet_sockets == []
    assert _threads_back_to(before) == before


def test_port_forward_to_the_built_in_nginx_and_a_handler(inet_sockets: list[int]) -> None:
    before = _threads()
    store = Store()
    run_pod(store, image="nginx:1.27")

    def echo_upper(conn: PortConnection) -> None:
        while data := conn.recv():
            conn.send(data.upper())
            if data.endswith(b"\n"):
                return

    store.on_port_forward(echo_upper, port=7000, pod="p1")
    with mock_kubernetes(store) as cluster:
        core = _core(cluster.url)
        for port, request, expected in ((80, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                         b"Welcome to nginx!"),
                                        (7000, b"hello\n", b"HELLO\n")):
            pf = portforward(core.connect_get_namespaced_pod_portforward, "p1", "default", ports=str(port))
            sock = pf.socket(port)
            sock.setblocking(True)
            sock.sendall(request)
            answer = b""
            while chunk := sock.recv(65536):  # the handler's end ends the stream: the end of the data
                answer += chunk
            assert expected in answer
            pf.close()
            deadline = time.monotonic() + 5
            while pf.connected and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not pf.connected
    assert inet_sockets == []
    assert _threads_back_to(before) == before


def _reason(exc: Any) -> str:
    return re.sub(r"'audit-id': '[^']*'", "'audit-id': ID", exc.reason)


def test_refusals_are_the_same_as_over_http(kube_server_factory: Callable[..., Any]) -> None:
    store = Store()
    run_pod(store)
    run_pod(store, "stopped", running=False)
    run_pod(store, "two", containers=("a", "b"))
    cases: list[tuple[list[str], str, dict[str, Any]]] = [
        (["ls"], "nosuch", {}),
        (["ls"], "p1", {"container": "nope"}),
        (["ls"], "two", {}),
    ]

    def answers(url: str) -> list[Any]:
        core = _core(url)
        got: list[Any] = []
        for command, pod, extra in cases:
            with pytest.raises(client.ApiException) as refused:
                _exec(core, command, pod, **extra)
            got.append((refused.value.status, _reason(refused.value)))
        # the kubelet's refusals reach a v5 client on the error channel, after the upgrade
        for pod, streams in (("stopped", {}), ("p1", {"stdout": False, "stderr": False})):
            resp = _exec(core, ["ls"], pod, _preload_content=False, **streams)
            resp.run_forever(timeout=5)
            got.append(resp.read_channel(ERROR_CHANNEL))
        return got

    over_http = answers(kube_server_factory(store).url)
    with mock_kubernetes(store) as cluster:
        in_process = answers(cluster.url)
    assert in_process == over_http
    assert over_http[0][0] == 0 and "Handshake status 404 Not Found" in over_http[0][1]
    assert "unable to upgrade connection: container not found" in over_http[3]


def test_the_guard_still_refuses_and_connect_is_restored() -> None:
    original = websocket.WebSocket.connect
    with mock_kubernetes():
        assert websocket.WebSocket.connect is not original
        with pytest.raises(NetworkBlocked):
            websocket.create_connection("ws://127.0.0.1:9/", timeout=1)
    assert websocket.WebSocket.connect is original


def test_a_stream_still_open_ends_with_the_block() -> None:
    before = _threads()
    store = Store()
    run_pod(store)
    with mock_kubernetes(store) as cluster:
        resp = _exec(_core(cluster.url), ["sleep", "3600"], _preload_content=False)
        assert resp.is_open()
    assert _threads_back_to(before) == before


def test_a_port_forward_still_open_ends_as_a_hang_up(recwarn: pytest.WarningsRecorder) -> None:
    """The client's proxy thread reads the end of the stream (no error in it) when the block ends first."""
    store = Store()
    run_pod(store, image="nginx:1.27")
    with mock_kubernetes(store) as cluster:
        pf = portforward(_core(cluster.url).connect_get_namespaced_pod_portforward, "p1", "default", ports="80")
    deadline = time.monotonic() + 5
    while pf.connected and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not pf.connected
    proxies = [t for t in threading.enumerate() if t.name.startswith("Kubernetes port forward proxy")]
    for t in proxies:
        t.join(5)
    assert [w for w in recwarn if "Thread" in type(w.message).__name__] == []
