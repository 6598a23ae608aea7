"""The server end of a SPDY/3.1 connection, as github.com/moby/spdystream ``connection.go`` and ``stream.go``
(v0.5.1) run it under k8s.io/streaming ``pkg/httpstream/spdy`` (v0.37.2):

- the client opens every stream (SYN_STREAM, odd ids, increasing; another id is reset with PROTOCOL_ERROR); the
  server accepts one with a SYN_REPLY with no headers, or refuses it with a RST_STREAM (``newSpdyStream``);
- DATA with FIN half-closes the client's side of a stream, RST_STREAM ends both sides, a PING with the client's
  (odd) id is echoed, GOAWAY means no new streams and ends the reading; SETTINGS and WINDOW_UPDATE are read and
  ignored (spdystream does no flow control);
- a malformed frame ends the connection (spdystream's framer fails and the connection is closed); the server
  never leaves a stream or thread behind: ``shutdown`` resets what is open, sends GOAWAY and closes.

Bytes travel over a ``Transport``: the upgraded socket itself, or WebSocket binary messages (the tunnel
kubectl ≥ 1.31 port-forwards through: client-go ``tools/portforward/tunneling_connection.go`` and apiserver
``pkg/util/proxy/streamtunnel.go``, v0.37.2).
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator
from email.message import Message
from typing import Any, BinaryIO

from fakekube.pods.process import Input
from fakekube.server import spdy
from fakekube.server.upgraded import UpgradedSocket
from fakekube.server.websocket import WebSocket

logger = logging.getLogger("fakekube.server")

CHUNK = 32 * 1024  # what one DATA frame carries (io.Copy's buffer)
CLOSE_GRACE = 2.0


PROTOCOL_HEADER = "X-Stream-Protocol-Version"
ACCEPTED_HEADER = "X-Accepted-Stream-Protocol-Versions"


def is_spdy_upgrade(headers: Message) -> bool:
    """The check ``responseUpgrader.UpgradeResponse`` makes (k8s.io/streaming ``pkg/httpstream/spdy/upgrade.go``):
    ``Connection`` names upgrade and ``Upgrade`` names SPDY/3.1."""
    connection = (headers.get("Connection") or "").lower()
    return "upgrade" in connection and "spdy/3.1" in (headers.get("Upgrade") or "").lower()


def offered_protocols(values: list[str]) -> list[str]:
    """``commaSeparatedHeaderValues``: every non-empty comma-separated value, trimmed."""
    return [p.strip(" ") for value in values for p in value.split(",") if p.strip(" ")]


def handshake(values: list[str] | None, server: list[str], header_count: int) -> str | tuple[int, list[tuple[str, str]], str]:
    """``httpstream.Handshake`` (k8s.io/streaming ``pkg/httpstream/httpstream.go``, v0.37.2): the first protocol
    the client lists that the server speaks, or the refusal (status, headers, ``http.Error`` text)."""
    name = PROTOCOL_HEADER
    if values is None:
        return 400, [], f"unable to upgrade: header {name} does not exist in request with {header_count} headers"
    offered = offered_protocols(values)
    if not offered:
        return 400, [], f"unable to upgrade: header {name} contains [{' '.join(values)}], but no valid protocols"
    for protocol in offered:
        if protocol in server:
            return protocol
    return (403, [(ACCEPTED_HEADER, p) for p in server],
            f"unable to upgrade: unable to negotiate protocol: client supports [{' '.join(offered)}], "
            f"server accepts [{' '.join(server)}]")


def upgrade_headers(protocol: str) -> list[tuple[str, str]]:
    """The 101's headers: the negotiated protocol (set by the handshake), then the upgrade."""
    return [(PROTOCOL_HEADER, protocol), ("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1")]


class Transport:
    """Bytes both ways over the upgraded connection itself."""

    def __init__(self, sock: socket.socket, rfile: BinaryIO | Any) -> None:
        self._sock = UpgradedSocket(sock, rfile)

    def chunks(self) -> Iterator[bytes]:
        while data := self._sock.read():
            yield data

    def send(self, data: bytes) -> bool:
        return self._sock.write(data)

    def close(self) -> None:
        """End the sending half; the client's close then ends ``chunks``."""
        self._sock.shutdown(socket.SHUT_WR)

    def abort(self) -> None:
        self._sock.shutdown(socket.SHUT_RDWR)


class TunnelTransport(Transport):
    """SPDY bytes in WebSocket binary messages; a text message is a broken tunnel (``TunnelingConnection.Read``:
    ``invalid message type received``)."""

    def __init__(self, ws: WebSocket) -> None:
        self._ws = ws

    def chunks(self) -> Iterator[bytes]:
        for message in self._ws.messages():
            if isinstance(message, str):
                logger.debug("text message in a SPDY tunnel")
                return
            yield message

    def send(self, data: bytes) -> bool:
        return self._ws.send_bytes(data)

    def close(self) -> None:
        self._ws.close()

    def abort(self) -> None:
        self._ws.abort()


class Stream:
    """One SPDY stream, from the server's side."""

    def __init__(self, conn: SpdyConnection, stream_id: int, headers: dict[str, list[str]]) -> None:
        self.conn = conn
        self.id = stream_id
        self.headers = headers
        self.incoming = Input()  # what the client sends; at its end once the client half-closes or resets
        # When set, what the client sends goes here instead (None: the client's side ended).
        self.on_data: Callable[[bytes | None], None] | None = None
        self.replied = False
        self.local_closed = False  # FIN or RST sent: nothing more goes out
        self.reset_by_peer = False
        self.remote_closed = False  # FIN or RST received
        self._reset_sent = False

    def header(self, name: str) -> str:
        return (self.headers.get(name.lower()) or [""])[0]

    def received(self, data: bytes | None) -> None:
        """The client sent ``data``, or (None) ended its side."""
        if data is None:
            self.remote_closed = True
            self.incoming.close()
        if self.on_data is not None:
            if data != b"":
                self.on_data(data)
        elif data:
            self.incoming.feed(data)

    def reply(self) -> None:
        self.replied = True
        self.conn.send_frame(lambda w: w.syn_reply(self.id))

    def write(self, data: bytes) -> None:
        for start in range(0, len(data), CHUNK):
            chunk = data[start:start + CHUNK]
            if self.local_closed or not self.conn.send_frame(lambda w, c=chunk: w.data(self.id, c)):  # type: ignore[misc]
                return

    def close(self) -> None:
        """Half-close: an empty DATA frame with FIN (spdystream ``Stream.Close``)."""
        if not self.local_closed:
            self.local_closed = True
            self.conn.send_frame(lambda w: w.data(self.id, b"", fin=True))

    def reset(self, status: int = spdy.CANCEL) -> None:
        """``Stream.Reset``: both sides end; the client's reads see the end of the stream."""
        if not self.reset_by_peer and not self._reset_sent:
            self._reset_sent = self.local_closed = True
            self.conn.send_frame(lambda w: w.rst_stream(self.id, status))
        if not self.remote_closed:
            self.received(None)

    @property
    def finished(self) -> bool:
        """Both sides are done (FIN or RST each way)."""
        return self.reset_by_peer or self._reset_sent or self.local_closed and self.remote_closed


class SpdyConnection:
    """A server connection. ``on_stream`` runs in the reading thread for each stream the client opens and must
    reply or reset it without blocking; ``serve`` reads until the client leaves, says GOAWAY, or errs."""

    def __init__(self, transport: Transport, on_stream: Callable[[Stream], None]) -> None:
        self.transport = transport
        self.on_stream = on_stream
        self.streams: dict[int, Stream] = {}
        self._reader = spdy.FrameReader()
        self._writer = spdy.FrameWriter()
        self._lock = threading.Lock()
        self._last_id = 0
        self.ended = threading.Event()  # the reading is over
        self._closed = False
        self._chunks: Iterator[bytes] | None = None

    def send_frame(self, build: Callable[[spdy.FrameWriter], bytes]) -> bool:
        with self._lock:
            if self._closed:
                return False
            if not self.transport.send(build(self._writer)):
                self._closed = True
                return False
            return True

    def forget(self, *streams: Stream) -> None:
        """Drop finished streams (a long port-forward opens two per connection); frames for them are ignored."""
        for stream in streams:
            self.streams.pop(stream.id, None)

    def serve(self) -> None:
        """Read until the connection ends, then end every stream's input."""
        try:
            self.read_until(lambda: False)
        finally:
            self.ended.set()
            for stream in list(self.streams.values()):
                if not stream.remote_closed:
                    stream.received(None)

    def read_until(self, done: Callable[[], bool]) -> bool:
        """Read and act on frames in this thread until ``done()`` holds; False when the connection ended first."""
        while not self.ended.is_set() and not done():
            self._read_some()
        return done()

    def _read_some(self) -> None:
        if self._chunks is None:
            self._chunks = self.transport.chunks()
        chunk = next(self._chunks, None)
        if chunk is None:
            self.ended.set()
            return
        try:
            frames = self._reader.feed(chunk)
        except spdy.SpdyError as exc:
            logger.debug("malformed SPDY frame: %s", exc)
            self.ended.set()
            self.abort()
            return
        for frame in frames:
            if not self._handle(frame):
                self.ended.set()
                return

    def _handle(self, frame: spdy.Frame) -> bool:
        """Act on one frame; False once the client has said GOAWAY."""
        kind = frame.kind
        if kind == spdy.SYN_STREAM:
            if frame.stream % 2 == 0 or frame.stream <= self._last_id:
                self.send_frame(lambda w: w.rst_stream(frame.stream, spdy.PROTOCOL_ERROR))
                return True
            self._last_id = frame.stream
            stream = Stream(self, frame.stream, frame.headers)
            self.streams[frame.stream] = stream
            self.on_stream(stream)
            if frame.fin:
                stream.received(None)
        elif kind == 0 or kind == spdy.RST_STREAM:
            found = self.streams.get(frame.stream)
            if found is None or not found.replied:
                return True  # spdystream drops frames for streams it no longer (or never) knew
            if kind == spdy.RST_STREAM:
                found.reset_by_peer = found.local_closed = True
                found.received(None)
            else:
                found.received(frame.data)
                if frame.fin:
                    found.received(None)
        elif kind == spdy.PING:
            if frame.stream % 2 == 1:  # the client's ping (a server's own ids are even)
                self.send_frame(lambda w: w.ping(frame.stream))
        elif kind == spdy.GOAWAY:
            return False
        return True  # SYN_REPLY (the server opens no streams), HEADERS, SETTINGS, WINDOW_UPDATE: nothing to do

    def shutdown(self) -> None:
        """The kubelet's ``connection.Close``: reset every open stream, GOAWAY, then close; the client's own close
        (or CLOSE_GRACE) ends the reading."""
        for stream in list(self.streams.values()):
            if not stream.finished:
                stream.reset()
        self.send_frame(lambda w: w.goaway(self._last_id))
        with self._lock:
            self._closed = True
        self.transport.close()

    def abort(self) -> None:
        with self._lock:
            self._closed = True
        self.transport.abort()
