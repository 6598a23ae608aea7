"""No connection leaves a test: ``socket.socket.connect`` and ``connect_ex`` refuse every address but a Unix
socket's while a guard is on (``mock_kubernetes`` turns one on), so a client that was not routed into the fake
fails loudly instead of reaching a real cluster. asyncio's and ssl's connects go through these methods too."""

from __future__ import annotations

import socket
import threading
from typing import Any

_LOCK = threading.Lock()
_depth = 0
_originals: tuple[Any, Any] | None = None


class NetworkBlocked(ConnectionRefusedError):
    """A connection attempted inside ``mock_kubernetes``."""


def _refuse(sock: socket.socket, address: Any) -> None:
    if sock.family == getattr(socket, "AF_UNIX", None):
        return
    raise NetworkBlocked(f"fakekube.mock_kubernetes: no connection may leave the test (to {address!r}); "
                         "pass block_network=False to allow it")


def _connect(self: socket.socket, address: Any) -> None:
    _refuse(self, address)
    assert _originals is not None
    return _originals[0](self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    _refuse(self, address)
    assert _originals is not None
    return int(_originals[1](self, address))


def block() -> None:
    global _depth, _originals
    with _LOCK:
        if _depth == 0:
            _originals = (socket.socket.connect, socket.socket.connect_ex)
            socket.socket.connect = _connect  # type: ignore[method-assign]
            socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
        _depth += 1


def unblock() -> None:
    global _depth, _originals
    with _LOCK:
        _depth -= 1
        if _depth == 0 and _originals is not None:
            socket.socket.connect, socket.socket.connect_ex = _originals  # type: ignore[method-assign]
            _originals = None
