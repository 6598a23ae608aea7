"""What the container shell's parts share: the ``Wait`` a running script yields, a command's streams (``IO``),
and the exceptions that carry ``break``, ``continue`` and ``return`` out of the commands that run them."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass

Out = Callable[[bytes], None]


@dataclass(frozen=True)
class Wait:
    """A request to the driver: wait ``seconds`` (None: until the process is stopped)."""

    seconds: float | None


Run = Generator[Wait, None, int]


class Break(Exception):  # noqa: N818 - control flow
    def __init__(self, levels: int) -> None:
        self.levels = levels


class Continue(Break):
    pass


class Return(Exception):  # noqa: N818 - control flow
    def __init__(self, code: int) -> None:
        self.code = code


@dataclass
class IO:
    stdin: bytes | None  # None: the process's own stdin
    out: Out
    err: Out


def discard(data: bytes) -> None:
    return None
