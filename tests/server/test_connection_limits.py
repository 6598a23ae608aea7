"""What a connection may hold on the server: idle and half-sent requests time out, and a watch client that
stops reading is ended once its unread events pile up, so neither threads nor memory grow without bound."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

from fakekube import Store
from fakekube.server.app import ApiServer

CMS = "/api/v1/namespaces/default/configmaps"


def _raw(url: str) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    return sock


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    return True


def test_idle_and_half_sent_connections_are_closed_after_the_idle_timeout() -> None:
    server = ApiServer(Store(), idle_timeout=0.5).start()
    try:
        idle = _raw(server.url)
        half = _raw(server.url)
        half.sendall(b"POST " + CMS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"meta")
        started = time.monotonic()
        assert _closed_by_server(idle, within=5) and _closed_by_server(half, within=5)
        assert time.monotonic() - started < 3
        assert server.store.list("configmaps", "default")["items"] == []
    finally:
        server.stop()


def test_a_watch_client_that_stops_reading_is_dropped_and_the_server_goes_on() -> None:
    store = Store()
    server = ApiServer(store, idle_timeout=2, watch_max_pending=20).start()
    try:
        stalled = _raw(server.url)
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.sendall(b"GET " + CMS.encode() + b"?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
        deadline = time.monotonic() + 5
        while store.hub.watcher_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert store.hub.watcher_count() == 1
        payload = "x" * 20_000  # the socket buffers fill after a few events; the rest pile up unread
        for i in range(400):
            store.create("configmaps", {"metadata": {"name": f"c{i}"}, "data": {"v": payload}}, "default")
            if store.hub.watcher_count() == 0:
                break
        assert store.hub.watcher_count() == 0, "the stalled watcher was never dropped"
        # Its thread was stuck writing to the stalled client; the idle timeout frees it.
        deadline = time.monotonic() + 10
        while server.open_connections > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.open_connections == 0
    finally:
        server.stop()
