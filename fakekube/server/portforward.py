"""``pods/portforward`` over a WebSocket, as the kubelet's streaming server serves it (k8s.io/cri-streaming
``pkg/streaming/portforward/websocket.go``, v0.36.1; the apiserver proxies such requests through): the ports come
from the ``ports`` query (the kubelet's ``port``: required, each 1-65535), each port gets a data channel
(``2i``) and an error channel (``2i+1``), the first message on both is the port as two little-endian bytes, and
the stream ends when every port's connection has ended. Subprotocols: ``v4.channel.k8s.io``,
``v4.base64.channel.k8s.io`` or none; anything else is x/net/websocket's bare 403.

SPDY/3.1, plain or tunnelled inside a WebSocket (``SPDY/3.1+portforward.k8s.io``, kubectl's port-forward), is
``fakekube.server.spdyportforward``; both run a port's handler through ``forward``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from fakekube.pods.portforward import PortConnection, PortHandler
from fakekube.server.channels import send_frame, split_frame
from fakekube.server.websocket import WebSocket

logger = logging.getLogger("fakekube.server")

PROTOCOLS = ("", "v4.channel.k8s.io", "v4.base64.channel.k8s.io")
CLOSE_GRACE = 2.0


def negotiate(offered: list[str]) -> str | None:
    for protocol in offered or [""]:
        if protocol in PROTOCOLS:
            return protocol
    return None


def parse_ports(values: list[str]) -> list[int] | str:
    """``NewV4Options``: the ports, or the kubelet's refusal."""
    if not values:
        return 'query parameter "port" is required'
    ports: list[int] = []
    for text in values:
        if not text:
            return 'query parameter "port" cannot be empty'
        for part in text.split(","):
            if not (part.isascii() and part.isdigit()) or int(part) > 65535:
                reason = "invalid syntax" if not (part.isascii() and part.isdigit()) else "value out of range"
                return f'unable to parse "{text}" as a port: strconv.ParseUint: parsing "{part}": {reason}'
            if int(part) < 1:
                return f'port "{text}" must be > 0'
            ports.append(int(part))
    return ports


def forward(find: Callable[[int], PortHandler | None], pod: Mapping[str, Any], conn: PortConnection) -> str | None:
    """Run the handler of ``conn``'s port to its end: None, or the failure the kubelet writes on the port's error
    stream (nothing listening: the runtime's connection refused)."""
    port = conn.port
    meta = pod.get("metadata") or {}
    try:
        handler = find(port)
        if handler is None:
            raise ConnectionRefusedError(f"failed to connect to localhost:{port} inside namespace of pod "
                                         f"{meta.get('name')}: connect: connection refused")
        handler(conn)
        return None
    except Exception as exc:  # a handler's failure is the runtime's, reported on the error stream
        logger.debug("port-forward handler failed", exc_info=True)
        return f"error forwarding port {port} to pod {meta.get('uid', '')}, uid : {exc}"
    finally:
        conn.close()


class PortForwardSession:
    """One port-forward stream: a worker per port runs its handler while the connection's thread reads."""

    def __init__(self, ws: WebSocket, protocol: str, pod: Mapping[str, Any], ports: list[int],
                 find: Callable[[int], PortHandler | None]) -> None:
        self.ws = ws
        self.base64 = "base64" in protocol
        self.pod = pod
        self.ports = ports
        self.find = find
        self.gone = threading.Event()
        self._reader_done = threading.Event()
        self.connections = [PortConnection(pod, port, self._sender(2 * i), self.gone) for i, port in enumerate(ports)]

    def send(self, channel: int, data: bytes) -> None:
        send_frame(self.ws, self.base64, channel, data)

    def _sender(self, channel: int) -> Callable[[bytes], None]:
        def send(data: bytes) -> None:
            for start in range(0, len(data), 32 * 1024):
                self.send(channel, data[start:start + 32 * 1024])
        return send

    def serve(self) -> None:
        for i, port in enumerate(self.ports):
            prefix = port.to_bytes(2, "little")
            self.send(2 * i, prefix)
            self.send(2 * i + 1, prefix)
        workers = [threading.Thread(target=self._forward, args=(i,), name="fakekube-portforward", daemon=True)
                   for i in range(len(self.ports))]
        for w in workers:
            w.start()
        closer = threading.Thread(target=self._close_when_done, args=(workers,), name="fakekube-portforward-close",
                                  daemon=True)
        closer.start()
        try:
            for message in self.ws.messages():
                self._receive(message)
        finally:
            self._reader_done.set()
            self.gone.set()
            for conn in self.connections:
                conn.incoming.close()
            for w in workers:
                w.join()
            closer.join()

    def _receive(self, message: bytes | str) -> None:
        frame = split_frame(message, self.base64)
        if frame is None:
            return
        channel, payload = frame
        if channel % 2 == 0 and channel // 2 < len(self.connections):
            self.connections[channel // 2].incoming.feed(payload)

    def _forward(self, index: int) -> None:
        failure = forward(self.find, self.pod, self.connections[index])
        if failure is not None:
            self.send(2 * index + 1, failure.encode())

    def _close_when_done(self, workers: list[threading.Thread]) -> None:
        for w in workers:
            w.join()
        self.ws.close()
        if not self._reader_done.wait(CLOSE_GRACE):
            self.ws.abort()
