"""A server-side WebSocket (RFC 6455) on a connection the threading server hands over after its 101 reply.

Framing, masking, fragmentation, ping/pong and the closing handshake are wsproto's (sans-IO, the reason it was
chosen: docs/dependencies.md); this module only moves bytes. One thread reads (``messages``), any thread sends
(a lock keeps the protocol state and the socket's writes in order).

The handshake checks are those the real server's websocket library makes (golang.org/x/net/websocket
``hybiServerHandshaker``, which ``k8s.io/streaming/pkg/httpstream/wsstream`` uses, v0.37.2): version 13 and a key
are required, a subprotocol the endpoint does not speak is a bare ``403 Forbidden``.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from email.message import Message
from typing import Any, BinaryIO

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.utilities import generate_accept_token

from fakekube.server.upgraded import UpgradedSocket

logger = logging.getLogger("fakekube.server")

READ_SIZE = 64 * 1024


def is_websocket_request(headers: Message) -> bool:
    """``wsstream.IsWebSocketRequest``: ``Upgrade: websocket`` and a ``Connection`` header naming upgrade."""
    upgrade = (headers.get("Upgrade") or "").strip().lower()
    connection = ",".join(headers.get_all("Connection") or []).lower()
    return upgrade == "websocket" and "upgrade" in [part.strip() for part in connection.split(",")]


def is_upgrade_request(headers: Message) -> bool:
    """``httpstream.IsUpgradeRequest``: any ``Connection: Upgrade`` request (WebSocket or SPDY)."""
    connection = ",".join(headers.get_all("Connection") or []).lower()
    return "upgrade" in [part.strip() for part in connection.split(",")]


def requested_protocols(headers: Message) -> list[str]:
    """The subprotocols the client offers, in its order (every ``Sec-WebSocket-Protocol`` header)."""
    offered: list[str] = []
    for value in headers.get_all("Sec-WebSocket-Protocol") or []:
        offered.extend(p.strip() for p in value.split(",") if p.strip())
    return offered


def handshake_error(headers: Message) -> tuple[int, list[tuple[str, str]], bytes] | None:
    """What x/net/websocket answers a malformed handshake with, or None when it is well formed."""
    if (headers.get("Sec-WebSocket-Version") or "").strip() != "13":
        return 400, [("Sec-WebSocket-Version", "13")], b"bad protocol version"
    if not (headers.get("Sec-WebSocket-Key") or "").strip():
        return 400, [], b"bad \"Sec-WebSocket-Key\" header"
    return None


def accept_headers(headers: Message, protocol: str) -> list[tuple[str, str]]:
    """The 101 reply's headers; ``protocol`` "" when the client offered none."""
    out = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
           ("Sec-WebSocket-Accept",
            generate_accept_token((headers.get("Sec-WebSocket-Key") or "").strip().encode()).decode())]
    if protocol:
        out.append(("Sec-WebSocket-Protocol", protocol))
    return out


class WebSocket:
    """The server end of one WebSocket. ``messages()`` yields whole messages (bytes or str) until the client
    closes or the connection ends; ``send_bytes``/``send_text``/``close`` may be called from any thread."""

    def __init__(self, sock: socket.socket, rfile: BinaryIO | Any) -> None:
        self._sock = UpgradedSocket(sock, rfile)
        self._ws = Connection(ConnectionType.SERVER)
        self._lock = threading.Lock()
        self.closed = threading.Event()  # set once no more frames can be sent

    def _send(self, event: Any) -> bool:
        with self._lock:
            if self._ws.state is not ConnectionState.OPEN or self.closed.is_set():
                return False
            if not self._sock.write(self._ws.send(event)):
                self.closed.set()
                return False
            return True

    def send_bytes(self, data: bytes) -> bool:
        return self._send(BytesMessage(data=data))

    def send_text(self, text: str) -> bool:
        return self._send(TextMessage(data=text))

    def close(self, code: int = 1000) -> None:
        """Send a Close and end the sending half, as x/net/websocket's ``Conn.Close`` ends the connection right
        after its Close frame (the client's own Close, or its hang-up, then ends ``messages``)."""
        self._send(CloseConnection(code=code))
        self.closed.set()
        self._sock.shutdown(socket.SHUT_WR)

    def abort(self) -> None:
        """End the connection now: a reader blocked in ``messages`` returns."""
        self.closed.set()
        self._sock.shutdown(socket.SHUT_RDWR)

    def messages(self) -> Iterator[bytes | str]:
        parts: list[Any] = []
        while True:
            data = self._sock.read()
            if not data:
                self.closed.set()
                return
            with self._lock:
                try:
                    self._ws.receive_data(data)
                    events = list(self._ws.events())
                except Exception:  # a protocol error: wsproto has queued its Close; the stream is over
                    logger.debug("websocket protocol error", exc_info=True)
                    events = [CloseConnection(code=1002)]
            for event in events:
                if isinstance(event, (BytesMessage, TextMessage)):
                    parts.append(event.data)
                    if event.message_finished:
                        whole = (b"" if isinstance(event, BytesMessage) else "").join(parts)
                        parts = []
                        yield whole
                elif isinstance(event, Ping):
                    self._send(event.response())
                elif isinstance(event, CloseConnection):
                    with self._lock:
                        if self._ws.state is ConnectionState.REMOTE_CLOSING:
                            self._sock.write(self._ws.send(event.response()))
                    self.closed.set()
                    return
