"""What an exec'd (or attached) process sees: its command, its container, stdin to read, stdout and stderr to
write, the terminal size, and whether the client has gone. A handler registered with ``Store.on_exec`` gets one
``Process`` and returns the exit code (``None`` is 0)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from fakekube.pods.filesystem import ContainerFiles


class ExitStatus(Exception):  # noqa: N818 - a process's end, not a failure of the code raising it
    """Raised inside a handler or a built-in command to end the process with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Input:
    """A process's stdin: bytes the client sent, until it closes the stream (v5's close signal) or leaves."""

    def __init__(self, data: bytes = b"", *, closed: bool = False) -> None:
        self._buffer = bytearray(data)
        self._eof = closed
        self._cond = threading.Condition()

    def feed(self, data: bytes) -> None:
        with self._cond:
            if not self._eof:
                self._buffer += data
                self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    @property
    def at_eof(self) -> bool:
        with self._cond:
            return self._eof and not self._buffer

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all of it until end of input when ``size`` < 0); b"" at end of input."""
        with self._cond:
            while True:
                if size < 0 and self._eof or size >= 0 and (self._buffer or self._eof):
                    n = len(self._buffer) if size < 0 else min(size, len(self._buffer))
                    out = bytes(self._buffer[:n])
                    del self._buffer[:n]
                    return out
                self._cond.wait()

    def readline(self) -> bytes:
        with self._cond:
            while b"\n" not in self._buffer and not self._eof:
                self._cond.wait()
            end = self._buffer.find(b"\n")
            n = len(self._buffer) if end < 0 else end + 1
            out = bytes(self._buffer[:n])
            del self._buffer[:n]
            return out


Writer = Callable[[bytes], None]


def _discard(data: bytes) -> None:
    return None


@dataclass
class Process:
    """One command running in a fake container."""

    command: list[str]
    pod: Mapping[str, Any]
    container: str
    files: ContainerFiles
    env: dict[str, str]
    stdin: Input = field(default_factory=lambda: Input(closed=True))
    write_stdout: Writer = _discard
    write_stderr: Writer = _discard
    tty: bool = False
    terminal_size: tuple[int, int] | None = None  # (width, height) of the client's terminal, with a TTY
    gone: threading.Event = field(default_factory=threading.Event)  # the client left or the server stops
    now: Callable[[], datetime] = lambda: datetime.now(UTC)  # the cluster's clock (``date``)
    attach: bool = False  # an attach to the container's main process, not an exec
    container_output: Writer = _discard  # the container's own stdout (its log): ``> /proc/1/fd/1``
    # Start listening on a port of the pod with a port-forward handler; returns what stops it. Only a
    # container's main process listens (``fakekube.pods.mainprocess``); an exec's listener answers nobody.
    listen: Callable[[int, Any], Callable[[], None]] = lambda port, handler: lambda: None

    @property
    def namespace(self) -> str:
        return str((self.pod.get("metadata") or {}).get("namespace", ""))

    @property
    def pod_name(self) -> str:
        return str((self.pod.get("metadata") or {}).get("name", ""))

    def stdout(self, data: bytes | str) -> None:
        self.write_stdout(data.encode() if isinstance(data, str) else data)

    def stderr(self, data: bytes | str) -> None:
        self.write_stderr(data.encode() if isinstance(data, str) else data)

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds``; False when the client left first (the process should end)."""
        return not self.gone.wait(seconds)


ExecHandler = Callable[[Process], "int | None"]
