"""pods/exec and pods/attach over WebSocket, through the real clients and the raw channel protocols."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from typing import Any
from urllib.parse import urlencode

import pytest
import websocket  # websocket-client, the official client's transport
from kubernetes import client as k8s
from kubernetes.stream import stream

from fakekube.server.fixtures import KubeServer
from fakekube.store import Store

RUNNING = {"running": {"startedAt": "2026-01-01T00:00:00Z"}}


def run_pod(store: Store, name: str = "p1", containers: tuple[str, ...] = ("c",), running: bool = True,
            image: str = "busybox", **spec: Any) -> None:
    if not any(n["metadata"]["name"] == "n1" for n in store.objects("nodes")):
        store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
        node = store.get("nodes", "n1")
        node["status"] = {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}
        store.update("nodes", node, subresource="status")
    store.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                          "spec": {"nodeName": "n1", "containers": [{"name": c, "image": image}
                                                                   for c in containers], **spec}}, "default")
    if running:
        pod = store.get("pods", name, "default")
        pod["status"] = {"phase": "Running", "containerStatuses": [
            {"name": c, "ready": True, "restartCount": 0, "image": "busybox", "imageID": "", "state": RUNNING}
            for c in containers]}
        store.update("pods", pod, "default", subresource="status")


@pytest.fixture
def kube_server(either_front: Any) -> Any:
    """Every test here that takes ``kube_server`` runs over HTTP and in process, where websocket-client's
    connection is in memory (tests/server/conftest.py ``either_front``; fakekube/inprocess/websocket_transport.py)."""
    return either_front


@pytest.fixture
def core(kube_server: KubeServer) -> k8s.CoreV1Api:
    conf = k8s.Configuration(host=kube_server.url)
    return k8s.CoreV1Api(k8s.ApiClient(conf))


def exec_until_the_client_leaves(store: Store) -> threading.Event:
    """Every exec writes "started" and waits for its client to leave; the event is set once it saw that."""
    gone = threading.Event()

    def waits(proc: Any) -> int:
        proc.stdout("started\n")
        proc.gone.wait(10)
        gone.set()
        return 0

    store.on_exec(waits)
    return gone


def ws_url(server: KubeServer, query: str, name: str = "p1", sub: str = "exec") -> str:
    encoded = urlencode([tuple(pair.split("=", 1)) for pair in query.split("&")])
    return server.url.replace("http", "ws", 1) + f"/api/v1/namespaces/default/pods/{name}/{sub}?{encoded}"


def frames(ws: websocket.WebSocket) -> list[Any]:
    """Every data message until the server closes."""
    out = []
    while True:
        opcode, data = ws.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            ws.close()
            return out
        out.append(data.decode() if opcode == websocket.ABNF.OPCODE_TEXT else data)


def test_official_client_exec_output_stdin_and_returncode(kube: Store, kube_server: KubeServer,
                                                          core: k8s.CoreV1Api) -> None:
    run_pod(kube)
    out = stream(core.connect_get_namespaced_pod_exec, "p1", "default", command=["sh", "-c", "echo out; echo err >&2"],
                 stderr=True, stdin=False, stdout=True, tty=False)
    assert out == "out\nerr\n"
    resp = stream(core.connect_get_namespaced_pod_exec, "p1", "default", command=["sh", "-c", "exit 7"],
                  stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
    resp.run_forever(timeout=5)
    assert resp.returncode == 7
    resp = stream(core.connect_get_namespaced_pod_exec, "p1", "default", command=["cat"], stderr=True, stdin=True,
                  stdout=True, tty=False, _preload_content=False)
    resp.write_stdin("typed\n")
    deadline = time.monotonic() + 5
    got = ""
    while "typed" not in got and time.monotonic() < deadline:
        resp.update(timeout=0.2)
        got += resp.read_stdout() or ""
    resp.close()
    assert got == "typed\n"


def test_v5_close_signal_ends_stdin_and_status_is_the_translators(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    ws = websocket.create_connection(ws_url(kube_server, "command=sh&command=-c&command=cat;exit 3&stdin=1&stdout=1"),
                                     subprotocols=["v5.channel.k8s.io", "v4.channel.k8s.io"], timeout=5)
    assert ws.subprotocol == "v5.channel.k8s.io"
    ws.send_binary(b"\x00hello")
    ws.send_binary(b"\xff\x00")  # v5: close stdin
    got = frames(ws)
    assert got[0] == b"\x01"  # the first message is an empty one on stdout
    assert b"".join(f[1:] for f in got if f[:1] == b"\x01") == b"hello"
    status = json.loads(got[-1][1:])
    assert got[-1][:1] == b"\x03"
    assert status == {"metadata": {}, "status": "Failure", "reason": "NonZeroExitCode",
                      "message": "command terminated with non-zero exit code: command terminated with exit code 3",
                      "details": {"causes": [{"reason": "ExitCode", "message": "3"}]}}


def test_v4_and_base64_protocols_as_the_kubelet_writes_them(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    query = "command=sh&command=-c&command=echo hi; exit 2&stdout=1"
    ws = websocket.create_connection(ws_url(kube_server, query), subprotocols=["v4.channel.k8s.io"], timeout=5)
    got = frames(ws)
    assert got[1] == b"\x01hi\n"
    assert json.loads(got[-1][1:]) == {
        "status": "Failure", "reason": "NonZeroExitCode",
        "message": "command terminated with non-zero exit code: error executing command [sh -c echo hi; exit 2], "
                   "exit code 2",
        "details": {"causes": [{"reason": "ExitCode", "message": "2"}]}}
    ws = websocket.create_connection(ws_url(kube_server, "command=echo&command=b64&stdout=1"),
                                     subprotocols=["base64.channel.k8s.io"], timeout=5)
    got = frames(ws)
    assert got[1] == "1" + base64.b64encode(b"b64\n").decode()  # text frames: '0'+channel, base64 data
    assert len(got) == 2  # the older protocols send nothing on success


def test_refusals(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    run_pod(kube, "stopped", running=False)
    run_pod(kube, "two", containers=("a", "b"))
    url = ws_url(kube_server, "command=ls&stdout=1")
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(url, subprotocols=["nosuch.k8s.io"], timeout=5)
    assert refused.value.status_code == 403  # x/net/websocket's bare 403 for an unknown subprotocol
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(ws_url(kube_server, "command=ls"), subprotocols=["v4.channel.k8s.io"], timeout=5)
    assert refused.value.status_code == 400
    assert refused.value.resp_body == b"you must specify at least 1 of stdin, stdout, stderr"
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(ws_url(kube_server, "command=ls&stdout=1", "stopped"),
                                    subprotocols=["v4.channel.k8s.io"], timeout=5)
    assert (refused.value.status_code, refused.value.resp_body) == (500, b'container not found ("c")')
    # v5 upgrades first; the kubelet's refusal comes on the error channel
    ws = websocket.create_connection(ws_url(kube_server, "command=ls&stdout=1", "stopped"),
                                     subprotocols=["v5.channel.k8s.io"], timeout=5)
    status = json.loads(frames(ws)[-1][1:])
    assert status["reason"] == "InternalError" and status["code"] == 500
    assert status["message"] == 'Internal error occurred: unable to upgrade connection: container not found ("c")'
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(ws_url(kube_server, "command=ls&stdout=1", "two"),
                                    subprotocols=["v5.channel.k8s.io"], timeout=5)
    assert refused.value.status_code == 400
    assert json.loads(refused.value.resp_body)["message"] == (
        "a container name must be specified for pod two, choose one of: [a b]")


def test_a_plain_post_needs_an_upgrade(kube: Store, kube_server: KubeServer, core: k8s.CoreV1Api) -> None:
    run_pod(kube)
    with pytest.raises(k8s.ApiException) as refused:
        core.connect_post_namespaced_pod_exec("p1", "default", command=["ls"], stdout=True)
    assert refused.value.status == 400 and json.loads(refused.value.body)["message"] == "Upgrade request required"


def test_handler_registered_on_the_store(kube: Store, kube_server: KubeServer, core: k8s.CoreV1Api) -> None:
    run_pod(kube)
    seen: list[list[str]] = []

    def psql(proc: Any) -> int:
        seen.append(proc.command)
        proc.stdout(" ?column? \n----------\n        1\n")
        return 0

    kube.on_exec(psql, pod="p1", container="c")
    out = stream(core.connect_get_namespaced_pod_exec, "p1", "default", command=["psql", "-c", "select 1"],
                 stderr=True, stdin=False, stdout=True, tty=False)
    assert "1" in out and seen == [["psql", "-c", "select 1"]]


def test_server_stop_ends_running_streams_and_leaves_no_thread(kube: Store, kube_server_factory: Any) -> None:
    run_pod(kube)
    served = kube_server_factory(kube)
    before = {t.ident for t in threading.enumerate()}
    ws = websocket.create_connection(ws_url(served, "command=sleep&command=3600&stdout=1"),
                                     subprotocols=["v5.channel.k8s.io"], timeout=5)
    assert ws.recv() == b"\x01"
    started = time.monotonic()
    served.server.stop()
    assert time.monotonic() - started < 3
    leftover = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert leftover == []
    ws.close()


def test_client_gone_mid_stream_frees_the_exec(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    gone = exec_until_the_client_leaves(kube)
    ws = websocket.create_connection(ws_url(kube_server, "command=x&stdout=1"), subprotocols=["v5.channel.k8s.io"],
                                     timeout=5)
    assert ws.recv() == b"\x01" and ws.recv() == b"\x01started\n"
    ws.sock.shutdown(socket.SHUT_RDWR)
    ws.close()
    assert gone.wait(5)


def test_tty_echoes_input_maps_enter_and_ends_lines_with_crlf(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    ws = websocket.create_connection(ws_url(kube_server, "command=sh&stdin=1&stdout=1&stderr=1&tty=1"),
                                     subprotocols=["v5.channel.k8s.io"], timeout=5)
    ws.send_binary(b"\x00echo hi\r")  # a terminal in raw mode sends CR for Enter
    ws.send_binary(b"\x00exit 5\r")
    got = frames(ws)
    output = b"".join(f[1:] for f in got if f[:1] == b"\x01")
    # the prompt, both lines echoed as typed (CR shown as CRLF), the command's output with CRLF line ends; the
    # second line may be echoed before or after the first one's output, as the shell reads it
    assert output.startswith(b"# ") and b"echo hi\r\n" in output and b"exit 5\r\n" in output
    assert b"\r\nhi\r\n" in output
    assert json.loads(got[-1][1:])["details"]["causes"] == [{"reason": "ExitCode", "message": "5"}]


def test_what_a_command_writes_to_the_containers_stdout_is_in_its_log(kube: Store, kube_server: KubeServer,
                                                                       core: k8s.CoreV1Api) -> None:
    """``echo ... > /proc/1/fd/1`` is how a command reaches the container's log on a real node."""
    run_pod(kube)
    stream(core.connect_get_namespaced_pod_exec, "p1", "default",
           command=["sh", "-c", "echo from exec > /proc/1/fd/1"], stderr=True, stdout=True)
    assert core.read_namespaced_pod_log("p1", "default").endswith("from exec\n")


def test_attach_streams_what_the_container_writes_from_then_on(kube: Store, kube_server: KubeServer) -> None:
    from fakekube.pods.logs import pod_logs

    run_pod(kube)
    logs = pod_logs(kube)
    logs.write("default", "p1", "before attaching\n")
    ws = websocket.create_connection(ws_url(kube_server, "container=c&stdout=1&stderr=1", sub="attach"),
                                     subprotocols=["v5.channel.k8s.io"], timeout=5)
    ws.settimeout(0.1)

    def receive() -> bytes:
        try:
            data = ws.recv()
        except websocket.WebSocketTimeoutException:
            return b""
        return data if isinstance(data, bytes) else data.encode()

    deadline = time.monotonic() + 5
    seen = b""
    while b"tick" not in seen and time.monotonic() < deadline:  # until the attach follows the log
        logs.write("default", "p1", "tick\n")
        seen += receive()
    logs.write("default", "p1", "out line\n")
    logs.write("default", "p1", "err line\n", stream="stderr")
    got: list[bytes] = []
    while b"err line\n" not in b"".join(got) and time.monotonic() < deadline:
        got.append(receive())
    ws.close()
    assert b"before attaching" not in seen + b"".join(got)
    assert b"".join(f[1:] for f in got if f[:1] == b"\x01").replace(b"tick\n", b"") == b"out line\n"
    assert b"".join(f[1:] for f in got if f[:1] == b"\x02") == b"err line\n"
