"""Upgraded connections over TLS (fakekube.server.upgraded): one thread reads while others write, without the two
ever being inside OpenSSL at once — a SPDY exec streaming stdin in while stdout streams out, and WebSocket execs
that each must end with their status and a Close. (The race the module prevents showed as client-go's WebSocket
executor getting close 1006 about once in 50 execs, go/podstreams; this client's timing does not reproduce it.)"""

from __future__ import annotations

import json
import ssl
import threading
from urllib.parse import urlencode

import pytest
import websocket

from fakekube.server import spdy
from fakekube.server.app import ApiServer
from fakekube.store import Store
from tests.server.spdyclient import SpdyClient
from tests.server.test_pod_exec import run_pod


@pytest.fixture
def tls_server() -> ApiServer:  # type: ignore[misc]
    pytest.importorskip("cryptography")
    store = Store()
    run_pod(store)
    server = ApiServer(store, tls=True, tokens={"t": "admin"}).start()
    yield server
    server.stop()


def _context(server: ApiServer) -> ssl.SSLContext:
    context = ssl.create_default_context(cadata=(server.ca_pem or b"").decode())
    context.check_hostname = False
    return context


def test_spdy_exec_streams_both_ways_at_once_over_tls(tls_server: ApiServer) -> None:
    before = {t.ident for t in threading.enumerate()}
    query = urlencode([("command", "cat"), ("stdin", "1"), ("stdout", "1")])
    client = SpdyClient(f"{tls_server.url}/api/v1/namespaces/default/pods/p1/exec?{query}", ["v4.channel.k8s.io"],
                        tls=_context(tls_server), extra="Authorization: Bearer t\r\n")
    assert client.status == 101
    ids = {t: client.open({"streamType": t}) for t in ("error", "stdin", "stdout")}
    assert client.wait(spdy.SYN_REPLY, ids["stdout"]) is not None
    payload = bytes(range(256)) * 4096  # 1 MiB, echoed while it is still being sent
    for start in range(0, len(payload), 16384):
        client.write(ids["stdin"], payload[start:start + 16384])
    client.write(ids["stdin"], b"", fin=True)
    assert client.ended(ids["stdout"], timeout=20) == payload
    assert json.loads(client.ended(ids["error"])) == {"status": "Success"}
    client.close()
    tls_server.stop()
    assert [t for t in threading.enumerate() if t.ident not in before and t.is_alive()] == []


def test_websocket_execs_over_tls_each_end_with_status_and_close(tls_server: ApiServer) -> None:
    url = tls_server.url.replace("https", "wss", 1) + "/api/v1/namespaces/default/pods/p1/exec?"
    for code in range(20):
        query = urlencode([("command", "sh"), ("command", "-c"), ("command", f"echo {code}; exit {code % 3}"),
                           ("stdout", "1"), ("stderr", "1")])
        ws = websocket.create_connection(url + query, subprotocols=["v5.channel.k8s.io"], timeout=5,
                                         sslopt={"context": _context(tls_server)},
                                         header=["Authorization: Bearer t"])
        messages = []
        while True:
            opcode, data = ws.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
            messages.append(data)
        ws.close()
        assert messages[1] == b"\x01" + f"{code}\n".encode()
        assert json.loads(messages[-1][1:])["status"] == ("Success" if code % 3 == 0 else "Failure")
