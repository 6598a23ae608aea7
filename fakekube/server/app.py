"""``ApiServer``: the fake API server over HTTP, on the standard library's ThreadingHTTPServer.

One thread per connection (watches block in their own thread on the store's watch queue), keep-alive, Nagle
off. ``start()`` serves from a background thread; ``stop()`` ends every watch, closes every open connection and
joins the threads, so a test leaves nothing behind. Binds loopback unless told otherwise.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Mapping
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fakekube.identity import Authorizer, UserInfo
from fakekube.server.auth import actor_from_user_agent
from fakekube.server.bodies import DEFAULT_MAX_BODY_BYTES
from fakekube.server.front import Front
from fakekube.server.handler import ApiHandler
from fakekube.server.kubeconfig import write_kubeconfig
from fakekube.server.tls import Certificates, make_certificates
from fakekube.server.watchstream import MAX_PENDING
from fakekube.store import Store

# encoding/json's maxNestingDepth is 10,000; a document that deep takes a few Python frames per level in the
# decoders, patch engines and copies. Each request thread reserves this much stack (virtual memory, committed
# only as far as a request recurses).
RECURSION_LIMIT = 60_000
REQUEST_STACK_BYTES = 256 * 1024 * 1024


def raise_recursion_limit() -> None:
    """Let request threads recurse as deep as a 10,000-level body needs (never lowers the limit)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


class ApiServer(ThreadingHTTPServer):
    """``version_minor`` overrides the minor release ``/version`` reports (default: the store's emulated
    Kubernetes version)."""

    daemon_threads = True
    block_on_close = False  # stop() closes connections and joins the threads itself
    request_queue_size = 256  # room for a burst of watch connections

    def __init__(
        self,
        store: Store | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        token: str | None = None,
        tokens: Mapping[str, str | UserInfo] | None = None,
        authorizer: Authorizer | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        version_minor: str | None = None,
        watch_timeout: float = 1800.0,
        bookmark_interval: float = 30.0,
        poll_interval: float = 0.25,
        idle_timeout: float = 90.0,
        watch_max_pending: int = MAX_PENDING,
        actor_of: Callable[[str | None], str] = actor_from_user_agent,
        tls: bool = False,
    ) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.front = Front(store, host=host, token=token, tokens=tokens, authorizer=authorizer,
                           max_body_bytes=max_body_bytes, version_minor=version_minor, watch_timeout=watch_timeout,
                           bookmark_interval=bookmark_interval, poll_interval=poll_interval,
                           watch_max_pending=watch_max_pending, actor_of=actor_of, tls=tls)
        self.idle_timeout = idle_timeout
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._conn_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._wakeup: tuple[int, ...] = os.pipe()  # written by stop(): wakes the serving thread's wait for connections
        self.certificates: Certificates | None = None
        self.ssl_context: ssl.SSLContext | None = None
        if tls:
            self.certificates = make_certificates(tuple(dict.fromkeys((host, "127.0.0.1", "localhost", "::1"))))
            self.ssl_context = self.certificates.server_context()
        raise_recursion_limit()
        super().__init__((host, port), ApiHandler)

    # The front's parts, as attributes of the server (what tests and the CLI reach for).
    store = property(lambda self: self.front.store)
    token = property(lambda self: self.front.token)
    authenticator = property(lambda self: self.front.authenticator)
    authorizer = property(lambda self: self.front.authorizer)
    streamer = property(lambda self: self.front.streamer)
    discovery = property(lambda self: self.front.discovery)
    openapi = property(lambda self: self.front.openapi)
    closing = property(lambda self: self.front.closing)

    # -- addresses -------------------------------------------------------------------------------------------

    @property
    def host(self) -> str:
        return str(self.server_address[0])

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://{host}:{self.port}"

    @property
    def ca_pem(self) -> bytes | None:
        """The CA certificate clients must trust when the server speaks TLS."""
        return self.certificates.ca_pem if self.certificates is not None else None

    def write_kubeconfig(self, path: str | Path, *, namespace: str = "default") -> Path:
        """A kubeconfig for this server: its token if it has one, else (over TLS) the admin client certificate."""
        certs = self.certificates
        client = (certs.client_cert_pem, certs.client_key_pem) if certs is not None else None
        return write_kubeconfig(path, self.url, token=self.token, namespace=namespace, ca_pem=self.ca_pem,
                                client_certificate=client)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        if self.ssl_context is not None:
            # The handshake happens in the connection's own thread (ApiHandler.setup), never in accept().
            sock = self.ssl_context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, address

    # -- connection bookkeeping --------------------------------------------------------------------------------

    def process_request(self, request: Any, client_address: Any) -> None:
        # A connection's thread gets a stack deep enough for a body nested as deep as Go's decoder allows
        # (10,000 levels): Python walks documents recursively, and C code in the walk uses the thread's stack.
        # (The recursion limit was raised when the server was made, in the thread that made it: changing it here,
        # in the accept loop's thread, can break another thread's ast.parse midway — CPython 3.11 checks its depth.)
        previous = threading.stack_size(REQUEST_STACK_BYTES)
        try:
            super().process_request(request, client_address)
        finally:
            threading.stack_size(previous)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._conn_lock:
            self._connections[request] = threading.current_thread()
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._conn_lock:
                self._connections.pop(request, None)

    def shutdown_request(self, request: Any) -> None:
        # TLS ends with the server's close_notify, as Go's tls.Conn.Close sends it: a client that gets a bare TCP
        # close sees a truncation attack (SSLEOFError), and asyncio clients (aiohttp, kopf) keep the transport.
        # Non-blocking: the alert is sent, the client's reply is not waited for.
        if isinstance(request, ssl.SSLSocket):
            with contextlib.suppress(OSError, ValueError):
                request.setblocking(False)
                request.unwrap()
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A connection that broke outside a request (reset during the request line, ...): nothing to answer.
        logging.getLogger("fakekube.server").debug("connection error from %s", client_address, exc_info=True)

    @property
    def open_connections(self) -> int:
        with self._conn_lock:
            return len(self._connections)

    # -- lifecycle -------------------------------------------------------------------------------------------

    def start(self) -> ApiServer:
        """Serve from a daemon thread; returns once the socket accepts connections (it already listens)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve_until_stopped,
                                            name=f"fakekube-server-{self.port}", daemon=True)
            self._thread.start()
        return self

    def _serve_until_stopped(self) -> None:
        """``serve_forever`` that ``stop`` wakes at once: the stdlib's notices a shutdown only at its next poll
        (it cost a test's teardown 49 of its 56 ms), this one also waits on a wakeup pipe ``stop`` writes to."""
        with selectors.PollSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wakeup[0], selectors.EVENT_READ)
            while not self._stopping:
                ready = selector.select()
                if self._stopping:
                    break
                if any(key.fileobj is self for key, _ in ready):
                    self._handle_request_noblock()
                self.service_actions()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop accepting, end every watch stream, close idle keep-alive connections, join the threads."""
        self.front.close()
        if self._thread is not None:
            self._stopping = True
            os.write(self._wakeup[1], b"x")
            self._thread.join(timeout)
            self._thread = None
        wakeup, self._wakeup = self._wakeup, ()
        for fd in wakeup:
            with contextlib.suppress(OSError):
                os.close(fd)
        with self._conn_lock:
            connections = list(self._connections.items())
        for conn, _ in connections:
            with contextlib.suppress(OSError):
                # Wakes a handler blocked reading the next request. (Not SHUT_RD alone, to let it send a TLS
                # close_notify: OpenSSL answers a read cut short with a decode_error alert, not a clean close.)
                conn.shutdown(socket.SHUT_RDWR)
        for _, thread in connections:
            if thread is not threading.current_thread():
                thread.join(timeout)
        self.server_close()

    close = stop

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_until_interrupted(self) -> None:
        try:
            self.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            # Like stop(): a handler may still be writing the audit event of a reply its client already has.
            self.stop()
