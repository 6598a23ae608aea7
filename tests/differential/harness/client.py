"""Send one request to an API server and keep exactly what came back: status, headers, bytes.

The standard library's http.client (not a Kubernetes client) so nothing is decoded, retried or defaulted on
the way: the harness compares what a client would really read. Credentials come from a kubeconfig (client
certificate and key data or files, CA data or file, bearer token). Every read is bounded by a timeout, so a
server that never answers fails the case instead of hanging the run.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

import base64
import http.client
import os
import ssl
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import yaml

DEFAULT_TIMEOUT = 15.0  # seconds for one ordinary request; a watch has its own


@dataclass
class Answer:
    """What the server sent: for a watch, ``events`` holds the stream's lines (raw bytes, one per event)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    events: list[bytes] | None = None
    error: str | None = None  # a transport failure (timeout, reset): the case records it as status 0

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), None)

    def header_values(self, name: str) -> list[str]:
        name = name.lower()
        return [v for k, v in self.headers if k.lower() == name]


@dataclass
class Request:
    method: str
    path: str  # the path only; query parameters go in ``query``
    query: list[tuple[str, str]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    watch_events: int | None = None  # read a watch stream: at most this many events ...
    watch_timeout: float = 5.0  # ... or until this many seconds pass
    timeout: float = DEFAULT_TIMEOUT
    anonymous: bool = False  # sent without the client's credentials (no certificate, no token)

    @property
    def target(self) -> str:
        return self.path + ("?" + urlencode(self.query) if self.query else "")


class Client:
    """One keep-alive connection to a server (reopened when the server closes it); not thread-safe."""

    def __init__(self, server: str, *, context: ssl.SSLContext | None = None,
                 token: str | None = None) -> None:
        parts = urlsplit(server)
        self.scheme = parts.scheme
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.context = context
        self.token = token
        self._conn: http.client.HTTPConnection | None = None
        self._anonymous: Client | None = None
        self.bare = False  # a client without credentials (anonymous())

    @classmethod
    def from_kubeconfig(cls, path: str | Path) -> Client:
        """The current context's server and credentials."""
        config = yaml.safe_load(Path(path).read_text())
        base = Path(path).parent
        current = config.get("current-context")
        contexts = {c["name"]: c["context"] for c in config.get("contexts", [])}
        context = contexts[current] if current in contexts else next(iter(contexts.values()))
        cluster = {c["name"]: c["cluster"] for c in config["clusters"]}[context["cluster"]]
        user = {u["name"]: u.get("user") or {} for u in config.get("users", [])}.get(context.get("user"), {})
        ssl_context = None
        if cluster["server"].startswith("https"):
            ssl_context = _ssl_context(cluster, user, base)
        return cls(cluster["server"], context=ssl_context, token=user.get("token"))

    def copy(self) -> Client:
        """Another connection to the same server with the same credentials (for a watch or another thread)."""
        return Client(f"{self.scheme}://{self.host}:{self.port}", context=self.context, token=self.token)

    def anonymous(self) -> Client:
        """A connection to the same server without credentials: no client certificate (the server's is not
        checked either: the harness only talks to loopback servers it started) and no token."""
        if self._anonymous is None:
            context = None
            if self.context is not None:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
            self._anonymous = Client(f"{self.scheme}://{self.host}:{self.port}", context=context)
            self._anonymous.bare = True
        return self._anonymous

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._anonymous is not None:
            self._anonymous.close()

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self.context is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.context)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def send(self, request: Request) -> Answer:
        """Send ``request``; never raises for what the server does (a transport failure is an Answer too)."""
        if request.anonymous and not self.bare:
            return self.anonymous().send(request)
        if request.watch_events is not None:
            return self._watch(request)
        headers = self._headers(request)
        # A kept-alive connection the server has since closed fails on first use: one retry on a fresh one.
        for attempt in (0, 1):
            if self._conn is None:
                self._conn = self._connect(request.timeout)
            conn = self._conn
            try:
                if conn.sock is not None:
                    conn.sock.settimeout(request.timeout)
                conn.request(request.method, request.target, body=request.body, headers=headers)
                response = conn.getresponse()
                body = _read_all(response, time.monotonic() + request.timeout)
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                if attempt == 0:
                    continue
                return Answer(0, [], b"", error=f"{type(exc).__name__}: {exc}")
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                return Answer(0, [], b"", error=f"{type(exc).__name__}: {exc}")
            if response.will_close:
                self.close()
            return Answer(response.status, list(response.getheaders()), body)
        raise AssertionError("unreachable")

    def _headers(self, request: Request) -> dict[str, str]:
        headers = {"User-Agent": "fakekube-differential/1", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.update(request.headers)
        if request.body is not None:
            headers.setdefault("Content-Length", str(len(request.body)))
        return headers

    def _watch(self, request: Request) -> Answer:
        """A stream of its own: read lines until ``watch_events`` events, the timeout, or the end."""
        deadline = time.monotonic() + request.watch_timeout
        conn = self._connect(min(request.timeout, request.watch_timeout + 5))
        events: list[bytes] = []
        try:
            conn.request(request.method, request.target, body=request.body, headers=self._headers(request))
            response = conn.getresponse()
            headers = list(response.getheaders())
            if response.status != 200:
                return Answer(response.status, headers, response.read())
            while len(events) < (request.watch_events or 0):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                assert conn.sock is not None
                conn.sock.settimeout(left)
                try:
                    line = response.readline()
                except TimeoutError:  # socket.timeout is TimeoutError since Python 3.10
                    break
                if not line:
                    break  # the server ended the stream
                if line.strip():
                    events.append(line.strip())
            return Answer(response.status, headers, b"", events=events)
        except (OSError, http.client.HTTPException) as exc:
            return Answer(0, [], b"", events=events, error=f"{type(exc).__name__}: {exc}")
        finally:
            conn.close()


def _read_all(response: http.client.HTTPResponse, deadline: float) -> bytes:
    """The whole body, or a TimeoutError once the deadline passes (a body that keeps trickling in, such as a
    stream nobody asked to watch, would otherwise beat every per-read timeout)."""
    parts = []
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("the body did not end in time")
        part = response.read(65536)  # read(n), unlike read1, marks the response done at its end
        if not part:
            return b"".join(parts)
        parts.append(part)


def _ssl_context(cluster: dict[str, Any], user: dict[str, Any], base: Path) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if cluster.get("insecure-skip-tls-verify"):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif "certificate-authority-data" in cluster:
        context.load_verify_locations(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
    elif "certificate-authority" in cluster:
        context.load_verify_locations(cafile=str(base / cluster["certificate-authority"]))
    cert, key = _material(user, "client-certificate", base), _material(user, "client-key", base)
    if cert is not None and key is not None:
        _load_cert_chain(context, cert, key)
    return context


def _material(user: dict[str, Any], name: str, base: Path) -> bytes | None:
    if f"{name}-data" in user:
        return base64.b64decode(user[f"{name}-data"])
    if name in user:
        return (base / user[name]).read_bytes()
    return None


def _load_cert_chain(context: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """ssl reads a certificate chain only from files: write them privately for the moment it takes."""
    with tempfile.TemporaryDirectory(prefix="fakekube-diff-") as directory:
        cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
        for path, data in ((cert_path, cert), (key_path, key)):
            with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as handle:
                handle.write(data)
        context.load_cert_chain(cert_path, key_path)

