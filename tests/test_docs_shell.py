"""The shell examples of README.md and docs/ run against a served cluster.

A block runs when its fence says so: ```bash run (or ```sh run). For each page with such blocks the test
starts ``fakekube serve --nodes 3`` (a cluster: kubelets, scheduler, controllers) with a kubeconfig, sets
``KUBECONFIG`` and a private ``KUBECACHEDIR``, and runs the page's blocks in order with ``bash -euo pipefail``
in one temporary folder, so a file a block writes (a ``deployment.yaml``) is there for the next. The folder
holds a ``docs`` link to the repository's docs/, so a page can use a file that ships with it
(``docs/pr-508-tables.md``) by the path a reader in a checkout would type. ``fakekube`` and ``python`` are
this environment's.

Every other ```bash/```sh/```console block is listed in NOT_RUN with the reason, so none is skipped silently
(``test_every_shell_block_runs_or_says_why``). Slow (a server per page, kubectl processes): ``pytest -m slow``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)
SHELLS = ("bash", "sh", "console", "shell")
RUN = "run"

# Pages whose shell blocks do not run in CI, and why (one reason per page; every listed page must have one).
NOT_RUN = {
    "README.md": "installs the package and runs the whole suite (minutes); CI does both as its own steps",
    "docs/benchmarks.md": "benchmark suites take minutes and measure the host",
    "docs/cluster.md": "the first block starts the server the runner already provides",
    "docs/explore.md": "500-seed explorations (minutes); the reproducer they write runs as a python block",
    "docs/go.md": "Go builds and suites (minutes, the Go toolchain and module cache); .ci/run runs them",
    "docs/malformed-input.md": "the fuzzer runs for minutes",
    "docs/oracle.md": "needs the oracle's Go build and a real kube-apiserver",
    "docs/quickstart.md": "pip install (network or a package cache); CI installs the package itself",
    "docs/reproducing-pr-508.md": "seed-load runs (minutes), Go builds and the oracle; a seed-timeline run and "
                                  "the fit run below",
}


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _shell_blocks(page: Path) -> list[tuple[str, str]]:
    """(info string, body) of every shell fence of the page."""
    return [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer(page.read_text())
            if m.group(1).strip().split(" ")[0] in SHELLS]


def _runnable(page: Path) -> list[str]:
    return [body for info, body in _shell_blocks(page) if info.split(" ")[1:] == [RUN]]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


RUNNABLE_PAGES = [p for p in _pages() if _runnable(p)]


def test_every_shell_block_runs_or_says_why() -> None:
    unexplained, stale = [], []
    for page in _pages():
        idle = [info for info, _ in _shell_blocks(page) if info.split(" ")[1:] != [RUN]]
        bad = [info for info, _ in _shell_blocks(page) if info.split(" ")[1:] not in ([], [RUN])]
        assert not bad, f"{_name(page)}: shell fences {bad}: the only option is `{RUN}`"
        if idle and _name(page) not in NOT_RUN:
            unexplained.append(_name(page))
        if not idle and _name(page) in NOT_RUN:
            stale.append(_name(page))
    assert not unexplained, f"shell blocks neither run nor explained in NOT_RUN: {unexplained}"
    assert not stale, f"NOT_RUN lists pages whose shell blocks all run: {stale}"


def test_some_shell_blocks_run() -> None:
    assert sum(len(_runnable(p)) for p in RUNNABLE_PAGES) >= 4


def _serve(folder: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    kubeconfig, ready = folder / ".kube" / "config", folder / ".serve.ready"
    kubeconfig.parent.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-m", "fakekube", "serve", "--nodes", "3", "--kubeconfig",
                             str(kubeconfig), "--ready-file", str(ready)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"fakekube serve did not start: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.05)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(folder / ".kube" / "cache"),
           "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    return proc, env


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed (the blocks call it)")
@pytest.mark.parametrize("page", RUNNABLE_PAGES, ids=_name)
def test_shell_blocks_run(page: Path, tmp_path: Path) -> None:
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    server, env = _serve(tmp_path)
    try:
        for i, block in enumerate(_runnable(page), 1):
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=240)
            assert done.returncode == 0, (f"{_name(page)}: shell block {i} exited {done.returncode}\n--- block\n"
                                          f"{block}--- stdout\n{done.stdout[-3000:]}--- stderr\n"
                                          f"{done.stderr[-3000:]}")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
