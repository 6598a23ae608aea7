"""Exec and attach over SPDY/3.1, as the kubelet's streaming server serves them (k8s.io/cri-streaming
``pkg/streaming/remotecommand/httpstream.go`` and ``exec.go``, v0.36.1; the apiserver proxies SPDY upgrades to the
kubelet untouched): the protocol comes from ``X-Stream-Protocol-Version`` (``httpstream.Handshake``), the client
opens one stream per channel named by its ``streamType`` header (error, stdin, stdout, stderr, resize), and the
session starts once every expected stream is there (30 s, ``DefaultStreamCreationTimeout``).

The protocol versions differ as the kubelet's handlers do: ``v4.channel.k8s.io`` writes the exit status as
Status JSON on the error stream; ``v3.channel.k8s.io`` writes only a failure's text; ``v2.channel.k8s.io`` also
has no resize stream; ``channel.k8s.io`` (v1) resets the error stream as soon as the streams are set up, so it
reports nothing. The session itself is ``fakekube.server.channels.ChannelSession``, the WebSocket one's.
"""

from __future__ import annotations

import json
import threading

from fakekube.server.channels import ERROR, RESIZE, STDERR, STDIN, STDOUT, Receive, StreamOptions
from fakekube.server.spdyconn import SpdyConnection, Stream

PROTOCOLS = ["v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"]
STREAM_CREATION_TIMEOUT = 30.0
CHANNELS = {"stdin": STDIN, "stdout": STDOUT, "stderr": STDERR, "error": ERROR, "resize": RESIZE}
MAX_RESIZE_BUFFER = 64 * 1024


class SpdyChannels:
    """The channel link of one SPDY exec or attach (``fakekube.server.channels.ChannelLink``)."""

    def __init__(self, protocol: str, stream_creation_timeout: float | None = None) -> None:
        self.protocol = protocol
        self.resizable = protocol in PROTOCOLS[:2]  # v3 and v4 take a resize stream
        self.timeout = STREAM_CREATION_TIMEOUT if stream_creation_timeout is None else stream_creation_timeout
        self.conn: SpdyConnection | None = None
        self.streams: dict[int, Stream] = {}
        self._replied = 0
        self._receive: Receive | None = None
        self._pending: list[tuple[int, bytes | None]] = []
        self._resize = bytearray()

    def attach(self, conn: SpdyConnection) -> None:
        self.conn = conn

    def on_stream(self, stream: Stream) -> None:
        """The kubelet replies to every stream; only the types its protocol handler knows count."""
        stream.reply()
        channel = CHANNELS.get(stream.header("streamType"))
        if channel is None or channel == RESIZE and not self.resizable:
            return
        self.streams[channel] = stream
        self._replied += 1
        if channel == STDIN:
            stream.on_data = lambda data: self._deliver(STDIN, data)
        elif channel == RESIZE:
            stream.on_data = self._resize_data

    def _deliver(self, channel: int, data: bytes | None) -> None:
        if self._receive is None:
            self._pending.append((channel, data))  # arrived with the last stream, before the session runs
        else:
            self._receive(channel, data)

    def _resize_data(self, data: bytes | None) -> None:
        """The resize stream is a sequence of JSON objects (``handleResizeEvents``' json.Decoder)."""
        if data is None:
            return
        self._resize += data
        decoder = json.JSONDecoder()
        while True:
            text = bytes(self._resize).decode("utf-8", errors="replace").lstrip()
            if not text:
                self._resize.clear()
                return
            try:
                size, end = decoder.raw_decode(text)
            except ValueError:
                if len(self._resize) > MAX_RESIZE_BUFFER:
                    self._resize.clear()
                return
            self._resize[:] = text[end:].encode()
            self._deliver(RESIZE, json.dumps(size).encode())

    # -- ChannelLink ------------------------------------------------------------------------------------

    def open(self, options: StreamOptions) -> bool:
        assert self.conn is not None
        expected = 1 + options.stdin + options.stdout + options.stderr + (options.tty and self.resizable)
        timer = threading.Timer(self.timeout, self.conn.abort)  # "timed out waiting for client to create streams"
        timer.daemon = True
        timer.start()
        try:
            ready = self.conn.read_until(lambda: self._replied >= expected)
        finally:
            timer.cancel()
            timer.join()
        if not ready:
            self.conn.abort()
            return False
        if self.protocol == "channel.k8s.io" and ERROR in self.streams:
            self.streams.pop(ERROR).reset()  # v1's waitForStreams defers the error stream's Reset
        return True

    def run(self, receive: Receive) -> None:
        assert self.conn is not None
        self._receive = receive
        for channel, data in self._pending:
            receive(channel, data)
        self._pending.clear()
        self.conn.serve()

    def send(self, channel: int, data: bytes) -> None:
        stream = self.streams.get(channel)
        if stream is not None and channel in (STDOUT, STDERR, ERROR):
            stream.write(data)

    def close(self) -> None:
        assert self.conn is not None
        self.conn.shutdown()

    def abort(self) -> None:
        assert self.conn is not None
        self.conn.abort()
