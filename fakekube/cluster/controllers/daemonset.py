"""``daemon-set-controller`` (kubernetes ``pkg/controller/daemon/daemon_controller.go``, ``update.go``,
``util/daemonset_util.go``).

A sync of one DaemonSet: find or create the ControllerRevision of its template (``constructHistory``:
``<ds>-<hash>``, labelled ``controller-revision-hash: <hash>``, data the template as a ``$patch: replace``
patch, the revision number above every older one); claim its pods (adopt matching orphans, release the ones
it no longer selects) and group them by target node; then, when its expectations are satisfied:

- ``manage``: every node that should run a daemon pod (``should_run``: nodeSelector, required node affinity,
  taints against the template's tolerations plus the automatic ones) and has none gets one — ``POST pods``,
  ``generateName: <ds>-``, pinned to the node by node affinity so the scheduler binds it, in slow-start
  batches; failed daemon pods are deleted (after the failed-pod back-off, ``Timing.daemon_backoff``), as are
  succeeded ones, surplus ones (all but the oldest) and those on nodes that should no longer run them;
- ``rollingUpdate`` (the default strategy; ``OnDelete`` waits for you): without ``maxSurge``, old pods are
  deleted while no more than ``maxUnavailable`` (default 1) nodes are unavailable; with ``maxSurge``, a new pod
  is created beside an old one on up to ``maxSurge`` nodes and the old one deleted once the new one is
  available;
- ``cleanupHistory``: revisions beyond ``revisionHistoryLimit`` (default 10) that no pod uses are deleted;
- status (``PUT daemonsets/<ds>/status``, only when it changed): desiredNumberScheduled,
  currentNumberScheduled, numberMisscheduled, numberReady, numberAvailable, numberUnavailable,
  updatedNumberScheduled, observedGeneration, collisionCount — what ``kubectl rollout status ds`` reads.

Events: SuccessfulCreate / SuccessfulDelete ("Created pod: <name>"), FailedCreate, FailedDaemonPod.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request

from .. import identity
from ..hashing import content_hash
from ..objects import (
    controller_ref,
    int_or_percent,
    is_pod_available,
    is_pod_ready,
    is_terminating,
    owner_reference,
    phase,
    pod_from_template,
    spec_int,
)
from .common import KcmController
from .daemonset_util import (
    REVISION_LABEL,
    creation_order,
    daemon_pod_template,
    is_updated,
    should_run,
    target_node,
    template_generation,
)
from .statefulset import revision_data

Obj = dict[str, Any]
BURST_REPLICAS = 250
REVISIONS = "controllerrevisions.apps"


def strategy_of(ds: Obj) -> Obj:
    return ((ds.get("spec") or {}).get("updateStrategy") or {})


def is_rolling(ds: Obj) -> bool:
    return (strategy_of(ds).get("type") or "RollingUpdate") == "RollingUpdate"


def surge_and_unavailable(ds: Obj, desired: int) -> tuple[int, int]:
    """``updatedDesiredNodeCounts``: maxSurge and maxUnavailable scaled to the desired nodes (rounded up);
    both zero would stall a rollout, so maxUnavailable is then 1."""
    rolling = strategy_of(ds).get("rollingUpdate") or {}
    surge = int_or_percent(rolling.get("maxSurge", 0), desired, round_up=True)
    unavailable = int_or_percent(rolling.get("maxUnavailable", 1), desired, round_up=True)
    if desired > 0 and surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


class DaemonSetController(KcmController):
    identity = identity.DAEMONSET
    resource = "daemonsets.apps"
    workers = 2  # --concurrent-daemonset-syncs

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.daemonsets = self.manager.informer(self.resource)
        self.controller.for_(self.resource).owns("pods").owns(REVISIONS)
        self.controller.watches("nodes", self._every_daemonset)
        self.observe_pods("DaemonSet", "apps")
        self.failed_backoff: dict[tuple[Request, str], tuple[float, float]] = {}  # → (delay, last failure)

    def _every_daemonset(self, node: Obj) -> list[Request]:
        """A node was added or changed: every DaemonSet reconsiders it (``addNode`` / ``updateNode``)."""
        return [Request.of(ds) for ds in self.daemonsets.list_raw()]

    async def sync(self, req: Request) -> None:
        cached = await self.writer.get(self.resource, req.name, req.namespace)
        if cached is None:
            self.expectations.forget(req)
            return
        ds = json_copy(cached)
        if not (ds.get("spec") or {}).get("selector"):
            self.recorder.event(ds, "Warning", "SelectingAll",
                                "This daemon set is selecting all pods. A non-empty selector is required.")
            return
        nodes = sorted(await self.writer.list("nodes"), key=lambda n: n["metadata"]["name"])
        revisions = [r for r in await self.writer.list(REVISIONS, req.namespace)
                     if (controller_ref(r) or {}).get("uid") == ds["metadata"]["uid"]]
        current, old = await self._construct_history(ds, revisions)
        hash_ = (current["metadata"].get("labels") or {}).get(REVISION_LABEL) or current["metadata"]["name"]
        candidates = await self.writer.list("pods", req.namespace)
        pods = await self.claim(ds, "pods", candidates)
        by_node = self._pods_by_node(pods)
        if is_terminating(ds) or not self.expectations.satisfied(req):
            await self._update_status(ds, nodes, by_node, hash_, observe=False)
            return
        changed = await self._manage(ds, req, nodes, by_node, hash_)
        if not changed and is_rolling(ds) and self.expectations.satisfied(req):
            await self._rolling_update(ds, req, nodes, by_node, hash_)
        await self._cleanup_history(ds, old, pods)
        await self._update_status(ds, nodes, by_node, hash_, observe=True)

    def _pods_by_node(self, pods: list[Obj]) -> dict[str, list[Obj]]:
        by_node: dict[str, list[Obj]] = {}
        for pod in pods:
            if phase(pod) in ("Succeeded", "Failed") and is_terminating(pod):
                continue  # the kubelet or pod GC has it; nothing left for us to do
            node = target_node(pod)
            if node is not None:
                by_node.setdefault(node, []).append(pod)
        return by_node

    # -- constructHistory / cleanupHistory ------------------------------------------------------------------

    async def _construct_history(self, ds: Obj, revisions: list[Obj]) -> tuple[Obj, list[Obj]]:
        data = revision_data(ds)
        current = [r for r in revisions if r.get("data") == data]
        old = [r for r in revisions if r.get("data") != data]
        next_revision = max((int(r.get("revision") or 0) for r in old), default=0) + 1
        if not current:
            return await self._snapshot(ds, data, next_revision), old
        keep = max(current, key=lambda r: int(r.get("revision") or 0))
        for duplicate in current:  # dedupCurHistories
            if duplicate is not keep:
                with contextlib.suppress(errors.NotFound):
                    await self.writer.delete(REVISIONS, duplicate["metadata"]["name"], ds["metadata"].get("namespace"))
        if int(keep.get("revision") or 0) < next_revision:
            keep = await self.writer.update(REVISIONS, {**json_copy(keep), "revision": next_revision})
        return keep, old

    async def _snapshot(self, ds: Obj, data: Obj, number: int) -> Obj:
        meta = ds["metadata"]
        status = ds.setdefault("status", {})
        template = (ds.get("spec") or {}).get("template") or {}
        while True:
            hash_ = content_hash(template, status.get("collisionCount"))
            labels = {**((template.get("metadata") or {}).get("labels") or {}), REVISION_LABEL: hash_}
            body = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                    "metadata": {"name": f"{meta['name']}-{hash_}", "namespace": meta.get("namespace"),
                                 "labels": labels, "ownerReferences": [owner_reference(ds)]},
                    "data": data, "revision": number}
            try:
                return await self.writer.create(REVISIONS, body, meta.get("namespace"))
            except errors.AlreadyExists:
                existing = await self.writer.live_get(REVISIONS, body["metadata"]["name"], meta.get("namespace"))
                if existing.get("data") == data and (controller_ref(existing) or {}).get("uid") == meta["uid"]:
                    return existing
                status["collisionCount"] = int(status.get("collisionCount") or 0) + 1

    async def _cleanup_history(self, ds: Obj, old: list[Obj], pods: list[Obj]) -> None:
        excess = len(old) - spec_int(ds, "revisionHistoryLimit", 10)
        if excess <= 0:
            return
        live = {(p["metadata"].get("labels") or {}).get(REVISION_LABEL) for p in pods}
        for rev in sorted(old, key=lambda r: int(r.get("revision") or 0)):
            if excess <= 0:
                break
            if (rev["metadata"].get("labels") or {}).get(REVISION_LABEL) in live:
                continue
            with contextlib.suppress(errors.NotFound):
                await self.writer.delete(REVISIONS, rev["metadata"]["name"], rev["metadata"].get("namespace"))
            excess -= 1

    # -- manage ---------------------------------------------------------------------------------------------

    async def _manage(self, ds: Obj, req: Request, nodes: list[Obj], by_node: dict[str, list[Obj]],
                      hash_: str) -> bool:
        """``manage`` / ``podsShouldBeOnNode``; True when it wrote something."""
        create: list[str] = []
        delete: list[Obj] = []
        surge = is_rolling(ds) and surge_and_unavailable(ds, 1)[0] > 0
        known = set()
        for node in nodes:
            name = node["metadata"]["name"]
            known.add(name)
            run, keep = should_run(ds, node)
            pods = by_node.get(name) or []
            if run and not pods:
                create.append(name)
            elif keep:
                delete += self._prune(ds, req, name, pods, hash_, surge)
            elif pods:
                delete += [p for p in pods if not is_terminating(p)]
        for name, pods in by_node.items():  # pods bound to nodes that do not exist
            if name not in known:
                delete += [p for p in pods if not is_terminating(p)]
        await self._sync_nodes(ds, req, delete, create, hash_)
        return bool(create or delete)

    def _prune(self, ds: Obj, req: Request, node: str, pods: list[Obj], hash_: str, surge: bool) -> list[Obj]:
        delete: list[Obj] = []
        running: list[Obj] = []
        for pod in pods:
            if is_terminating(pod):
                continue
            if phase(pod) == "Failed":
                if self._in_backoff(req, node):
                    continue
                self.recorder.event(ds, "Warning", "FailedDaemonPod",
                                    f"Found failed daemon pod {pod['metadata'].get('namespace')}/"
                                    f"{pod['metadata']['name']} on node {node}, will try to kill it")
                delete.append(pod)
            elif phase(pod) == "Succeeded":
                delete.append(pod)
            else:
                running.append(pod)
        running.sort(key=creation_order)
        if len(running) <= 1:
            return delete
        if not surge:
            return delete + running[1:]
        # With surge, an old and a new pod may share a node while the new one is not yet available.
        oldest_new = oldest_old = None
        for pod in running:
            if (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) == hash_:
                if oldest_new is None:
                    oldest_new = pod
                    continue
            elif oldest_old is None:
                oldest_old = pod
                continue
            delete.append(pod)
        if oldest_new is not None and oldest_old is not None and (
                not is_pod_ready(oldest_old) or is_pod_available(oldest_new, spec_int(ds, "minReadySeconds", 0),
                                                                 self.now())):
            delete.append(oldest_old)
        return delete

    def _in_backoff(self, req: Request, node: str) -> bool:
        """``failedPodsBackoff``: 1 s doubling to 15 min per (DaemonSet, node); requeue when it is over."""
        key = (req, node)
        now = self.runtime.now
        delay, last = self.failed_backoff.get(key, (0.0, -1e18))
        if now - last < delay - 1e-9:  # a requeue lands on the instant, give or take a rounding
            self.enqueue(req, after=delay - (now - last))
            return True
        if now - last > 2 * self.timing.daemon_backoff_cap:
            delay = 0.0  # the back-off has expired: start again
        delay = self.timing.daemon_backoff if delay == 0 else min(delay * 2, self.timing.daemon_backoff_cap)
        self.failed_backoff[key] = (delay, now)
        return False

    async def _sync_nodes(self, ds: Obj, req: Request, delete: list[Obj], create: list[str], hash_: str) -> None:
        """``syncNodes``: create daemon pods on ``create`` (slow start) and delete ``delete``."""
        create = create[:BURST_REPLICAS]
        if not create and not delete:
            return
        self.expectations.expect(req, adds=len(create), dels=len(delete))
        namespace = ds["metadata"].get("namespace")
        remaining, batch, index = len(create), 1, 0
        while remaining > 0:
            batch = min(batch, remaining)
            failed = False
            for node in create[index:index + batch]:
                template = daemon_pod_template(ds, hash_, node)
                pod = pod_from_template(template, ds, generate_name=f"{ds['metadata']['name']}-")
                try:
                    made = await self.writer.create("pods", pod, namespace)
                    self.recorder.event(ds, "Normal", "SuccessfulCreate", f"Created pod: {made['metadata']['name']}")
                except errors.ApiError as exc:
                    self.expectations.creation_observed(req)
                    self.recorder.event(ds, "Warning", "FailedCreate", f"Error creating: {exc.message}")
                    failed = True
            index += batch
            remaining -= batch
            if failed:
                for _ in range(remaining):
                    self.expectations.creation_observed(req)
                break
            batch *= 2
        await self.delete_pods(ds, req, delete)

    # -- rollingUpdate --------------------------------------------------------------------------------------

    async def _rolling_update(self, ds: Obj, req: Request, nodes: list[Obj], by_node: dict[str, list[Obj]],
                              hash_: str) -> None:
        now: datetime = self.now()
        min_ready = spec_int(ds, "minReadySeconds", 0)
        generation = template_generation(ds)
        wanted = {}
        for node in nodes:
            run, _ = should_run(ds, node)
            wanted[node["metadata"]["name"]] = run
        desired = sum(wanted.values())
        max_surge, max_unavailable = surge_and_unavailable(ds, desired)
        slots = {name: by_node.get(name) or [] for name in sorted(set(by_node) | {n for n, w in wanted.items() if w})}

        def split(pods: list[Obj]) -> tuple[Obj | None, Obj | None, bool]:
            new = old = None
            for pod in pods:
                if is_terminating(pod):
                    continue
                if is_updated(pod, hash_, generation):
                    if new is not None:
                        return None, None, False
                    new = pod
                else:
                    if old is not None:
                        return None, None, False
                    old = pod
            return new, old, True

        def available(pod: Obj) -> bool:
            return is_pod_available(pod, min_ready, now)

        delete: list[Obj] = []
        create: list[str] = []
        if max_surge == 0:
            unavailable = 0
            replace: list[Obj] = []
            candidates: list[Obj] = []
            for pods in slots.values():
                new, old, ok = split(pods)
                if not ok or (new is None) == (old is None):
                    unavailable += 1  # the manage loop creates or prunes here
                elif new is not None:
                    unavailable += not available(new)
                elif old is not None and not available(old):
                    replace.append(old)
                    unavailable += 1
                elif unavailable < max_unavailable and old is not None:
                    candidates.append(old)
            room = min(max(max_unavailable - unavailable, 0), len(candidates))
            delete = replace + candidates[:room]
        else:
            surging = 0
            available_count = 0
            sunset: list[Obj] = []
            candidate_nodes: list[str] = []
            allowed_nodes: list[str] = []
            for name, pods in slots.items():
                new, old, ok = split(pods)
                if not ok:
                    surging += 1
                    continue
                if (old is not None and available(old)) or (old is None and new is not None and available(new)):
                    available_count += 1
                if old is None:
                    continue
                if new is None:
                    if not available(old):
                        (allowed_nodes.append(name) if wanted.get(name) else delete.append(old))
                    elif not wanted.get(name):
                        sunset.append(old)
                    elif surging < max_surge:
                        candidate_nodes.append(name)
                elif not available(new):
                    surging += 1
                else:
                    delete.append(old)
            deletable = min(max(available_count - desired, 0), len(sunset))
            delete += sunset[:deletable]
            room = min(max(max_surge - surging, 0), len(candidate_nodes))
            create = allowed_nodes + candidate_nodes[:room]
        await self._sync_nodes(ds, req, delete, create, hash_)

    # -- status ---------------------------------------------------------------------------------------------

    async def _update_status(self, ds: Obj, nodes: list[Obj], by_node: dict[str, list[Obj]], hash_: str, *,
                             observe: bool) -> None:
        now: datetime = self.now()
        min_ready = spec_int(ds, "minReadySeconds", 0)
        generation = template_generation(ds)
        counts = dict.fromkeys(("desired", "current", "misscheduled", "ready", "available", "updated"), 0)
        for node in nodes:
            run, _ = should_run(ds, node)
            pods = sorted(by_node.get(node["metadata"]["name"]) or [], key=creation_order)
            if not run:
                counts["misscheduled"] += bool(pods)
                continue
            counts["desired"] += 1
            if not pods:
                continue
            counts["current"] += 1
            pod = pods[0]
            if is_pod_ready(pod):
                counts["ready"] += 1
                counts["available"] += is_pod_available(pod, min_ready, now)
            if any(is_updated(p, hash_, generation) for p in pods):
                counts["updated"] += 1
        old = ds.get("status") or {}
        status: Obj = {"currentNumberScheduled": counts["current"], "numberMisscheduled": counts["misscheduled"],
                       "desiredNumberScheduled": counts["desired"], "numberReady": counts["ready"]}
        observed = ds["metadata"].get("generation", 0) if observe else old.get("observedGeneration", 0)
        optional = {"observedGeneration": observed, "updatedNumberScheduled": counts["updated"],
                    "numberAvailable": counts["available"],
                    "numberUnavailable": counts["desired"] - counts["available"],
                    "collisionCount": (ds.get("status") or {}).get("collisionCount") or 0}
        status.update({k: v for k, v in optional.items() if v})  # omitempty
        if old.get("conditions"):
            status["conditions"] = old["conditions"]
        if status == old:
            return
        if min_ready > 0 and counts["ready"] != counts["available"]:
            self.enqueue(Request.of(ds), after=float(min_ready))
        try:
            await self.writer.update(self.resource, {**ds, "status": status}, subresource="status")
        except errors.Conflict:
            # storeDaemonSetStatus: one retry against a fresh read.
            meta = ds["metadata"]
            fresh = await self.writer.live_get(self.resource, meta["name"], meta.get("namespace"))
            await self.writer.update(self.resource, {**fresh, "status": status}, subresource="status")
