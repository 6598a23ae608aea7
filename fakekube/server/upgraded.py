"""The socket of an upgraded connection (WebSocket, SPDY), read by one thread while others write.

Over TLS that needs care: an OpenSSL connection must not be used by two threads at once, and a read blocked in
``SSL_read`` while another thread runs ``SSL_write`` sometimes ended the read with a spurious end of stream (seen
as client-go's WebSocket executor getting ``close 1006 (abnormal closure)`` against ``fakekube serve --tls``).
So with TLS the reader waits for bytes with ``poll`` outside the lock and reads under the same lock the writers
take; a plain socket is read and written freely, as the kernel allows.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
from typing import Any, BinaryIO

READ_SIZE = 64 * 1024


class UpgradedSocket:
    def __init__(self, sock: socket.socket, rfile: BinaryIO | Any) -> None:
        self._sock = sock
        self._rfile = rfile
        self._tls = isinstance(sock, ssl.SSLSocket)
        self._lock = threading.Lock()
        self._started = False

    def read(self) -> bytes:
        """The next bytes the client sent; b"" once it closed, the connection broke, or it idled past the
        socket's timeout."""
        try:
            if not self._started:
                # What the request's reader already buffered past the HTTP head comes first.
                self._started = True
                if self._tls:
                    with self._lock:
                        buffered = self._buffered()
                    if buffered:
                        return buffered
            if not self._tls:
                return self._rfile.read1(READ_SIZE) or b""
            while True:
                with self._lock:
                    pending = self._sock.pending()
                if not pending:
                    timeout = self._sock.gettimeout()
                    poller = select.poll()
                    poller.register(self._sock, select.POLLIN)
                    if not poller.poll(None if timeout is None else int(timeout * 1000)):
                        return b""  # idle too long
                with self._lock:
                    try:
                        return self._rfile.read1(READ_SIZE) or b""
                    except (ssl.SSLWantReadError, BlockingIOError):
                        continue  # a partial TLS record: wait for the rest
        except (OSError, ValueError):
            return b""

    def _buffered(self) -> bytes:
        """Bytes the buffered reader holds, without waiting for the socket."""
        timeout = self._sock.gettimeout()
        self._sock.setblocking(False)
        try:
            return self._rfile.read1(READ_SIZE) or b""
        except (ssl.SSLWantReadError, BlockingIOError):
            return b""
        finally:
            self._sock.settimeout(timeout)

    def write(self, data: bytes) -> bool:
        """Send ``data``; False when the connection is gone."""
        with self._lock:
            try:
                self._sock.sendall(data)
                return True
            except (OSError, ValueError):
                return False

    def shutdown(self, how: int) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(how)
