"""``replicaset-controller`` (kubernetes ``pkg/controller/replicaset/replica_set.go``).

A sync of one ReplicaSet: claim its pods (adopt orphans the selector matches, release owned pods it no
longer matches); when its expectations are satisfied, create the missing pods (``POST pods`` from the
template, ``generateName: <rs>-``, in slow-start batches of 1, 2, 4 … up to ``burstReplicas`` 500) or delete
the surplus (the lowest-ranked first: unscheduled before scheduled, Pending before Running, not ready before
ready, the most recently ready, the most restarted and the newest first — ``ActivePodsWithRanks``); then
``PUT replicasets/<rs>/status`` (UpdateStatus) with replicas, fullyLabeledReplicas, readyReplicas,
availableReplicas and observedGeneration, when they changed. Pods that are ready but not yet available for
``minReadySeconds`` get the ReplicaSet synced again after that delay. Events: SuccessfulCreate,
SuccessfulDelete, FailedCreate.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakekube import errors
from fakekube.sim.controller import Request

from .. import identity
from ..objects import (
    condition,
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    phase,
    pod_from_template,
    spec_int,
)
from .common import KcmController

Obj = dict[str, Any]
BURST_REPLICAS = 500
_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def deletion_rank(pod: Obj) -> tuple[Any, ...]:
    """Sort key: the pods to delete first sort first (``controller.ActivePodsWithRanks`` without co-location)."""
    assigned = bool((pod.get("spec") or {}).get("nodeName"))
    ready = is_pod_ready(pod)
    ready_since = ""
    if ready:
        cond = condition(pod, "Ready")
        ready_since = (cond or {}).get("lastTransitionTime") or ""
    restarts = sum(c.get("restartCount", 0) for c in (pod.get("status") or {}).get("containerStatuses") or ())
    created = pod["metadata"].get("creationTimestamp") or ""
    # Newer readiness, more restarts and newer creation delete first: negate by sorting on inverted strings.
    return (assigned, _PHASE_RANK.get(phase(pod), 1), ready, _desc(ready_since), -restarts, _desc(created),
            pod["metadata"]["name"])


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in text)


class ReplicaSetController(KcmController):
    identity = identity.REPLICASET
    kind, group = "ReplicaSet", "apps"
    resource = "replicasets"

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.controller.for_(self.resource).owns("pods")
        self.observe_pods(self.kind, self.group)
        self.pods = self.manager.informer("pods")

    async def sync(self, req: Request) -> None:
        rs = await self.writer.get(self.resource, req.name, req.namespace)
        if rs is None:
            self.expectations.forget(req)
            return
        needs_sync = self.expectations.satisfied(req)
        candidates = [p for p in await self.writer.list("pods", req.namespace) if is_pod_active(p)]
        pods = await self.claim(rs, "pods", candidates)
        manage_error: errors.ApiError | None = None
        if needs_sync and not rs["metadata"].get("deletionTimestamp"):
            manage_error = await self._manage(rs, req, pods)
        await self._update_status(rs, pods, manage_error)
        min_ready = spec_int(rs, "minReadySeconds", 0)
        if min_ready > 0 and manage_error is None:
            status = self._status(rs, pods, None)
            if status["readyReplicas"] == spec_int(rs, "replicas", 1) and \
                    status["availableReplicas"] != spec_int(rs, "replicas", 1):
                self.enqueue(req, after=float(min_ready))
        if manage_error is not None:
            raise manage_error

    # -- manageReplicas ------------------------------------------------------------------------------------

    async def _manage(self, rs: Obj, req: Request, pods: list[Obj]) -> errors.ApiError | None:
        diff = len(pods) - spec_int(rs, "replicas", 1)
        if diff < 0:
            return await self._create_pods(rs, req, min(-diff, BURST_REPLICAS))
        if diff > 0:
            return await self._delete_pods(rs, req, sorted(pods, key=deletion_rank)[:min(diff, BURST_REPLICAS)])
        return None

    async def _create_pods(self, rs: Obj, req: Request, count: int) -> errors.ApiError | None:
        self.expectations.expect(req, adds=count)
        template = (rs.get("spec") or {}).get("template") or {}
        remaining, batch = count, 1
        while remaining > 0:
            batch = min(batch, remaining)
            failure: errors.ApiError | None = None
            for _ in range(batch):
                pod = pod_from_template(template, rs, generate_name=f"{rs['metadata']['name']}-")
                try:
                    created = await self.writer.create("pods", pod, rs["metadata"].get("namespace"))
                    self.recorder.event(rs, "Normal", "SuccessfulCreate", f"Created pod: {created['metadata']['name']}")
                except errors.ApiError as exc:
                    self.expectations.creation_observed(req)
                    self.recorder.event(rs, "Warning", "FailedCreate", f"Error creating: {exc.message}")
                    failure = exc
            remaining -= batch
            if failure is not None:
                for _ in range(remaining):  # the skipped creations will never be observed
                    self.expectations.creation_observed(req)
                return failure
            batch *= 2
        return None

    async def _delete_pods(self, rs: Obj, req: Request, victims: list[Obj]) -> errors.ApiError | None:
        self.expectations.expect(req, dels=len(victims))
        _, failure = await self.delete_pods(rs, req, victims)
        return failure

    # -- status --------------------------------------------------------------------------------------------

    def _status(self, rs: Obj, pods: list[Obj], manage_error: errors.ApiError | None) -> Obj:
        now: datetime = self.now()
        min_ready = spec_int(rs, "minReadySeconds", 0)
        template_labels = (((rs.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
        old = rs.get("status") or {}
        status: Obj = {
            "replicas": len(pods),
            "fullyLabeledReplicas": sum(1 for p in pods if all(
                (p["metadata"].get("labels") or {}).get(k) == v for k, v in template_labels.items())),
            "readyReplicas": sum(1 for p in pods if is_pod_ready(p)),
            "availableReplicas": sum(1 for p in pods if is_pod_available(p, min_ready, now)),
            "observedGeneration": rs["metadata"].get("generation", 0),
        }
        conditions = [c for c in old.get("conditions") or () if c.get("type") != "ReplicaFailure"]
        if manage_error is not None:
            conditions.append({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": self.timestamp(),
                               "reason": "FailedCreate", "message": manage_error.message})
        if conditions:
            status["conditions"] = conditions
        return status

    async def _update_status(self, rs: Obj, pods: list[Obj], manage_error: errors.ApiError | None) -> None:
        status = self._status(rs, pods, manage_error)
        old = rs.get("status") or {}
        if all(old.get(k, 0) == v for k, v in status.items() if k != "conditions") and \
                (old.get("conditions") or []) == (status.get("conditions") or []):
            return
        body = {**rs, "status": status}
        try:
            await self.writer.update(self.resource, body, subresource="status")
        except errors.Conflict:
            # updateReplicaSetStatus retries once against a fresh read.
            fresh = await self.writer.live_get(self.resource, rs["metadata"]["name"], rs["metadata"].get("namespace"))
            await self.writer.update(self.resource, {**fresh, "status": status}, subresource="status")

