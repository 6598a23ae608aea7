"""Start and stop the oracle: a real control plane built by ``scripts/build-oracle`` (see docs/oracle.md).

Independent of fakekube: the harness must judge fakekube, so it never imports it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
DEFAULT_BIN = REPO / "oracle" / "bin"


class OracleUnavailable(RuntimeError):
    """The oracle's binaries are not built here (run scripts/build-oracle)."""


@dataclass(frozen=True)
class Oracle:
    kubeconfig: Path
    directory: Path
    boot_seconds: float


def oracle_binary() -> Path:
    """The oracle binary: $FAKEKUBE_ORACLE_BIN (a folder or the binary itself), else oracle/bin/oracle."""
    configured = os.environ.get("FAKEKUBE_ORACLE_BIN")
    path = Path(configured) if configured else DEFAULT_BIN
    if path.is_dir():
        path = path / "oracle"
    if not path.exists():
        raise OracleUnavailable(f"{path} does not exist: build it with scripts/build-oracle")
    return path


@contextmanager
def running_oracle(*extra_args: str, timeout: float = 180.0) -> Iterator[Oracle]:
    """A real control plane for the duration of the block; always stopped, its logs kept on failure."""
    binary = oracle_binary()
    directory = Path(tempfile.mkdtemp(prefix="fakekube-oracle-"))
    ready = directory / "ready"
    log = open(directory / "oracle.log", "wb")  # noqa: SIM115 - closed in finally
    started = time.monotonic()
    process = subprocess.Popen(
        [str(binary), "--dir", str(directory / "data"), "--ready-file", str(ready), *extra_args],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        while not ready.exists():
            if process.poll() is not None:
                raise RuntimeError(f"the oracle exited with {process.returncode}:\n{_tail(directory / 'oracle.log')}")
            if time.monotonic() - started > timeout:
                raise RuntimeError(f"the oracle was not ready after {timeout:.0f}s:\n{_tail(directory / 'oracle.log')}")
            time.sleep(0.05)
        boot = time.monotonic() - started
        yield Oracle(Path(ready.read_text().strip()), directory, boot)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        log.close()
        shutil.rmtree(directory, ignore_errors=True)


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
