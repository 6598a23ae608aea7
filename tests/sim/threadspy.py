"""Which threads a block started: the asyncio-in-virtual-time tests check that none was."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def threads_started() -> Iterator[list[threading.Thread]]:
    """Every ``threading.Thread.start`` call inside the block, in a list (the threads still start)."""
    started: list[threading.Thread] = []
    original_start = threading.Thread.start

    def spy(thread: threading.Thread) -> None:
        started.append(thread)
        original_start(thread)

    threading.Thread.start = spy  # type: ignore[method-assign]
    try:
        yield started
    finally:
        threading.Thread.start = original_start  # type: ignore[method-assign]
