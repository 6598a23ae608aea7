"""A cluster: nodes with their kubelets, the scheduler and kube-controller-manager's controllers on one runtime.

``Cluster(runtime, nodes=..., controllers=..., timing=...)`` builds the actors on a runtime — a
``Simulation`` (virtual time, deterministic) or a ``RealTimeRuntime`` (wall time; ``ClusterRunner`` in
``fakekube.cluster.runner`` does that for a store or a server). Every actor can be left out, so a test can play
one controller's part itself, as envtest users do (``controllers={"deployment", "replicaset"}``, or
``controllers=()`` for none).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fakekube.pods.logs import PodLogs, pod_logs

from .bootstrap import bootstrap
from .controllers.clusterrole_aggregation import ClusterRoleAggregationController
from .controllers.cronjob import CronJobController
from .controllers.daemonset import DaemonSetController
from .controllers.deployment import DeploymentController
from .controllers.disruption import DisruptionController
from .controllers.endpoints import EndpointsController
from .controllers.endpointslice import EndpointSliceController
from .controllers.job import JobController
from .controllers.replicaset import ReplicaSetController
from .controllers.rootca import RootCAPublisher
from .controllers.statefulset import StatefulSetController
from .controllers.ttl import TTLAfterFinishedController
from .kubelet import Kubelet
from .nodes import NodeConfig, default_nodes
from .scheduler import DefaultScheduler
from .timing import Timing

# kube-controller-manager's controller names (``--controllers``), plus the two actors that are not in it.
CONTROLLERS: dict[str, Any] = {
    "deployment": DeploymentController,
    "replicaset": ReplicaSetController,
    "statefulset": StatefulSetController,
    "daemonset": DaemonSetController,
    "endpoint": EndpointsController,
    "endpointslice": EndpointSliceController,
    "disruption": DisruptionController,
    "ttl-after-finished": TTLAfterFinishedController,
    "clusterrole-aggregation": ClusterRoleAggregationController,
    "job": JobController,
    "cronjob": CronJobController,
    "root-ca-cert-publisher": RootCAPublisher,
}
# The service-account controller and the garbage collector belong to the store (fakekube.serviceaccounts,
# fakekube.gc): a bare Store needs them too (pods are admitted only with their service account).
ACTORS = ("kubelet", "scheduler", *CONTROLLERS, "serviceaccount", "garbagecollector")


def resolve_controllers(names: str | Iterable[str] | None) -> list[str]:
    """``"all"`` / None → every actor; ``"*,-job"`` drops one (kube-controller-manager's syntax); a list as is."""
    if names is None or names == "all":
        return list(ACTORS)
    items = [n.strip() for n in names.split(",")] if isinstance(names, str) else [str(n) for n in names]
    chosen: list[str] = []
    for item in items:
        if not item:
            continue
        if item in ("*", "all"):
            chosen.extend(a for a in ACTORS if a not in chosen)
        elif item.startswith("-"):
            if item[1:] not in ACTORS:
                raise ValueError(f"unknown controller {item[1:]!r}; known: {', '.join(ACTORS)}")
            chosen = [c for c in chosen if c != item[1:]]
        elif item not in ACTORS:
            raise ValueError(f"unknown controller {item!r}; known: {', '.join(ACTORS)}")
        elif item not in chosen:
            chosen.append(item)
    return chosen


class Cluster:
    """The actors of a cluster on ``runtime``; ``cluster.actors`` maps each enabled name to its actor(s)."""

    def __init__(self, runtime: Any, *, nodes: int | Iterable[NodeConfig] = 1,
                 controllers: str | Iterable[str] | None = "all", timing: Timing | None = None,
                 bootstrap_objects: bool = True, ca_pem: str | None = None) -> None:
        self.runtime = runtime
        self.timing = timing or Timing()
        self.nodes = default_nodes(nodes) if isinstance(nodes, int) else list(nodes)
        self.enabled = resolve_controllers(controllers)
        store = runtime.store
        if bootstrap_objects:
            # The DNS add-on is a Deployment: without its controllers it would never run, so leave it out.
            bootstrap(store, ca_pem=ca_pem, dns={"deployment", "replicaset"} <= set(self.enabled),
                      metrics="kubelet" in self.enabled and bool(self.nodes))
        self.actors: dict[str, Any] = {}
        if "kubelet" in self.enabled:
            self.actors["kubelet"] = [Kubelet(runtime, self.timing, node) for node in self.nodes]
        if "scheduler" in self.enabled:
            self.actors["scheduler"] = DefaultScheduler(runtime, self.timing)
        for name, factory in CONTROLLERS.items():
            if name in self.enabled:
                extra = {"ca_pem": ca_pem} if factory is RootCAPublisher else {}
                self.actors[name] = factory(runtime, self.timing, **extra)
        # The admission plugins whose marks only a controller this cluster lacks takes off again: the node
        # lifecycle controller lifts a new node's not-ready taint, the protection controllers remove the
        # PVC/PV/VolumeAttributesClass finalizers (docs/not-emulated.md). A cluster that would leave them stuck —
        # with kubelets whose pods must schedule, or a StatefulSet controller that deletes its claims — runs
        # without them.
        lacking = set()
        if self.kubelets_configured():
            lacking.add("TaintNodesByCondition")
        if "statefulset" in self.enabled:
            lacking.add("StorageObjectInUseProtection")
        if lacking:
            store.disabled_admission_plugins = frozenset(store.disabled_admission_plugins | lacking)
        if "serviceaccount" not in self.enabled:
            store.service_accounts = None  # a test that plays this controller creates the accounts itself
        if "garbagecollector" in self.enabled:
            if hasattr(runtime, "garbage_collector"):
                self.actors["garbagecollector"] = runtime.garbage_collector()
        elif getattr(store, "gc_mode", None) == "sync":
            # Nobody collects (a test plays the garbage collector itself, or a bare API server as envtest's);
            # the synchronous run stays for the service-account controller.
            store.collect_garbage = False

    @property
    def logs(self) -> PodLogs:
        """Every container instance's log (``fakekube.pods.logs``): script lines, write, read."""
        return pod_logs(self.runtime.store)

    def kubelets_configured(self) -> bool:
        return "kubelet" in self.enabled and bool(self.nodes)

    @property
    def kubelets(self) -> list[Kubelet]:
        return list(self.actors.get("kubelet", ()))

    def ready(self) -> bool:
        """True once every kubelet has registered its node (and the scheduler can bind to it)."""
        return all(k.registered for k in self.kubelets)

    def __repr__(self) -> str:
        return f"<Cluster nodes={len(self.nodes)} actors={','.join(self.enabled)}>"
