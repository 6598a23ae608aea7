"""``disruption-controller`` (kubernetes ``pkg/controller/disruption/disruption.go``): keeps every
PodDisruptionBudget's status current, which is what ``pods/eviction`` (``fakekube.verbs.eviction``) decides by.

A sync of one budget: its pods are those of its namespace its selector matches (an empty selector matches
none; ``NoPods`` event when there are none). ``expectedPods`` and ``desiredHealthy`` follow the spec: an integer
``minAvailable`` is the desired count over the matching pods; a percentage ``minAvailable`` or any
``maxUnavailable`` scale with the pods' controllers (``getExpectedScale``: each distinct Deployment — through
its ReplicaSet —, ReplicaSet, StatefulSet or ReplicationController counts its ``spec.replicas`` once; a pod
without one is an error: ``NoControllers``, and the budget fails safe to zero disruptions with a
``SyncFailed`` condition). ``currentHealthy`` counts Ready pods that are not being deleted and were not just
evicted (``status.disruptedPods`` entries, dropped once the pod is gone or after two minutes);
``disruptionsAllowed`` is ``currentHealthy - desiredHealthy`` (never negative, zero without expected pods),
with the ``DisruptionAllowed`` condition (SufficientPods / InsufficientPods) and ``observedGeneration``.
``PUT poddisruptionbudgets/<pdb>/status`` only when something changed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fakekube import errors
from fakekube.clock import parse_rfc3339, rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.selectors import LabelSelector
from fakekube.sim.controller import Request
from fakekube.verbs.eviction import PDBS, set_disruption_allowed

from .. import identity
from ..objects import controller_ref, int_or_percent, is_pod_ready, is_terminating
from .common import KcmController

Obj = dict[str, Any]
DELETION_TIMEOUT = 120.0  # how long an evicted pod may take to go before it counts again
SCALABLE = {("apps", "ReplicaSet"): "replicasets.apps", ("apps", "StatefulSet"): "statefulsets.apps",
            ("", "ReplicationController"): "replicationcontrollers", ("apps", "Deployment"): "deployments.apps"}


def pdb_selector(pdb: Obj) -> LabelSelector | None:
    raw = (pdb.get("spec") or {}).get("selector")
    if not raw or not (raw.get("matchLabels") or raw.get("matchExpressions")):
        return None
    return LabelSelector.from_dict(raw)


class DisruptionController(KcmController):
    identity = identity.DISRUPTION

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.budgets = self.manager.informer(PDBS)
        self.controller.for_(PDBS)
        self.controller.watches("pods", self._budgets_of_pod)
        for resource in SCALABLE.values():
            self.controller.watches(resource, self._budgets_in_namespace)

    def _budgets_of_pod(self, pod: Obj) -> list[Request]:
        labels = pod["metadata"].get("labels") or {}
        found = []
        for pdb in self.budgets.list_raw(pod["metadata"].get("namespace")):
            selector = pdb_selector(pdb)
            if selector is not None and selector.matches(labels):
                found.append(Request.of(pdb))
        return found

    def _budgets_in_namespace(self, obj: Obj) -> list[Request]:
        return [Request.of(p) for p in self.budgets.list_raw(obj["metadata"].get("namespace"))]

    async def sync(self, req: Request) -> None:
        cached = await self.writer.get(PDBS, req.name, req.namespace)
        if cached is None:
            return
        pdb = json_copy(cached)
        selector = pdb_selector(pdb)
        pods = [] if selector is None else [p for p in await self.writer.list("pods", req.namespace)
                                            if selector.matches(p["metadata"].get("labels") or {})]
        if not pods:
            self.recorder.event(pdb, "Normal", "NoPods", "No matching pods found")
        try:
            expected, desired = await self._expected(pdb, pods)
        except errors.ApiError as exc:
            self.recorder.event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                                f"Failed to calculate the number of expected pods: {exc.message}")
            await self._fail_safe(pdb, exc.message)
            return
        disrupted, recheck = self._disrupted(pdb, pods)
        now = self.now()
        healthy = 0
        for pod in pods:
            if is_terminating(pod):
                continue
            since = disrupted.get(pod["metadata"]["name"])
            if since is not None and (now - parse_rfc3339(since)).total_seconds() < DELETION_TIMEOUT:
                continue
            healthy += is_pod_ready(pod)
        if recheck is not None:
            self.enqueue(req, after=recheck)
        await self._update_status(pdb, healthy, desired, expected, disrupted)

    async def _expected(self, pdb: Obj, pods: list[Obj]) -> tuple[int, int]:
        """``getExpectedPodCount``: (expectedPods, desiredHealthy)."""
        spec = pdb.get("spec") or {}
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        if max_unavailable is not None:
            expected = await self._expected_scale(pdb, pods)
            unavailable = int_or_percent(max_unavailable, expected, round_up=True)
            return expected, max(expected - unavailable, 0)
        if min_available is None:
            return len(pods), 0
        if isinstance(min_available, int) or str(min_available).isdigit():
            return len(pods), int(min_available)
        expected = await self._expected_scale(pdb, pods)
        return expected, int_or_percent(min_available, expected, round_up=True)

    async def _expected_scale(self, pdb: Obj, pods: list[Obj]) -> int:
        """``getExpectedScale``: the replicas of each distinct controller of the pods."""
        scales: dict[str, int] = {}
        namespace = pdb["metadata"].get("namespace")
        for pod in pods:
            ref = controller_ref(pod)
            if ref is None:
                raise errors.ApiError(500, "", f'found no controller ref for pod "{pod["metadata"]["name"]}"')
            owner = await self._scalable(ref, namespace)
            if owner is None:
                raise errors.ApiError(500, "", f'found no controllers for pod "{pod["metadata"]["name"]}"')
            scales[owner["metadata"]["uid"]] = int((owner.get("spec") or {}).get("replicas", 1))
        return sum(scales.values())

    async def _scalable(self, ref: Obj, namespace: str | None) -> Obj | None:
        group = ref.get("apiVersion", "").rpartition("/")[0]
        resource = SCALABLE.get((group, ref.get("kind", "")))
        if resource is None:
            return None
        owner = await self.writer.get(resource, ref.get("name", ""), namespace)
        if owner is None or owner["metadata"]["uid"] != ref.get("uid"):
            return None
        if ref.get("kind") == "ReplicaSet":
            parent = controller_ref(owner)
            if parent is not None and parent.get("kind") == "Deployment":
                return await self._scalable(parent, namespace) or owner
        return owner

    def _disrupted(self, pdb: Obj, pods: list[Obj]) -> tuple[dict[str, str], float | None]:
        """``buildDisruptedPodMap``: entries whose pod still exists, is not deleted and whose time is not up;
        and when to look again."""
        now = self.now()
        by_name = {p["metadata"]["name"]: p for p in pods}
        kept: dict[str, str] = {}
        recheck = None
        for name, since in ((pdb.get("status") or {}).get("disruptedPods") or {}).items():
            pod = by_name.get(name)
            if pod is None or is_terminating(pod):
                continue
            expires = parse_rfc3339(since) + timedelta(seconds=DELETION_TIMEOUT)
            if expires <= now:
                continue
            kept[name] = since
            wait = (expires - now).total_seconds()
            recheck = wait if recheck is None else min(recheck, wait)
        return kept, recheck

    async def _update_status(self, pdb: Obj, healthy: int, desired: int, expected: int,
                             disrupted: dict[str, str]) -> None:
        old = pdb.get("status") or {}
        allowed = max(healthy - desired, 0) if expected > 0 else 0
        status: Obj = {"disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
                       "expectedPods": expected}
        if disrupted:
            status["disruptedPods"] = disrupted
        generation = pdb["metadata"].get("generation")
        if generation:
            status["observedGeneration"] = generation
        status["conditions"] = [c for c in old.get("conditions") or ()]
        set_disruption_allowed(status, self.timestamp())
        if status == old:
            return
        await self.writer.update(PDBS, {**pdb, "status": status}, subresource="status")

    async def _fail_safe(self, pdb: Obj, message: str) -> None:
        """``failSafe``: no disruptions allowed, and a SyncFailed condition saying why."""
        old = pdb.get("status") or {}
        status = json_copy(old)
        status["disruptionsAllowed"] = 0
        previous = next((c for c in old.get("conditions") or () if c.get("type") == "DisruptionAllowed"), {})
        conditions = [c for c in status.get("conditions") or () if c.get("type") != "DisruptionAllowed"]
        unchanged = previous.get("status") == "False" and previous.get("reason") == "SyncFailed"
        conditions.append({"type": "DisruptionAllowed", "status": "False",
                           "observedGeneration": int(status.get("observedGeneration") or 0),
                           "lastTransitionTime": previous.get("lastTransitionTime") if unchanged
                           else rfc3339(self.now()), "reason": "SyncFailed", "message": message})
        status["conditions"] = conditions
        if status != old:
            await self.writer.update(PDBS, {**pdb, "status": status}, subresource="status")
