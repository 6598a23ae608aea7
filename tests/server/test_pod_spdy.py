"""pods/exec, attach and portforward over SPDY/3.1 (plain, and tunnelled in a WebSocket for port-forward), as the
kubelet's streaming server answers them; a small SPDY client (tests/server/spdyclient.py) plays client-go."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any
from urllib.parse import urlencode

import pytest
import websocket

from fakekube.pods.portforward import PortConnection
from fakekube.server import spdy, spdyexec
from fakekube.server.fixtures import KubeServer
from fakekube.store import Store
from tests.server.spdyclient import SpdyClient
from tests.server.test_pod_exec import exec_until_the_client_leaves, run_pod

V4 = "v4.channel.k8s.io"


def exec_url(server: KubeServer, query: str, name: str = "p1", sub: str = "exec") -> str:
    return f"{server.url}/api/v1/namespaces/default/pods/{name}/{sub}?{query}"


def new_threads(before: set[int | None], timeout: float = 5) -> list[threading.Thread]:
    """Server threads started since ``before`` that are still alive after ``timeout`` (the test client's own
    reader is not the server's)."""
    deadline = time.monotonic() + timeout
    while True:
        left = [t for t in threading.enumerate()
                if t.ident not in before and t.is_alive() and not t.name.startswith("spdyclient")]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def run_exec(server: KubeServer, command: list[str], protocol: str = V4, stdin: bytes | None = None,
             types: tuple[str, ...] = ("error", "stdout", "stderr")) -> tuple[dict[str, bytes], SpdyClient]:
    query = urlencode([("command", c) for c in command] + [("stdout", "1"), ("stderr", "1")]
                      + ([("stdin", "1")] if stdin is not None else []))
    client = SpdyClient(exec_url(server, query), [protocol])
    assert client.status == 101 and client.header("X-Stream-Protocol-Version") == protocol
    ids = {t: client.open({"streamType": t}) for t in types + (("stdin",) if stdin is not None else ())}
    for stream in ids.values():
        assert client.wait(spdy.SYN_REPLY, stream) is not None
    if stdin is not None:
        client.write(ids["stdin"], stdin, fin=True)
    out = {t: client.ended(ids[t]) for t in types}
    return out, client


def test_exec_v4_streams_output_and_the_exit_status(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    out, client = run_exec(kube_server, ["sh", "-c", "echo out;echo err>&2;exit 3"])
    assert out["stdout"] == b"out\n" and out["stderr"] == b"err\n"
    assert json.loads(out["error"]) == {
        "status": "Failure", "reason": "NonZeroExitCode",
        "message": "command terminated with non-zero exit code: error executing command "
                   "[sh -c echo out;echo err>&2;exit 3], exit code 3",
        "details": {"causes": [{"reason": "ExitCode", "message": "3"}]}}
    # then the kubelet's connection.Close: every stream reset, GOAWAY
    assert client.wait(spdy.GOAWAY) is not None
    client.close()
    out, client = run_exec(kube_server, ["true"])
    assert json.loads(out["error"]) == {"status": "Success"}
    client.close()


@pytest.mark.parametrize("protocol", ["v3.channel.k8s.io", "v2.channel.k8s.io"])
def test_older_protocols_write_only_a_failures_text(kube: Store, kube_server: KubeServer, protocol: str) -> None:
    run_pod(kube)
    out, client = run_exec(kube_server, ["false"], protocol)
    assert out["error"] == b"command terminated with non-zero exit code: error executing command [false], exit code 1"
    client.close()
    out, client = run_exec(kube_server, ["true"], protocol)
    assert out["error"] == b""
    client.close()


def test_v1_resets_the_error_stream_once_the_streams_are_set_up(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    out, client = run_exec(kube_server, ["sh", "-c", "echo hi;exit 2"], "channel.k8s.io")
    assert out == {"error": b"", "stdout": b"hi\n", "stderr": b""}
    resets = [f.stream for f in client.control if f.kind == spdy.RST_STREAM]
    assert resets[0] == 1  # the error stream, first opened, reset before anything ran
    client.close()


def test_stdin_until_the_client_half_closes(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    out, client = run_exec(kube_server, ["cat"], stdin=b"typed\nlines\n")
    assert out["stdout"] == b"typed\nlines\n" and json.loads(out["error"]) == {"status": "Success"}
    client.close()


def test_tty_resize_stream_reaches_the_process(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    sizes: list[Any] = []

    def shell(proc: Any) -> int:
        proc.stdin.read()
        sizes.append(proc.terminal_size)
        return 0

    kube.on_exec(shell)
    client = SpdyClient(exec_url(kube_server, "command=sh&stdin=1&stdout=1&tty=1"), [V4])
    ids = {t: client.open({"streamType": t}) for t in ("error", "stdin", "stdout", "resize")}
    for stream in ids.values():
        assert client.wait(spdy.SYN_REPLY, stream) is not None
    client.write(ids["resize"], b'{"Width":80,')  # a JSON object split over frames, as a json.Encoder stream may be
    client.write(ids["resize"], b'"Height":24}{"Width":100,"Height":40}')
    time.sleep(0.2)
    client.write(ids["stdin"], b"", fin=True)
    assert json.loads(client.ended(ids["error"])) == {"status": "Success"}
    assert sizes == [(100, 40)]
    client.close()


def test_refusals_before_the_upgrade(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    run_pod(kube, "stopped", running=False)
    missing = SpdyClient(exec_url(kube_server, "command=ls&stdout=1"), None)
    assert missing.status == 400 and missing.body.startswith(
        b"unable to upgrade: header X-Stream-Protocol-Version does not exist in request with ")
    unknown = SpdyClient(exec_url(kube_server, "command=ls&stdout=1"), ["v5.channel.k8s.io", "v9.channel.k8s.io"])
    assert unknown.status == 403
    assert unknown.headers("X-Accepted-Stream-Protocol-Versions") == spdyexec.PROTOCOLS
    assert unknown.body == (b"unable to upgrade: unable to negotiate protocol: client supports [v5.channel.k8s.io "
                            b"v9.channel.k8s.io], server accepts [v4.channel.k8s.io v3.channel.k8s.io "
                            b"v2.channel.k8s.io channel.k8s.io]\n")
    nothing = SpdyClient(exec_url(kube_server, "command=ls"), [V4])
    assert (nothing.status, nothing.body) == (400, b"you must specify at least 1 of stdin, stdout, stderr")
    stopped = SpdyClient(exec_url(kube_server, "command=ls&stdout=1", name="stopped"), [V4])
    assert (stopped.status, stopped.body) == (500, b'container not found ("c")')
    pod = SpdyClient(exec_url(kube_server, "command=ls&stdout=1", name="ghost"), [V4])
    assert pod.status == 404 and json.loads(pod.body)["reason"] == "NotFound"
    for refused in (missing, unknown, nothing, stopped, pod):
        refused.close()


def test_ping_is_answered_and_unknown_stream_types_are_replied_but_not_counted(kube: Store,
                                                                                kube_server: KubeServer) -> None:
    run_pod(kube)
    client = SpdyClient(exec_url(kube_server, "command=cat&stdin=1&stdout=1"), [V4])
    client.raw(client.writer.ping(1))
    assert client.wait(spdy.PING).stream == 1  # type: ignore[union-attr]
    odd = client.open({"streamType": "bogus"})
    assert client.wait(spdy.SYN_REPLY, odd) is not None
    ids = {t: client.open({"streamType": t}) for t in ("error", "stdin", "stdout")}
    client.write(ids["stdin"], b"x", fin=True)
    assert client.ended(ids["stdout"]) == b"x"
    client.close()


def test_bad_input_ends_the_connection_and_leaves_no_thread(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    gone = exec_until_the_client_leaves(kube)
    before = {t.ident for t in threading.enumerate()}
    # a malformed frame mid-session: the connection ends, the process sees the client gone
    client = SpdyClient(exec_url(kube_server, "command=x&stdout=1"), [V4])
    ids = [client.open({"streamType": t}) for t in ("error", "stdout")]
    assert client.wait(spdy.SYN_REPLY, ids[1]) is not None
    client.raw(b"\x80\x03\x0f\xff\x00\x00\x00\x00")
    assert gone.wait(5)
    assert client.wait(-1, timeout=5) is None  # the server closed the connection
    client.close()
    # the connection closed mid-transfer
    gone.clear()
    client = SpdyClient(exec_url(kube_server, "command=x&stdout=1"), [V4])
    ids = [client.open({"streamType": t}) for t in ("error", "stdout")]
    assert client.wait(spdy.SYN_REPLY, ids[1]) is not None
    client.close()
    assert gone.wait(5)
    # the client resets its stdin stream mid-transfer: stdin ends, cat ends, the status comes
    client = SpdyClient(exec_url(kube_server, "command=cat&stdin=1&stdout=1"), [V4])
    kube_cat = {t: client.open({"streamType": t}) for t in ("error", "stdin", "stdout")}
    client.raw(client.writer.rst_stream(kube_cat["stdin"], spdy.CANCEL))
    client.close()
    # streams never created: the connection ends after the stream creation timeout
    spdyexec_timeout, spdyexec.STREAM_CREATION_TIMEOUT = spdyexec.STREAM_CREATION_TIMEOUT, 0.3
    try:
        client = SpdyClient(exec_url(kube_server, "command=x&stdout=1"), [V4])
        client.open({"streamType": "error"})
        assert client.wait(-1, timeout=5) is None
        client.close()
    finally:
        spdyexec.STREAM_CREATION_TIMEOUT = spdyexec_timeout
    assert new_threads(before) == []


def test_server_stop_ends_spdy_streams_and_leaves_no_thread(kube: Store, kube_server_factory: Any) -> None:
    run_pod(kube)
    served = kube_server_factory(kube)
    before = {t.ident for t in threading.enumerate()}
    client = SpdyClient(exec_url(served, "command=sleep&command=3600&stdout=1"), [V4])
    ids = [client.open({"streamType": t}) for t in ("error", "stdout")]
    assert client.wait(spdy.SYN_REPLY, ids[1]) is not None
    started = time.monotonic()
    served.server.stop()
    assert time.monotonic() - started < 3
    assert new_threads(before, 0) == []
    client.close()


# -- port-forward ---------------------------------------------------------------------------------------------

def forward_until_the_client_leaves(store: Store) -> threading.Event:
    """Every forwarded connection waits for its client's first bytes or end; the event is set then."""
    ended = threading.Event()

    def hold(conn: PortConnection) -> None:
        conn.recv()
        ended.set()

    store.on_port_forward(hold)
    return ended


def pf_client(server: KubeServer) -> SpdyClient:
    client = SpdyClient(exec_url(server, "", sub="portforward"), ["portforward.k8s.io"])
    assert client.status == 101 and client.header("X-Stream-Protocol-Version") == "portforward.k8s.io"
    return client


def forward(client: SpdyClient, port: int, request: str | None, payload: bytes) -> tuple[bytes, bytes]:
    headers = {"port": str(port)} | ({"requestID": request} if request is not None else {})
    error = client.open({"streamType": "error", **headers})
    data = client.open({"streamType": "data", **headers})
    client.write(error, b"", fin=True)  # client-go closes its side of the error stream at once
    client.write(data, payload, fin=True)
    return client.ended(data), client.ended(error)


def test_port_forward_pairs_streams_per_request(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube, image="nginx")

    def echo(conn: PortConnection) -> None:
        while data := conn.recv():
            conn.send(data.upper())

    kube.on_port_forward(echo, port=6379)
    with pf_client(kube_server) as client:
        assert forward(client, 6379, "0", b"ping") == (b"PING", b"")
        assert forward(client, 6379, None, b"again") == (b"AGAIN", b"")  # the request id from the stream ids
        data, error = forward(client, 80, "2", b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert data.startswith(b"HTTP/1.1 200 OK\r\nServer: nginx") and error == b""
        data, error = forward(client, 81, "3", b"")
        assert data == b"" and error.startswith(b"error forwarding port 81 to pod ")
        assert error.endswith(b"connect: connection refused")


def test_port_forward_refuses_bad_streams_and_answers_ping(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    with pf_client(kube_server) as client:
        for headers in ({"streamType": "data"}, {"port": "x", "streamType": "data"},
                        {"port": "0", "streamType": "data"}, {"port": "80"}, {"port": "80", "streamType": "stdin"}):
            stream = client.open(headers)
            reset = client.wait(spdy.RST_STREAM, stream)
            assert reset is not None and not [f for f in client.control if f.kind == spdy.SYN_REPLY]
        client.raw(client.writer.ping(5))
        assert client.wait(spdy.PING).stream == 5  # type: ignore[union-attr]
        error = client.open({"streamType": "error", "port": "80", "requestID": "9"})
        client.open({"streamType": "error", "port": "80", "requestID": "9"})
        assert client.wait(spdy.SYN_REPLY, error) is not None
        time.sleep(0.1)
        assert bytes(client.data[error]) == b"error processing stream for request 9: error stream already assigned"


def test_port_forward_tunnelled_in_a_websocket(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    kube.on_port_forward(lambda conn: conn.send(conn.recv()[::-1]), port=7000)
    url = kube_server.url.replace("http", "ws", 1) + "/api/v1/namespaces/default/pods/p1/portforward"
    ws = websocket.create_connection(url, subprotocols=["SPDY/3.1+portforward.k8s.io"], timeout=5)
    assert ws.getsubprotocol() == "spdy/3.1+portforward.k8s.io"  # websocket-client lower-cases it

    def chunks() -> bytes:
        try:
            opcode, data = ws.recv_data()
        except websocket.WebSocketException:
            return b""
        return data if opcode == websocket.ABNF.OPCODE_BINARY else b""

    client = SpdyClient("", None, send=lambda data: ws.send_binary(data), chunks=chunks)
    assert forward(client, 7000, "0", b"abc") == (b"cba", b"")
    client.raw(client.writer.ping(3))
    assert client.wait(spdy.PING).stream == 3  # type: ignore[union-attr]
    ws.close()
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(url, subprotocols=["SPDY/3.1+v9.k8s.io"], timeout=5)
    assert refused.value.status_code == 403
    assert refused.value.resp_body == (b"unable to upgrade: unable to negotiate protocol: client supports "
                                       b"[v9.k8s.io], server accepts [portforward.k8s.io]\n")


def test_port_forward_connection_closed_mid_transfer_frees_the_handler(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    ended = forward_until_the_client_leaves(kube)
    before = {t.ident for t in threading.enumerate()}
    client = pf_client(kube_server)
    client.open({"streamType": "error", "port": "5000", "requestID": "0"})
    data = client.open({"streamType": "data", "port": "5000", "requestID": "0"})
    assert client.wait(spdy.SYN_REPLY, data) is not None
    assert client.sock is not None
    client.sock.shutdown(socket.SHUT_RDWR)
    assert ended.wait(5)
    client.close()
    assert new_threads(before) == []


def test_tunnel_text_message_or_client_goaway_ends_the_port_forward(kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    ended = forward_until_the_client_leaves(kube)
    before = {t.ident for t in threading.enumerate()}
    url = kube_server.url.replace("http", "ws", 1) + "/api/v1/namespaces/default/pods/p1/portforward"
    for end in ("text", "goaway"):
        ended.clear()
        ws = websocket.create_connection(url, subprotocols=["SPDY/3.1+portforward.k8s.io"], timeout=5)
        writer = spdy.FrameWriter()
        ws.send_binary(writer.syn_stream(1, {"streamType": ["error"], "port": ["5000"], "requestID": ["0"]}))
        ws.send_binary(writer.syn_stream(3, {"streamType": ["data"], "port": ["5000"], "requestID": ["0"]}))
        if end == "text":
            ws.send("not SPDY")  # TunnelingConnection.Read: invalid message type received
        else:
            ws.send_binary(writer.goaway(0))
        assert ended.wait(5), end
        ws.close()
    assert new_threads(before) == []
