"""Exec and attach over a WebSocket with the Kubernetes channel subprotocols: each message is one channel byte
(stdin 0, stdout 1, stderr 2, error 3, resize 4) and its data, as ``k8s.io/streaming/pkg/httpstream/wsstream``
frames it (v0.37.2, ``conn.go``).

Two servers answer WebSocket clients on a real cluster, and this module answers as each does:

- ``v5.channel.k8s.io`` is served by the stream translator (apiserver ``pkg/util/proxy/streamtranslator.go``
  and ``websocket.go``, v0.37.2; the kubelet runs the same code when it serves WebSockets itself): binary frames,
  the client may half-close a channel (255 then the channel byte), and the error channel carries a
  ``metav1.Status`` (``{"metadata":{},"status":"Success"}``; a non-zero exit code is a Failure with reason
  ``NonZeroExitCode`` and an ``ExitCode`` cause, its message re-wrapped by the translator); a failure to start
  the stream is an ``InternalError`` Status on the error channel after the upgrade.
- the older ``v4.channel.k8s.io``, ``v4.base64.channel.k8s.io``, ``channel.k8s.io``, ``base64.channel.k8s.io``
  and none are proxied to the kubelet's streaming server (k8s.io/cri-streaming ``pkg/streaming/remotecommand``
  ``websocket.go``/``exec.go``/``httpstream.go``): v4 writes the status as JSON without ``metadata``, the
  older protocols write only a failure's message; base64 variants send text frames of ``'0'+channel`` and
  base64 data.

In both, the server's first message is an empty one on stdout (or stderr, or error when neither is asked for).

A ``ChannelSession`` runs one exec or attach over a channel link: ``WebSocketChannels`` here, or SPDY streams
(``fakekube.server.spdyexec``), which carry the same channels as streams named by their ``streamType``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from fakekube.pods.execution import ExecRegistry
from fakekube.pods.process import Input, Process
from fakekube.server.websocket import WebSocket

logger = logging.getLogger("fakekube.server")

STDIN, STDOUT, STDERR, ERROR, RESIZE = range(5)
CLOSE_SIGNAL = 255
V5 = "v5.channel.k8s.io"
KUBELET_PROTOCOLS = ("", "channel.k8s.io", "base64.channel.k8s.io", "v4.channel.k8s.io", "v4.base64.channel.k8s.io")
COPY_CHUNK = 32 * 1024
CLOSE_GRACE = 2.0  # how long the server waits for the client's Close after its own


def negotiate(offered: list[str]) -> str | None:
    """The subprotocol the server picks: v5 when offered (the translator takes the request), else the first
    offered one the kubelet speaks (golang.org/x/net/websocket's handshake; none offered is ""), else None."""
    if V5 in offered:
        return V5
    for protocol in offered or [""]:
        if protocol in KUBELET_PROTOCOLS:
            return protocol
    return None


def send_frame(ws: Any, base64_channels: bool, channel: int, data: bytes) -> None:
    """One channel message: the channel number and the payload (the base64 protocols: an ASCII digit and the
    payload in base64, as a text message)."""
    if base64_channels:
        ws.send_text(chr(ord("0") + channel) + base64.b64encode(data).decode())
    else:
        ws.send_bytes(bytes([channel]) + data)


def split_frame(message: bytes | str, base64_channels: bool) -> tuple[int, bytes] | None:
    """A channel message's channel number and payload (the base64 protocols write the channel as an ASCII digit
    and the payload in base64); None for an empty or undecodable message, which the kubelet ignores."""
    data = message.encode("latin-1") if isinstance(message, str) else message
    if not data:
        return None
    if not base64_channels:
        return data[0], data[1:]
    try:
        return data[0] - ord("0"), base64.b64decode(data[1:])
    except ValueError:
        return None


@dataclass(frozen=True)
class StreamOptions:
    stdin: bool
    stdout: bool
    stderr: bool
    tty: bool


def status_json(status: dict[str, Any], protocol: str) -> bytes | None:
    """The error channel's message for ``status`` in ``protocol``; None when the protocol sends nothing."""
    if protocol == V5:
        ordered = {"metadata": {}, **status}
        return json.dumps(ordered, separators=(",", ":")).encode()
    if protocol.startswith("v4."):
        return json.dumps(status, separators=(",", ":")).encode()
    return status["message"].encode() if status["status"] != "Success" else None


def exit_status(code: int, command: list[str], protocol: str) -> dict[str, Any]:
    """The status of a finished command. containerd reports a non-zero exit as ``error executing command
    [ARGS], exit code N``; the kubelet wraps it, and the translator (v5) wraps the client-side decoding again."""
    if code == 0:
        return {"status": "Success"}
    inner = (f"command terminated with exit code {code}" if protocol == V5
             else f"error executing command [{' '.join(command)}], exit code {code}")
    return {"status": "Failure", "message": f"command terminated with non-zero exit code: {inner}",
            "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}


def internal_error(text: str, protocol: str) -> dict[str, Any]:
    """``apierrors.NewInternalError`` as the error channel carries it (the translator wraps the kubelet's own
    internal error once more)."""
    message = f"Internal error occurred: {text}"
    if protocol == V5 and text.startswith("error executing command in container"):
        text = message
        message = f"Internal error occurred: {message}"
    return {"status": "Failure", "message": message, "reason": "InternalError",
            "details": {"causes": [{"message": text}]}, "code": 500}


Receive = Callable[[int, "bytes | None"], None]


class ChannelLink(Protocol):
    """How a session's channels travel: ``open`` readies them (False: the client never did, the session ends),
    ``run`` reads until the client leaves, handing each message to ``receive(channel, data)`` (data None: the
    client closed that channel), ``send`` writes one, ``close`` ends the stream gracefully, ``abort`` at once."""

    def open(self, options: StreamOptions) -> bool: ...
    def run(self, receive: Receive) -> None: ...
    def send(self, channel: int, data: bytes) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


class WebSocketChannels:
    """Channels as WebSocket messages (a channel byte, or an ASCII digit and base64 in the base64 protocols)."""

    def __init__(self, ws: WebSocket, protocol: str) -> None:
        self.ws = ws
        self.protocol = protocol
        self.base64 = "base64" in protocol

    def open(self, options: StreamOptions) -> bool:
        self.send(STDOUT if options.stdout else STDERR if options.stderr else ERROR, b"")
        return True

    def send(self, channel: int, data: bytes) -> None:
        send_frame(self.ws, self.base64, channel, data)

    def run(self, receive: Receive) -> None:
        for message in self.ws.messages():
            data = message.encode("latin-1") if isinstance(message, str) else message
            if self.protocol == V5 and data[:1] == bytes((CLOSE_SIGNAL,)):
                if len(data) == 2:
                    receive(data[1], None)
                continue
            frame = split_frame(data, self.base64)
            if frame is not None:
                receive(*frame)

    def close(self) -> None:
        self.ws.close()

    def abort(self) -> None:
        self.ws.abort()


class ChannelSession:
    """One exec or attach stream: runs the process in a worker thread while the connection's thread reads."""

    def __init__(self, link: ChannelLink, protocol: str, options: StreamOptions,
                 start: Callable[..., Process] | None, registry: ExecRegistry | None,
                 failure: str | None = None, on_close: threading.Event | None = None) -> None:
        self.link = link
        self.protocol = protocol
        self.options = options
        self._start = start
        self._registry = registry
        self._failure = failure
        self._server_closing = on_close
        self.stdin = Input(closed=not options.stdin)
        self.gone = threading.Event()
        self._reader_done = threading.Event()
        self._proc: Process | None = None

    # -- writing ---------------------------------------------------------------------------------------

    def send(self, channel: int, data: bytes) -> None:
        self.link.send(channel, data)

    def _writer(self, channel: int) -> Callable[[bytes], None]:
        tty = self.options.tty

        def write(data: bytes) -> None:
            if tty:
                data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            # A container's output reaches the stream in io.Copy's 32 KiB reads, one message each.
            for start in range(0, len(data), COPY_CHUNK):
                self.send(channel, data[start:start + COPY_CHUNK])
        return write

    def _write_status(self, status: dict[str, Any]) -> None:
        message = status_json(status, self.protocol)
        if message is not None:
            self.send(ERROR, message)

    # -- running ---------------------------------------------------------------------------------------

    def serve(self) -> None:
        if not self.link.open(self.options):
            return
        worker = threading.Thread(target=self._work, name="fakekube-exec", daemon=True)
        worker.start()
        try:
            self.link.run(self._receive)
        finally:
            self._reader_done.set()
            self.gone.set()
            self.stdin.close()
            worker.join()

    def _receive(self, channel: int, payload: bytes | None) -> None:
        if payload is None:
            if channel == STDIN:
                self.stdin.close()
            return
        if channel == STDIN and self.options.stdin:
            if self.options.tty:
                self._terminal_input(payload)
            else:
                self.stdin.feed(payload)
        elif channel == RESIZE and self._proc is not None:
            with contextlib.suppress(ValueError, TypeError, KeyError, AttributeError):
                size = json.loads(payload)
                self._proc.terminal_size = (int(size["Width"]), int(size["Height"]))

    def _terminal_input(self, data: bytes) -> None:
        """A TTY's line discipline, as the container's terminal applies it to what the client types in raw
        mode: Enter's CR becomes NL (ICRNL), input is echoed (ECHO), Ctrl-D at a line's start ends the input."""
        data = data.replace(b"\r", b"\n")
        eof = b"\x04" in data
        data = data.split(b"\x04", 1)[0]
        if data and self.options.stdout:
            self.send(STDOUT, data.replace(b"\n", b"\r\n"))
        self.stdin.feed(data)
        if eof:
            self.stdin.close()

    def _work(self) -> None:
        try:
            if self._failure is not None or self._start is None or self._registry is None:
                self._write_status(internal_error(self._failure or "no process", self.protocol))
                return
            o = self.options
            proc = self._start(stdin=self.stdin, tty=o.tty, gone=self.gone,
                               write_stdout=self._writer(STDOUT) if o.stdout else _discard,
                               write_stderr=(self._writer(STDOUT) if o.tty and o.stdout else
                                             self._writer(STDERR) if o.stderr else _discard))
            self._proc = proc
            try:
                code = self._registry.run(proc)
            except Exception as exc:  # a handler's failure is the runtime's: reported, never raised
                logger.debug("exec handler failed", exc_info=True)
                self._write_status(internal_error(f"error executing command in container: {exc}", self.protocol))
                return
            self._write_status(exit_status(code, proc.command, self.protocol))
        finally:
            self.link.close()
            if not self._reader_done.wait(CLOSE_GRACE):
                self.link.abort()


def _discard(data: bytes) -> None:
    return None
