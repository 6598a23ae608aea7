"""A kubelet per node: registers its Node and Lease, runs the pods bound to it, stops them when deleted.

Write sequence (kubernetes ``pkg/kubelet``):

- registration (``kubelet_node_status.go``): ``POST nodes``, then ``PATCH nodes/<node>/status`` (strategic
  merge) with capacity, conditions, addresses and node info; ``POST`` its Lease in ``kube-node-lease``;
  afterwards a ``PUT`` of the Lease every ``Timing.lease_interval`` (``pkg/kubelet/nodelease``) and a node status
  patch every ``Timing.node_status_interval`` (``nodeStatusReportFrequency``);
- pods (``pkg/kubelet/status/status_manager.go``): for every status change, a ``GET`` of the pod from the API
  server and a strategic-merge ``PATCH pods/<pod>/status`` carrying ``metadata.uid`` (so it never conflicts
  and never lands on a replacement pod), computed from the stored status to the generated one
  (``PreparePatchBytesForPodStatus``); a pod goes ContainerCreating → Running → Ready (after its readiness
  probe's initial delay), a Never/OnFailure pod's containers exit after their run time and the pod becomes
  Succeeded or Failed; crash loops and image-pull failures come from ``Timing.failures`` or pod annotations;
- deletion: a pod with ``deletionTimestamp`` has its containers stopped (``Timing.termination_delay``, at most
  the grace period), its final status patched (terminal phase), then ``DELETE`` with grace period 0 and a
  uid precondition (``status_manager.go`` ``canBeDeleted`` / ``syncPod``).

Events (core/v1, source ``kubelet``): Pulled, Created, Started, Killing, BackOff, Failed.
"""

from __future__ import annotations

import hashlib
from typing import Any

from fakekube import errors
from fakekube.patch import create_strategic_merge_patch
from fakekube.pods.logs import pod_logs
from fakekube.sim.informer import InformerHandler
from fakekube.sim.scheduler import Future, _Sleep

from . import identity
from .actor import Actor, Writer
from .mainprocesses import MainProcesses
from .nodes import LEASE_NAMESPACE, NodeConfig, lease_object, micro_time, node_object, node_status
from .podstatus import ContainerRun, PodRun, generate_status
from .timing import EXIT_CODE, FAILURE, READY_SECONDS, RUN_SECONDS, FailureRule, Timing

Obj = dict[str, Any]


class _PodWork:
    """One pod's worker: its runtime state, pending container events and the future that wakes it."""

    def __init__(self, namespace: str, name: str, uid: str, run: PodRun) -> None:
        self.namespace = namespace
        self.name = name
        self.uid = uid
        self.run = run
        self.events: list[tuple[float, int, int, str]] = []  # (due, seq, container index, action)
        self.wake: Future | None = None
        self.deleting = False
        self.reported = False  # a status has been sent for it
        self.backoff: dict[int, int] = {}  # container index → failures so far
        self.exit_codes: dict[int, int] = {}  # container index → how its main command ended


class Kubelet(Actor):
    def __init__(self, runtime: Any, timing: Timing, node: NodeConfig) -> None:
        self.name = f"kubelet-{node.name}"
        super().__init__(runtime, timing)
        self.node = node
        self.identity = identity.kubelet(node.name)
        self.manager = runtime.manager(self.name, cache_lag=timing.watch_lag, api_latency=timing.api_latency)
        self.writer = Writer(runtime, self.manager, self.identity)
        self.recorder = self.manager.event_recorder("kubelet", api="core")
        self.work: dict[str, _PodWork] = {}
        self.logs = pod_logs(runtime.store)  # each container instance's log (fakekube.pods.logs)
        self.mains = MainProcesses(runtime)  # containers' main commands that run (fakekube.pods.mainprocess)
        self._ips = 0
        self._seq = 0
        self.node_uid: str | None = None
        self.registered = False
        self._status_schema = runtime.resolve("pods").patch_schema
        status_schema = self._status_schema.field("status") if self._status_schema is not None else None
        self._pod_status_schema = status_schema
        self.informer = self.manager.informer("pods")
        self.informer.add_handler(InformerHandler(self._on_add, self._on_update, self._on_delete))
        self.spawn(self._node_loop(), f"{self.name}-node")

    # -- node registration and heartbeats ------------------------------------------------------------------

    async def _node_loop(self) -> None:
        node = node_object(self.node)
        try:
            created = await self.writer.create("nodes", node)
        except errors.AlreadyExists:
            created = await self.writer.live_get("nodes", self.node.name)
        self.node_uid = created["metadata"]["uid"]
        ready_since = self.timestamp()
        await self._report_node(ready_since)
        lease = await self._ensure_lease()
        self.registered = True
        lease_every = self.timing.lease_interval
        status_every = self.timing.node_status_interval
        if not lease_every and not status_every:
            return
        now = self.runtime.now
        next_lease = now + lease_every if lease_every else None
        next_status = now + status_every if status_every else None
        while True:
            due = min(t for t in (next_lease, next_status) if t is not None)
            await _Sleep(max(due - self.runtime.now, 0.0))
            now = self.runtime.now
            if next_lease is not None and now >= next_lease:
                lease = await self._renew_lease(lease)
                next_lease = now + lease_every  # type: ignore[operator]
            if next_status is not None and now >= next_status:
                await self._report_node(ready_since)
                next_status = now + status_every  # type: ignore[operator]

    async def _report_node(self, ready_since: str) -> None:
        current = await self.writer.live_get("nodes", self.node.name)
        status = node_status(self.node, self.timestamp(), ready_since)
        patch = create_strategic_merge_patch(current.get("status") or {}, status)
        if patch:
            await self.writer.patch("nodes", self.node.name, None, {"status": patch}, subresource="status",
                                    based_on=current["metadata"].get("resourceVersion"))

    async def _ensure_lease(self) -> Obj:
        body = lease_object(self.node, self.node_uid or "", micro_time(self.now()))
        try:
            return await self.writer.create("leases", body, LEASE_NAMESPACE)
        except errors.AlreadyExists:
            existing = await self.writer.live_get("leases", self.node.name, LEASE_NAMESPACE)
            return await self._renew_lease(existing)

    async def _renew_lease(self, lease: Obj) -> Obj:
        renewed = {**lease, "spec": {**(lease.get("spec") or {}), "renewTime": micro_time(self.now())}}
        try:
            return await self.writer.update("leases", renewed)
        except errors.ApiError:
            # Someone else wrote it (or removed it): read it again next time, as the lease controller does.
            return await self._ensure_lease()

    # -- pod events --------------------------------------------------------------------------------------

    def _on_add(self, pod: Obj, initial: bool) -> None:
        self._consider(pod)

    def _on_update(self, old: Obj, pod: Obj) -> None:
        self._consider(pod)

    def _on_delete(self, pod: Obj) -> None:
        work = self.work.get(pod["metadata"]["uid"])
        if work is not None:
            work.deleting = True
            self._wake(work)

    def _consider(self, pod: Obj) -> None:
        if (pod.get("spec") or {}).get("nodeName") != self.node.name:
            return
        meta = pod["metadata"]
        uid = meta["uid"]
        work = self.work.get(uid)
        if work is None:
            phase = (pod.get("status") or {}).get("phase")
            if phase in ("Succeeded", "Failed") and not meta.get("deletionTimestamp"):
                return  # finished before this kubelet started
            work = self.work[uid] = _PodWork(meta.get("namespace") or "", meta["name"], uid, self._new_run(pod))
            self.spawn(self._pod_worker(work), f"{self.name}-pod-{meta['name']}")
        if meta.get("deletionTimestamp") and not work.deleting:
            work.deleting = True
            self._wake(work)

    def _wake(self, work: _PodWork) -> None:
        if work.wake is not None:
            wake, work.wake = work.wake, None
            wake.set_result(None)

    def _new_run(self, pod: Obj) -> PodRun:
        spec = pod.get("spec") or {}
        containers = [ContainerRun(c.get("name", ""), c.get("image", "")) for c in spec.get("containers") or ()]
        inits = [ContainerRun(c.get("name", ""), c.get("image", "")) for c in spec.get("initContainers") or ()]
        return PodRun(pod["metadata"]["uid"], self.node.internal_ip, containers, inits)

    # -- one pod -------------------------------------------------------------------------------------------

    def _pod(self, work: _PodWork) -> Obj | None:
        pod = self.informer.get_raw(work.namespace, work.name)
        if pod is None or pod["metadata"]["uid"] != work.uid:
            return None
        return pod

    def _schedule(self, work: _PodWork, delay: float, index: int, action: str) -> None:
        self._seq += 1
        work.events.append((self.runtime.now + max(delay, 0.0), self._seq, index, action))
        work.events.sort()

    async def _wait(self, work: _PodWork, delay: float | None) -> None:
        """Sleep ``delay`` seconds (None: until woken), or less if the pod is deleted meanwhile."""
        if work.deleting:
            return
        wake = work.wake = self.runtime.scheduler.future()
        if delay is not None:
            self.runtime.scheduler.call_later(delay, lambda: wake.set_result(None))
        await wake
        if work.wake is wake:
            work.wake = None

    async def _pod_worker(self, work: _PodWork) -> None:
        try:
            await self._run_pod(work)
        except errors.NotFound:
            pass  # the pod is gone
        except errors.Conflict:
            pass  # the uid precondition failed: the pod was replaced under the same name
        finally:
            self.work.pop(work.uid, None)
            self.mains.stop_pod(work.uid)
            self.logs.pod_gone(work.uid)

    async def _run_pod(self, work: _PodWork) -> None:
        pod = self._pod(work)
        if pod is None:
            return
        if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            await self._wait(work, self.sample(self.timing.accept_delay))
            if not work.deleting:
                work.run.start_time = self.timestamp()
                await self._sync(work)
                self._schedule(work, self.sample(self.timing.start_latency), -1, "sandbox")
        while not work.deleting:
            if work.events:
                await self._wait(work, work.events[0][0] - self.runtime.now)
            else:
                await self._wait(work, None)
            if work.deleting:
                break
            changed = False
            while work.events and work.events[0][0] <= self.runtime.now:
                _, _, index, action = work.events.pop(0)
                pod = self._pod(work)
                if pod is None:
                    return
                changed = self._act(work, pod, index, action) or changed
            if changed:
                await self._sync(work)
        await self._terminate(work)

    # -- container actions ---------------------------------------------------------------------------------

    def _container_spec(self, pod: Obj, index: int) -> Obj:
        spec = pod.get("spec") or {}
        if index >= 1000:
            return (spec.get("initContainers") or [])[index - 1000]
        return (spec.get("containers") or [])[index]

    def _container(self, work: _PodWork, index: int) -> ContainerRun:
        return work.run.init_containers[index - 1000] if index >= 1000 else work.run.containers[index]

    def _annotation(self, pod: Obj, key: str) -> str | None:
        return (pod["metadata"].get("annotations") or {}).get(key)

    def _failure(self, pod: Obj, image: str) -> FailureRule | None:
        mode = self._annotation(pod, FAILURE)
        if mode:
            return FailureRule("*", mode, int(self._annotation(pod, EXIT_CODE) or 1))
        return self.timing.failure_for(image)

    def _act(self, work: _PodWork, pod: Obj, index: int, action: str) -> bool:
        now = self.timestamp()
        if action == "sandbox":
            work.run.sandbox_ready = True
            work.run.pod_ip = self.node.pod_ip(self._ips)
            self._ips += 1
            if work.run.init_containers:
                self._schedule(work, 0, 1000, "start")
            else:
                for i in range(len(work.run.containers)):
                    self._schedule(work, 0, i, "start")
            return True
        container = self._container(work, index)
        spec = self._container_spec(pod, index)
        restart_policy = (pod.get("spec") or {}).get("restartPolicy") or "Always"
        failure = self._failure(pod, container.image)
        if action == "start":
            if failure is not None and failure.mode in ("ImagePullBackOff", "ErrImagePull"):
                container.wait("ErrImagePull", f'failed to pull and unpack image "{container.image}": not found')
                self.recorder.event(pod, "Warning", "Failed", f'Failed to pull image "{container.image}": not found')
                self._schedule(work, 0.0, index, "pull-backoff")
                return True
            if container.state == "waiting" and container.last_state:
                container.restart_count += 1
            container.start(now, self._container_id(work, container))
            main = self.mains.prepare(pod, spec)
            log = self.logs.container_started(pod, container.name, container.container_id or "", container.image,
                                              kubelet_lines=main is None)
            if main is not None:
                self.mains.start((work.uid, index), main, log, lambda code: self._main_exited(work, index, code))
            # A main command that runs ends the container itself; the run-seconds annotation still bounds it.
            timed = main is None or self._annotation(pod, RUN_SECONDS) is not None
            self.recorder.event(pod, "Normal", "Pulled",
                                f'Container image "{container.image}" already present on machine')
            self.recorder.event(pod, "Normal", "Created", f"Created container: {container.name}")
            self.recorder.event(pod, "Normal", "Started", f"Started container {container.name}")
            init = index >= 1000
            if init:
                if timed:
                    self._schedule(work, self._run_seconds(pod), index, "exit")
            else:
                self._schedule(work, self._ready_seconds(pod, spec), index, "ready")
                if failure is not None:
                    self._schedule(work, self.sample(self.timing.crash_after), index, "crash")
                elif restart_policy != "Always" and self._completes(pod) and timed:
                    self._schedule(work, self._run_seconds(pod), index, "exit")
            return True
        if action == "pull-backoff":
            if container.state == "waiting" and container.reason == "ErrImagePull":
                container.wait("ImagePullBackOff", f'Back-off pulling image "{container.image}"')
                self.recorder.event(pod, "Normal", "BackOff", f'Back-off pulling image "{container.image}"')
                self._schedule(work, self._backoff(work, index), index, "start")
                return True
            return False
        if action == "ready":
            if container.state == "running" and not container.ready:
                container.ready = True
                return True
            return False
        if action in ("exit", "crash"):
            if container.state != "running":
                return False
            if action == "crash" and failure is not None:
                code = failure.exit_code
            else:
                code = work.exit_codes.pop(index) if index in work.exit_codes else self._exit_code(pod)
            self.mains.stop((work.uid, index))
            container.stop(now, code)
            self.logs.container_stopped(work.uid, container.name, code)
            if index >= 1000:
                return self._after_init(work, index, code, restart_policy)
            if restart_policy == "Always" or (restart_policy == "OnFailure" and code != 0):
                delay = self._backoff(work, index)
                container.wait("CrashLoopBackOff", f"back-off {_seconds(delay)} restarting failed container="
                               f"{container.name} pod={work.name}_{work.namespace}({work.uid})")
                self.recorder.event(pod, "Warning", "BackOff",
                                    f"Back-off restarting failed container {container.name} in pod "
                                    f"{work.name}_{work.namespace}({work.uid})")
                self._schedule(work, delay, index, "start")
            return True
        return False

    def _main_exited(self, work: _PodWork, index: int, code: int) -> None:
        """The container's main command ended: the container exits with its code (kubelet's rules follow)."""
        if self.work.get(work.uid) is not work or work.deleting:
            return
        work.exit_codes[index] = code
        # This instance's timed end (run-seconds, a failure rule's crash) must not stop the instance after it.
        work.events = [e for e in work.events if not (e[2] == index and e[3] in ("exit", "crash"))]
        self._schedule(work, 0.0, index, "exit")
        self._wake(work)

    def _after_init(self, work: _PodWork, index: int, code: int, restart_policy: str) -> bool:
        if code == 0:
            nxt = index + 1
            if nxt - 1000 < len(work.run.init_containers):
                self._schedule(work, 0, nxt, "start")
            else:
                for i in range(len(work.run.containers)):
                    self._schedule(work, 0, i, "start")
        elif restart_policy != "Never":
            self._schedule(work, self._backoff(work, index), index, "start")
        return True

    def _backoff(self, work: _PodWork, index: int) -> float:
        """kubelet's restart back-off: the first restart at once, then base × 2^(n-1), capped."""
        failures = work.backoff.get(index, 0)
        work.backoff[index] = failures + 1
        if failures == 0:
            return 0.0
        return min(self.timing.restart_backoff * 2 ** (failures - 1), self.timing.restart_backoff_cap)

    def _completes(self, pod: Obj) -> bool:
        """Whether a Never/OnFailure pod's containers exit on their own: a Job's pods do (after
        ``run_duration``), other pods only when ``sim.fakekube.io/run-seconds`` says when. A bare pod may run a
        server (a port-forward target, an exec target) or a one-off command, and nothing tells which; kwok's
        default stages make the same choice (sigs.k8s.io/kwok ``kustomize/stage/pod/general/pod-complete.yaml``
        completes only pods a Job owns)."""
        if self._annotation(pod, RUN_SECONDS) is not None:
            return True
        owners = (pod.get("metadata") or {}).get("ownerReferences") or []
        return any(isinstance(o, dict) and o.get("kind") == "Job" for o in owners)

    def _run_seconds(self, pod: Obj) -> float:
        value = self._annotation(pod, RUN_SECONDS)
        return float(value) if value is not None else self.sample(self.timing.run_duration)

    def _exit_code(self, pod: Obj) -> int:
        value = self._annotation(pod, EXIT_CODE)
        return int(value) if value is not None else 0

    def _ready_seconds(self, pod: Obj, spec: Obj) -> float:
        value = self._annotation(pod, READY_SECONDS)
        if value is not None:
            return float(value)
        probe = spec.get("readinessProbe") or {}
        initial = float(probe.get("initialDelaySeconds") or 0) if probe else 0.0
        return initial * self.timing.probe_scale + self.sample(self.timing.ready_delay)

    def _container_id(self, work: _PodWork, container: ContainerRun) -> str:
        seed = f"{work.uid}/{container.name}/{container.restart_count}".encode()
        return "containerd://" + hashlib.sha256(seed).hexdigest()

    # -- status and deletion -------------------------------------------------------------------------------

    async def _sync(self, work: _PodWork) -> None:
        """The status manager's syncPod: GET the pod, patch its status to what this kubelet sees."""
        live = await self.writer.live_get("pods", work.name, work.namespace)
        if live["metadata"]["uid"] != work.uid:
            raise errors.Conflict("pods", "", work.name, "the pod was replaced")
        status = generate_status(live, work.run, self.timestamp())
        old = live.get("status") or {}
        if status == old:
            return
        body = {"metadata": {"uid": work.uid},
                "status": create_strategic_merge_patch(old, status, self._pod_status_schema)}
        await self.writer.patch("pods", work.name, work.namespace, body, subresource="status",
                                based_on=live["metadata"].get("resourceVersion"))
        work.reported = True

    async def _terminate(self, work: _PodWork) -> None:
        pod = self._pod(work)
        if pod is None:
            return  # deleted outright (grace period 0) or replaced
        meta = pod["metadata"]
        running = [c for c in work.run.containers + work.run.init_containers if c.state == "running"]
        if running:
            for container in running:
                self.recorder.event(pod, "Normal", "Killing", f"Stopping container {container.name}")
            grace = float(meta.get("deletionGracePeriodSeconds") or 0)
            delay = min(self.sample(self.timing.termination_delay), grace)
            if delay > 0:
                await _Sleep(delay)
            now = self.timestamp()
            self.mains.stop_pod(work.uid)
            for container in running:
                container.stop(now, 0)
                self.logs.container_stopped(work.uid, container.name)
        work.run.terminal = True
        work.events.clear()
        if work.reported:
            await self._sync(work)
        await self.writer.delete("pods", work.name, work.namespace, grace_period_seconds=0,
                                 preconditions={"uid": work.uid})


def _seconds(delay: float) -> str:
    """Go's ``time.Duration`` printing for whole and fractional seconds (``10s``, ``0.05s`` → ``50ms``)."""
    if delay >= 1 or delay == 0:
        return f"{delay:g}s"
    return f"{delay * 1000:g}ms"
