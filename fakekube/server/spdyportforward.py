"""``pods/portforward`` over SPDY/3.1, plain or tunnelled through a WebSocket, as the kubelet's streaming server
serves it (k8s.io/cri-streaming ``pkg/streaming/portforward/httpstream.go``, v0.36.1) behind the apiserver
(its ``TunnelingHandler``, apiserver ``pkg/util/proxy/streamtunnel.go``, v0.37.2, turns a WebSocket offering
``SPDY/3.1+portforward.k8s.io`` into the same SPDY upgrade and carries its bytes in binary messages).

Protocol ``portforward.k8s.io``. Every forwarded TCP connection is a pair of streams the client opens with the
headers ``streamType`` (``error`` or ``data``), ``port`` and ``requestID`` (without one, the request is the error
stream's id, or the data stream's id less 2); a stream without a valid port or type is reset unanswered. Once a
pair is complete the port's handler runs on the data stream; at its end both streams are closed, or — when it
failed (nothing listens there) — the error is written on the error stream and both are reset. The connection
lasts until the client closes it; ports come from the streams, not from the query.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from fakekube.pods.portforward import PortConnection, PortHandler
from fakekube.server.portforward import forward
from fakekube.server.spdyconn import SpdyConnection, Stream

logger = logging.getLogger("fakekube.server")

PROTOCOLS = ["portforward.k8s.io"]
TUNNEL_PREFIX = "SPDY/3.1+"


def tunnel_protocols(offered: list[str]) -> list[str]:
    """``spdyProtocolsFromWebsocketProtocols``: the SPDY protocols inside ``SPDY/3.1+NAME.k8s.io`` subprotocols."""
    return [p[len(TUNNEL_PREFIX):] for p in offered if p.startswith(TUNNEL_PREFIX) and p.endswith(".k8s.io")]


def stream_refusal(stream: Stream) -> str | None:
    """``httpStreamReceived``: why the kubelet refuses a stream, or None."""
    port = stream.header("port")
    if not port:
        return '"port" header is required'
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        return f'unable to parse "{port}" as a port'
    if int(port) < 1:
        return f'port "{port}" must be > 0'
    kind = stream.header("streamType")
    if not kind:
        return '"streamType" header is required'
    if kind not in ("error", "data"):
        return f'invalid stream type "{kind}"'
    return None


class SpdyPortForwardSession:
    """One SPDY port-forward connection: a worker per forwarded connection, the reading in the caller's thread."""

    def __init__(self, pod: Mapping[str, Any], find: Callable[[int], PortHandler | None]) -> None:
        self.pod = pod
        self.find = find
        self.conn: SpdyConnection | None = None
        self.pairs: dict[str, dict[str, Stream]] = {}
        self.gone = threading.Event()
        self.workers: list[threading.Thread] = []

    def on_stream(self, stream: Stream) -> None:
        refusal = stream_refusal(stream)
        if refusal is not None:
            logger.debug("port-forward stream refused: %s", refusal)
            stream.reset()  # newSpdyStream: a stream the handler refuses is reset, never replied to
            return
        stream.reply()
        kind = stream.header("streamType")
        request = stream.header("requestID") or str(stream.id if kind == "error" else stream.id - 2)
        pair = self.pairs.setdefault(request, {})
        if kind in pair:
            message = f"error processing stream for request {request}: {kind} stream already assigned"
            if "error" in pair:
                pair["error"].write(message.encode())
            return
        pair[kind] = stream
        if len(pair) == 2:
            worker = threading.Thread(target=self._forward, args=(request, pair), name="fakekube-portforward",
                                      daemon=True)
            self.workers.append(worker)
            worker.start()

    def _forward(self, request: str, pair: dict[str, Stream]) -> None:
        data, error = pair["data"], pair["error"]
        port = int(data.header("port"))
        conn = PortConnection(self.pod, port, data.write, self.gone, incoming=data.incoming)
        failure = forward(self.find, self.pod, conn)
        if failure is None:
            data.close()
            error.close()
        else:
            error.write(failure.encode())
            data.reset()
            error.reset()
        self.pairs.pop(request, None)
        if self.conn is not None:
            self.conn.forget(data, error)

    def serve(self, conn: SpdyConnection) -> None:
        self.conn = conn
        try:
            conn.serve()
        finally:
            self.gone.set()
            for worker in self.workers:
                worker.join()
            conn.shutdown()
            conn.abort()
