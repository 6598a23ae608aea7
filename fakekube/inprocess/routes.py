"""Which fake's front answers which host, for one client library's patched entry point.

Every in-process transport patches a library's connection entry point (urllib3's ``PoolManager.urlopen``, httpx's
default transports, aiohttp's ``TCPConnector``, websocket-client's ``WebSocket.connect``) while at least one
``mock_kubernetes`` block routes a host, and restores it when the last one leaves; blocks nest, and the innermost
block's front answers its host.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from fakekube.server.front import Front

Undo = Callable[[], None]


def replace_attribute(owner: Any, name: str, new: Any) -> tuple[Any, Undo]:
    """Set ``owner.name`` to ``new``: the value it had, and what puts that value back."""
    original = getattr(owner, name)
    setattr(owner, name, new)

    def undo() -> None:
        setattr(owner, name, original)
    return original, undo


def undo_all(undos: list[Undo]) -> Undo:
    """One undo for several patches, in the order given."""
    def undo() -> None:
        for each in undos:
            each()
    return undo


class Routes:
    def __init__(self, patch: Callable[[], Undo]) -> None:
        """``patch`` installs the library's patch and returns what undoes it."""
        self._patch = patch
        self._undo: Undo | None = None
        self._fronts: list[tuple[str, Front]] = []  # innermost last
        self.lock = threading.Lock()

    def front_for(self, host: str | None) -> Front | None:
        for name, front in reversed(self._fronts):
            if name == host:
                return front
        return None

    def add(self, host: str, front: Front) -> None:
        with self.lock:
            if self._undo is None:
                self._undo = self._patch()
            self._fronts.append((host, front))

    def remove(self, host: str, front: Front) -> None:
        with self.lock:
            self._fronts.remove((host, front))
            if not self._fronts and self._undo is not None:
                self._undo()
                self._undo = None
