"""What the kubectl test modules share: a served store with a cluster acting on it, and kubectl pointed at it.

A module asks for ``served`` (one server and cluster per module) and may set ``CLUSTER_TIMING`` (a
``Timing``) and ``STORE_CLOCK`` (a zero-argument factory of the store's clock) at module level.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fakekube.cluster import Timing
from fakekube.cluster.runner import ClusterRunner
from fakekube.server.app import ApiServer
from fakekube.store import Store


class Kubectl:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 90) -> str:
        proc = subprocess.run(["kubectl", *args], input=stdin, env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return proc.stdout + proc.stderr

    def until(self, predicate: Callable[[str], bool], *args: str, timeout: float = 60) -> str:
        """Repeat ``kubectl args`` until ``predicate(output)`` (every 0.2 s, up to ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            out = self(*args, check=False)
            if predicate(out):
                return out
            if time.monotonic() > deadline:
                raise AssertionError(f"kubectl {' '.join(args)} never satisfied the condition; last: {out!r}")
            time.sleep(0.2)


@dataclass
class Served:
    store: Store
    kubectl: Kubectl
    clock: Any


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory: Path = tmp_path_factory.mktemp("cluster")
    clock_factory = getattr(request.module, "STORE_CLOCK", None)
    clock = clock_factory() if clock_factory is not None else None
    store = Store(clock=clock)
    server = ApiServer(store).start()
    kubeconfig = server.write_kubeconfig(directory / "kubeconfig")
    timing = getattr(request.module, "CLUSTER_TIMING", Timing())
    runner = ClusterRunner(store, nodes=2, timing=timing).start()
    runner.wait_ready()
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(directory / "cache")}
    try:
        yield Served(store, Kubectl(env), clock)
    finally:
        runner.stop()
        server.stop()
