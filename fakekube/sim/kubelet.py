"""A kubelet (and a scheduler) as actors: pods go Pending → Running, and graceful deletions complete.

For every new pod, after seeded delays (``pod_start_delays``), each write bumps the pod's object-wide
resourceVersion, as in a cluster (agent-sandbox-controllers.md §3.4):

1. ``PodScheduled`` — actor ``default-scheduler`` binds the pod: ``POST pods/<name>/binding`` with the pod's
   uid as precondition, which sets the node and the ``PodScheduled`` condition in one write (kubernetes
   ``pkg/registry/core/pod/storage/storage.go``, ``BindingREST``; ``store.bind``);
2. ``Initialized`` — kubelet: hostIP, startTime, ``Initialized``;
3. ``Running`` — kubelet: phase Running, podIP(s), containers running;
4. ``ContainersReady`` — kubelet: containers ready, ``ContainersReady``;
5. ``Ready`` — kubelet: ``Ready``.

Status steps are strategic-merge PATCHes of ``pods/<name>/status`` carrying the pod's uid, the way the
kubelet's status manager sends them; they have no resourceVersion, so they never conflict, and every
controller PUT of the pod computed before them does. The status manager writes what changed since its last
write once per pod sync, so a step whose delay is exactly zero (``Lag.fixed(0)``) is written together with the
step before it: a container without a readiness probe is ready as soon as it runs (kubernetes
``pkg/kubelet/prober/prober_manager.go``, ``UpdatePodStatus``), so ``ContainersReady`` and ``Ready`` with
zero delays ride on the ``Running`` write — three writes per pod instead of five.

Deletion: a pod with a grace period gets ``deletionTimestamp`` from the API server; the kubelet stops it
(``termination_delay``, at most the grace period) and then deletes it with grace 0 and a uid precondition.
The kubelet watches pods through its own cache (``watch_lag``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.clock import rfc3339
from fakekube.patch import STRATEGIC_MERGE_PATCH
from fakekube.pods.logs import pod_logs

from .informer import InformerHandler
from .lag import Lag
from .latency import RequestLatency
from .scheduler import _Sleep

if TYPE_CHECKING:
    from .simulation import Simulation

Obj = dict[str, Any]

STEPS = ("PodScheduled", "Initialized", "Running", "ContainersReady", "Ready")
DEFAULT_DELAYS: dict[str, Lag] = {
    "PodScheduled": Lag.uniform(0.002, 0.010),
    "Initialized": Lag.uniform(0.010, 0.050),
    "Running": Lag.uniform(0.050, 0.300),
    "ContainersReady": Lag.uniform(0.010, 0.100),
    "Ready": Lag.uniform(0.000, 0.005),
}


class Kubelet:
    def __init__(self, sim: Simulation, *, pod_start_delays: dict[str, Lag | float] | Lag | float | None = None,
                 termination_delay: Lag | float | None = None, watch_lag: Lag | float | None = None,
                 api_latency: Lag | float | None = None, node_name: str = "node-1",
                 name: str = "kubelet", latency: RequestLatency | None = None,
                 handling: Lag | float | None = None, watch_lag_per_event: bool = False) -> None:
        self.sim = sim
        self.node_name = node_name
        if isinstance(pod_start_delays, dict):
            self.delays = {**DEFAULT_DELAYS, **{k: Lag.coerce(v) for k, v in pod_start_delays.items()}}
        elif pod_start_delays is not None:
            self.delays = {step: Lag.coerce(pod_start_delays) for step in STEPS}
        else:
            self.delays = dict(DEFAULT_DELAYS)
        self.termination_delay = Lag.coerce(termination_delay if termination_delay is not None
                                            else Lag.uniform(0.05, 0.5))
        # Its own process: its own watch stream and client (``latency``, a per-verb model, wins over
        # ``api_latency``).
        self.manager = sim.manager(name, cache_lag=watch_lag if watch_lag is not None else 0.001,
                                   api_latency=api_latency if api_latency is not None else 0.002,
                                   latency=latency, handling=handling, cache_lag_per_event=watch_lag_per_event)
        self.client = self.manager.client(name)
        self.scheduler_client = self.manager.client("default-scheduler")
        self._rng = sim.rng(name, "pods")
        self._starting: dict[str, None] = {}
        self._stopping: dict[str, None] = {}
        self._ips = 0
        self.started = 0
        self.deleted = 0
        self.informer = self.manager.informer("pods")
        self.informer.add_handler(InformerHandler(self._on_add, self._on_update, None))
        # Each container's log (fakekube.pods.logs): opened when it runs, ended when the pod goes. These statuses
        # carry no containerID, so the instance's id is empty, and what the status names (nothing) finds it.
        self.logs = pod_logs(sim.store)

    # -- events ---------------------------------------------------------------------------------------

    def _on_add(self, pod: Obj, initial: bool) -> None:
        self._consider(pod)

    def _on_update(self, old: Obj, pod: Obj) -> None:
        self._consider(pod)

    def _consider(self, pod: Obj) -> None:
        meta = pod["metadata"]
        uid = meta["uid"]
        if meta.get("deletionTimestamp"):
            if uid not in self._stopping and meta.get("deletionGracePeriodSeconds"):
                self._stopping[uid] = None
                self.sim.scheduler.spawn(self._terminate(pod), f"kubelet-stop-{meta['name']}")
            return
        if uid in self._starting or (pod.get("status") or {}).get("phase", "Pending") != "Pending":
            return
        self._starting[uid] = None
        self.sim.scheduler.spawn(self._start(meta.get("namespace"), meta["name"], uid),
                                 f"kubelet-start-{meta['name']}")

    # -- pod start ------------------------------------------------------------------------------------

    def _live(self, namespace: str | None, name: str, uid: str) -> Obj | None:
        pod = self.informer.get_raw(namespace, name)
        if pod is None or pod["metadata"]["uid"] != uid or pod["metadata"].get("deletionTimestamp"):
            return None
        return pod

    def _writes(self) -> list[list[str]]:
        """The steps grouped into writes: a zero-delay kubelet step joins the write before it."""
        groups: list[list[str]] = []
        for step in STEPS:
            merge = groups and step != "Initialized" and self.delays[step].is_zero and groups[-1][0] != "PodScheduled"
            if merge:
                groups[-1].append(step)
            else:
                groups.append([step])
        return groups

    async def _start(self, namespace: str | None, name: str, uid: str) -> None:
        containers: list[str] = []
        for group in self._writes():
            await _Sleep(self.delays[group[0]].sample(self._rng))
            pod = self._live(namespace, name, uid)
            if pod is None:
                return
            if not containers:
                containers = [c.get("name", "c") for c in (pod.get("spec") or {}).get("containers") or []]
            now = rfc3339(self.sim.clock.now())
            try:
                await self._write(group, namespace, name, uid, containers, now)
            except errors.NotFound:
                return
            except errors.ApiError:
                return  # e.g. a uid precondition failed: the pod was replaced
            if "Running" in group:
                images = {c.get("name", "c"): c.get("image", "") for c in (pod.get("spec") or {}).get("containers") or []}
                for container in containers:
                    self.logs.container_started(pod, container, "", images.get(container, ""))
        self.started += 1

    async def _write(self, group: list[str], namespace: str | None, name: str, uid: str, containers: list[str],
                     now: str) -> None:
        def condition(kind: str) -> Obj:
            return {"type": kind, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}

        def statuses(state: Obj, ready: bool) -> list[Obj]:
            return [{"name": c, "ready": ready, "restartCount": 0, "started": "running" in state,
                     "image": "fake", "imageID": "", "state": state} for c in containers]

        if group == ["PodScheduled"]:
            await self._bind(namespace, name, uid)
            return
        status: Obj = {"conditions": []}
        for step in group:
            if step == "Initialized":
                status.update({"hostIP": "192.168.0.10", "hostIPs": [{"ip": "192.168.0.10"}], "startTime": now,
                               "containerStatuses": statuses({"waiting": {"reason": "ContainerCreating"}}, False)})
                status["conditions"].append(condition("Initialized"))
            elif step == "Running":
                self._ips += 1
                ip = f"10.244.{(self._ips >> 8) & 255}.{self._ips & 255}"
                status.update({"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                               "containerStatuses": statuses({"running": {"startedAt": now}}, False)})
            elif step == "ContainersReady":
                status["containerStatuses"] = statuses({"running": {"startedAt": now}}, True)
                status["conditions"].append(condition("ContainersReady"))
            else:
                status["conditions"].append(condition("Ready"))
        await self._patch(self.client, namespace, name, {"metadata": {"uid": uid}, "status": status}, "status",
                          STRATEGIC_MERGE_PATCH)

    async def _bind(self, namespace: str | None, name: str, uid: str) -> None:
        store = self.sim.store

        def create(_rt: Any, name: str, body: Obj, namespace: str | None, *, subresource: str, actor: str) -> Obj:
            # POST pods/<name>/binding, timed as the create of a pods subresource.
            return store.bind(name, body, namespace, actor=actor)

        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "uid": uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": self.node_name}}
        await self.scheduler_client._do(create, "pods", name, body, namespace, subresource="binding",
                                        actor=self.scheduler_client.actor)

    async def _patch(self, client: Any, namespace: str | None, name: str, body: Obj, subresource: str | None,
                     patch_type: str) -> None:
        await client._do(self.sim.store.patch, "pods", name, body, namespace, patch_type=patch_type,
                         subresource=subresource, actor=client.actor)

    # -- graceful deletion ----------------------------------------------------------------------------

    async def _terminate(self, pod: Obj) -> None:
        meta = pod["metadata"]
        grace = float(meta.get("deletionGracePeriodSeconds") or 0)
        await _Sleep(min(self.termination_delay.sample(self._rng), grace))
        try:
            await self.client._do(self.sim.store.delete, "pods", meta["name"], meta.get("namespace"),
                                  grace_period_seconds=0, preconditions={"uid": meta["uid"]},
                                  actor=self.client.actor)
            self.deleted += 1
        except errors.ApiError:
            pass  # already gone, or replaced
        for container in (pod.get("spec") or {}).get("containers") or []:
            self.logs.container_stopped(meta["uid"], container.get("name", "c"))
        self.logs.pod_gone(meta["uid"])
