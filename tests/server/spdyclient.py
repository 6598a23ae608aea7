"""A minimal SPDY/3.1 client for tests: the HTTP upgrade, then streams opened and read as client-go's
spdystream does, framed by fakekube's own codec in the client's direction (FrameWriter writes what a client
writes; FrameReader reads what the server sends)."""

from __future__ import annotations

import contextlib
import queue
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from fakekube.server import spdy


class SpdyClient:
    def __init__(self, url: str, protocols: list[str] | None, *, upgrade: str = "SPDY/3.1",
                 extra: str = "", send: Callable[[bytes], None] | None = None,
                 chunks: Callable[[], bytes] | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.writer = spdy.FrameWriter()
        self.reader = spdy.FrameReader()
        self.frames: queue.Queue[spdy.Frame | None] = queue.Queue()
        self.data: dict[int, bytearray] = {}
        self.fin: dict[int, threading.Event] = {}
        self.control: list[spdy.Frame] = []
        self.next_id = 1
        self.status = 0
        self.head = ""
        self.body = b""
        if send is not None and chunks is not None:  # an already-upgraded transport (the WebSocket tunnel)
            self._send, self._chunks, self.sock = send, chunks, None
            self.status = 101
        else:
            self._connect(url, protocols, upgrade, extra)
        if self.status == 101:
            self._thread = threading.Thread(target=self._read, name="spdyclient-read", daemon=True)
            self._thread.start()

    def _connect(self, url: str, protocols: list[str] | None, upgrade: str, extra: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
        if self.tls is not None:
            self.sock = self.tls.wrap_socket(self.sock, server_hostname=parts.hostname)
        lines = [f"POST {parts.path}?{parts.query} HTTP/1.1", f"Host: {parts.netloc}", "Connection: Upgrade",
                 f"Upgrade: {upgrade}", "Content-Length: 0"]
        lines += [f"X-Stream-Protocol-Version: {p}" for p in protocols or []]
        request = "\r\n".join(lines) + "\r\n" + extra + "\r\n"
        self.sock.sendall(request.encode())
        raw = b""
        while b"\r\n\r\n" not in raw:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            raw += chunk
        head, _, rest = raw.partition(b"\r\n\r\n")
        self.head = head.decode("latin-1")
        self.status = int(self.head.split(" ")[1])
        self.body = rest
        if self.status != 101:
            length = int(self.header("Content-Length") or 0)
            while len(self.body) < length and (chunk := self.sock.recv(65536)):
                self.body += chunk
            return
        self._pending = rest
        self._send = self.sock.sendall
        self._chunks = self._socket_chunks

    def _socket_chunks(self) -> bytes:
        if self._pending:
            data, self._pending = self._pending, b""
            return data
        try:
            return self.sock.recv(65536) if self.sock else b""
        except OSError:
            return b""

    def header(self, name: str) -> str:
        values = self.headers(name)
        return values[0] if values else ""

    def headers(self, name: str) -> list[str]:
        return [line.split(":", 1)[1].strip() for line in self.head.split("\r\n")[1:]
                if line.split(":", 1)[0].lower() == name.lower()]

    def _read(self) -> None:
        try:
            while chunk := self._chunks():
                for frame in self.reader.feed(chunk):
                    if frame.kind == 0:
                        self.data.setdefault(frame.stream, bytearray()).extend(frame.data)
                        if frame.fin:
                            self.fin.setdefault(frame.stream, threading.Event()).set()
                    else:
                        self.control.append(frame)
                        if frame.kind == spdy.RST_STREAM:
                            self.fin.setdefault(frame.stream, threading.Event()).set()
                    self.frames.put(frame)
        except Exception:  # noqa: BLE001 - the test sees the end of frames
            pass
        self.frames.put(None)

    def raw(self, data: bytes) -> None:
        self._send(data)

    def open(self, headers: dict[str, str], fin: bool = False) -> int:
        stream, self.next_id = self.next_id, self.next_id + 2
        self.fin.setdefault(stream, threading.Event())
        self._send(self.writer.syn_stream(stream, {k: [v] for k, v in headers.items()}, fin=fin))
        return stream

    def write(self, stream: int, data: bytes, fin: bool = False) -> None:
        self._send(self.writer.data(stream, data, fin=fin))

    def next_frame(self, timeout: float = 5) -> spdy.Frame | None:
        return self.frames.get(timeout=timeout)

    def wait(self, kind: int, stream: int | None = None, timeout: float = 5) -> spdy.Frame | None:
        """The next control frame of ``kind`` (for ``stream``), None when the connection ends first."""
        while True:
            frame = self.frames.get(timeout=timeout)
            if frame is None:
                return None
            if frame.kind == kind and (stream is None or frame.stream == stream):
                return frame

    def ended(self, stream: int, timeout: float = 5) -> bytes:
        """The stream's data once the server ended it (FIN or RST)."""
        assert self.fin.setdefault(stream, threading.Event()).wait(timeout), f"stream {stream} never ended"
        return bytes(self.data.get(stream, b""))

    def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            self.sock.close()
        if self.status == 101 and self._thread is not threading.current_thread():
            self._thread.join(5)

    def __enter__(self) -> SpdyClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
