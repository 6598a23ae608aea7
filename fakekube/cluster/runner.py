"""``ClusterRunner``: a cluster acting on a store in wall-clock time, from a thread of its own.

    runner = ClusterRunner(store, nodes=3, controllers="all").start()
    ...                      # the store's clients (HTTP front, tests) see pods become Running and Ready
    runner.stop()

The actors are built on the runtime's loop thread (so their informers list the store there) and act
through the store's ordinary verbs, which are safe to call from any thread; the HTTP front's handler threads
and the runner's loop share the store as kube-apiserver's clients share etcd.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fakekube.pods.logs import PodLogs, pod_logs
from fakekube.sim.realtime import RealTimeRuntime

from .cluster import Cluster
from .nodes import NodeConfig
from .timing import Timing


class ClusterRunner:
    def __init__(self, store: Any, *, nodes: int | Iterable[NodeConfig] = 1,
                 controllers: str | Iterable[str] | None = "all", timing: Timing | None = None,
                 bootstrap_objects: bool = True, ca_pem: str | None = None, seed: int = 1) -> None:
        self.store = store
        self.options = {"nodes": nodes, "controllers": controllers, "timing": timing,
                        "bootstrap_objects": bootstrap_objects, "ca_pem": ca_pem}
        self.runtime = RealTimeRuntime(store, seed=seed, name="fakekube-cluster")
        self.cluster: Cluster | None = None

    def start(self, timeout: float = 30.0) -> ClusterRunner:
        if self.cluster is None:
            self.runtime.start()
            self.cluster = self.runtime.scheduler.run_in_loop(lambda: Cluster(self.runtime, **self.options), timeout)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        if self.cluster is not None:
            self.runtime.stop(timeout)
            self.cluster = None

    def __enter__(self) -> ClusterRunner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Block until every kubelet has registered its node."""
        import time

        deadline = time.monotonic() + timeout
        while self.cluster is not None and not self.cluster.ready():
            if time.monotonic() > deadline:
                raise TimeoutError("the cluster's nodes did not register in time")
            time.sleep(0.01)

    @property
    def logs(self) -> PodLogs:
        """Every container instance's log on the store (``fakekube.pods.logs``)."""
        return pod_logs(self.store)

    @property
    def errors(self) -> list[Any]:
        """Reconcile errors logged by the actors' controllers (they are retried with back-off)."""
        return [e for m in self.runtime.managers.values() for c in m.controllers.values() for e in c.error_log]
