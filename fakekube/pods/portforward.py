"""What answers a port-forward to a fake pod: a handler registered for the pod and port
(``PortForwards.on_port_forward``; the newest matching rule wins, as kwok's ``ClusterPortForward``), a real
address (``forward_to(host, port)``), what the container's main command listens on (``listen``: an echo server,
``python -m http.server``; ``fakekube.pods.servers``), or the built-in HTTP responder on the ports the pod listens on (its
containers' declared ``containerPort`` s, and nginx images' 80): it serves the container's files under the
image's document root (nginx: ``/usr/share/nginx/html``) and echoes any other request as JSON.

A handler gets a ``PortConnection`` (``recv``/``send``/``close``) and returns when the connection is done.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fakekube.pods.filesystem import ContainerFiles, FileSystemError, image_name
from fakekube.pods.process import Input
from fakekube.pods.selection import ContainerSelector, Rules


class PortConnection:
    """One forwarded TCP connection, from the pod's side."""

    def __init__(self, pod: Mapping[str, Any], port: int, send: Callable[[bytes], None],
                 gone: threading.Event, incoming: Input | None = None) -> None:
        self.pod = pod
        self.port = port
        self.incoming = incoming if incoming is not None else Input()
        self._send = send
        self.gone = gone
        self.closed = False

    def recv(self, size: int = 65536) -> bytes:
        """Bytes the client sent (b"" once it is gone)."""
        return self.incoming.read(size)

    def send(self, data: bytes) -> None:
        if not self.closed and data:
            self._send(data)

    def close(self) -> None:
        self.closed = True


PortHandler = Callable[[PortConnection], None]


def forward_to(host: str, port: int) -> PortHandler:
    """A handler that connects to a real address (a server the test runs) and copies both ways."""
    def handler(conn: PortConnection) -> None:
        with socket.create_connection((host, port), timeout=10) as upstream:
            upstream.settimeout(None)

            def pump() -> None:
                while chunk := conn.recv():
                    upstream.sendall(chunk)
                with contextlib.suppress(OSError):
                    upstream.shutdown(socket.SHUT_WR)

            threading.Thread(target=pump, name="fakekube-portforward-pump", daemon=True).start()
            while data := upstream.recv(65536):
                conn.send(data)
    return handler


DOCUMENT_ROOTS = {"nginx": "/usr/share/nginx/html", "httpd": "/usr/local/apache2/htdocs"}
NGINX_404 = (b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1>"
             b"</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def listening_ports(pod: Mapping[str, Any]) -> set[int]:
    ports: set[int] = set()
    for c in (pod.get("spec") or {}).get("containers") or []:
        ports.update(int(p["containerPort"]) for p in c.get("ports") or [] if isinstance(p.get("containerPort"), int))
        if image_name(str(c.get("image") or "")) in DOCUMENT_ROOTS:
            ports.add(80)
    return ports


def _read_request(conn: PortConnection, buffer: bytearray) -> tuple[str, str, dict[str, str], bytes] | None:
    while b"\r\n\r\n" not in buffer:
        chunk = conn.recv()
        if not chunk:
            return None
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, *_ = (lines[0].split(" ") + ["", ""])[:3]
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0") or 0)
    body = bytearray(rest)
    while len(body) < length:
        chunk = conn.recv()
        if not chunk:
            break
        body += chunk
    buffer[:] = body[length:]
    return method, target, headers, bytes(body[:length])


def http_responder(files: ContainerFiles, image: str, root: str | None = None) -> PortHandler:
    """An HTTP/1.1 server with keep-alive: files under ``root`` (by default the image's document root), else a
    JSON echo."""
    root = root or DOCUMENT_ROOTS.get(image_name(image))

    def handler(conn: PortConnection) -> None:
        buffer = bytearray()
        while (request := _read_request(conn, buffer)) is not None:
            method, target, headers, body = request
            path = target.split("?", 1)[0]
            if root is not None:
                file = root + (path.rstrip("/") + "/index.html" if path.endswith("/") else path)
                try:
                    status, content, ctype = 200, files.read(file), "text/html"
                except FileSystemError:
                    status, content, ctype = 404, NGINX_404, "text/html"
                server = "nginx"
            else:
                status, ctype, server = 200, "application/json", "fakekube"
                content = json.dumps({"method": method, "path": target, "headers": headers,
                                      "body": body.decode(errors="replace")}).encode()
            phrase = "OK" if status == 200 else "Not Found"
            conn.send(f"HTTP/1.1 {status} {phrase}\r\nServer: {server}\r\nContent-Type: {ctype}\r\n"
                      f"Content-Length: {len(content)}\r\n\r\n".encode()
                      + (content if method != "HEAD" else b""))
            if headers.get("connection", "").lower() == "close":
                return
    return handler


class PortForwards:
    """The port-forward behaviours of one store's pods."""

    def __init__(self) -> None:
        self.handlers: Rules[tuple[frozenset[int], PortHandler]] = Rules()
        # What containers' main processes listen on: (pod uid, port) → handler (``fakekube.pods.mainprocess``).
        self._listening: dict[tuple[str, int], PortHandler] = {}
        self._lock = threading.Lock()

    def listen(self, uid: str, port: int, handler: PortHandler) -> Callable[[], None]:
        """A process of pod ``uid`` listens on ``port``; returns what closes the listener."""
        key = (uid, port)
        with self._lock:
            self._listening[key] = handler

        def close() -> None:
            with self._lock:
                if self._listening.get(key) is handler:
                    del self._listening[key]
        return close

    def on_port_forward(
        self,
        handler: PortHandler,
        *,
        port: int | Iterable[int] | None = None,
        namespace: str | Iterable[str] | None = None,
        pod: str | Iterable[str] | None = None,
        labels: str | Mapping[str, str] | None = None,
    ) -> Callable[[], None]:
        """Answer port-forwards to ``port`` (every port when None) of the selected pods with ``handler``."""
        ports = frozenset([port] if isinstance(port, int) else port or ())
        return self.handlers.add(ContainerSelector.of(namespace=namespace, pod=pod, labels=labels),
                                 (ports, handler))

    def find(self, pod: Mapping[str, Any], port: int, files: Callable[[str], ContainerFiles]) -> PortHandler | None:
        """The handler for ``port``, or None when nothing listens there (connection refused)."""
        for selector, (ports, handler) in reversed(self.handlers.entries()):
            if selector.matches(pod, "") and (not ports or port in ports):
                return handler
        with self._lock:
            listener = self._listening.get((str((pod.get("metadata") or {}).get("uid", "")), port))
        if listener is not None:
            return listener
        if port not in listening_ports(pod):
            return None
        containers = (pod.get("spec") or {}).get("containers") or [{}]
        owner = next((c for c in containers if image_name(str(c.get("image") or "")) in DOCUMENT_ROOTS
                      or any(p.get("containerPort") == port for p in c.get("ports") or [])), containers[0])
        return http_responder(files(str(owner.get("name", ""))), str(owner.get("image") or ""))
