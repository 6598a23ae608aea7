"""Fixtures shared by the in-process tests."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def inet_sockets(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The families of every internet socket created during the test (Unix sockets, asyncio's self-pipe, not)."""
    created: list[int] = []
    init = socket.socket.__init__

    def record(self: socket.socket, family: int = -1, *args: object, **kwargs: object) -> None:
        init(self, family, *args, **kwargs)  # type: ignore[arg-type]
        if self.family in (socket.AF_INET, socket.AF_INET6):
            created.append(self.family)

    monkeypatch.setattr(socket.socket, "__init__", record)
    return created
