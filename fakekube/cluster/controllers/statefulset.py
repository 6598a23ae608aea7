"""``statefulset-controller`` (kubernetes ``pkg/controller/statefulset/{stateful_set,stateful_set_control,
stateful_set_utils,stateful_pod_control}.go``, ``pkg/controller/history``).

Each template is a ControllerRevision ``<set>-<hash>`` (data: the template as a ``$patch: replace`` patch,
``revision`` counting up; an equal template reuses its revision). Pods are ``<set>-<ordinal>`` with
``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index`` and ``controller-revision-hash``
labels, ``hostname`` and ``subdomain`` (``serviceName``), and one PVC per ``volumeClaimTemplates`` entry
(``<claim>-<set>-<ordinal>``, created before the pod, kept when the pod goes — the default ``Retain``
retention policy). With ``OrderedReady`` (the default) pods are created one at a time in ordinal order, each
only once the previous one is Running and Ready (and available for ``minReadySeconds``), and removed one at a
time from the highest ordinal; ``Parallel`` does all at once. A ``RollingUpdate`` replaces pods of the old
revision from the highest ordinal down to ``partition``, one at a time; ``OnDelete`` waits for you to delete
them. Failed or succeeded pods are deleted and recreated. Status (``PUT statefulsets/<set>/status``):
replicas, readyReplicas, currentReplicas, updatedReplicas, availableReplicas, currentRevision,
updateRevision, collisionCount and observedGeneration; ``currentRevision`` becomes ``updateRevision`` once
every pod is updated and ready. Events: SuccessfulCreate / SuccessfulDelete ("create Pod web-0 in
StatefulSet web successful").
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request

from .. import identity
from ..hashing import content_hash
from ..objects import (
    TERMINAL_PHASES,
    controller_ref,
    is_pod_available,
    is_pod_ready,
    is_terminating,
    owner_reference,
    phase,
    pod_from_template,
    spec_int,
)
from .common import KcmController

Obj = dict[str, Any]
REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def ordinal_of(set_name: str, pod: Obj) -> int | None:
    match = re.fullmatch(re.escape(set_name) + r"-(\d+)", pod["metadata"]["name"])
    return int(match.group(1)) if match else None


def revision_data(sts: Obj) -> Obj:
    """``getPatch``: the template as a strategic merge patch that replaces it."""
    template = json_copy((sts.get("spec") or {}).get("template") or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def running_and_ready(pod: Obj) -> bool:
    return phase(pod) == "Running" and is_pod_ready(pod)


class StatefulSetController(KcmController):
    identity = identity.STATEFULSET
    resource = "statefulsets.apps"

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.controller.for_(self.resource).owns("pods").owns("controllerrevisions.apps")
        self.observe_pods("StatefulSet", "apps")

    async def sync(self, req: Request) -> None:
        cached = await self.writer.get(self.resource, req.name, req.namespace)
        if cached is None:
            self.expectations.forget(req)
            return
        sts = json_copy(cached)
        candidates = await self.writer.list("pods", req.namespace)
        pods = await self.claim(sts, "pods", candidates)
        revisions = [r for r in await self.writer.list("controllerrevisions.apps", req.namespace)
                     if (controller_ref(r) or {}).get("uid") == sts["metadata"]["uid"]]
        current, update, collision = await self._revisions(sts, revisions)
        if not self.expectations.satisfied(req):
            return
        status = await self._update_pods(sts, req, pods, current, update)
        status["collisionCount"] = collision
        await self._update_status(sts, status)
        await self._truncate_history(sts, revisions, pods, current, update)

    # -- revisions -----------------------------------------------------------------------------------------------

    async def _revisions(self, sts: Obj, revisions: list[Obj]) -> tuple[Obj, Obj, int]:
        status = sts.get("status") or {}
        collision = int(status.get("collisionCount") or 0)
        data = revision_data(sts)
        ordered = sorted(revisions, key=lambda r: int(r.get("revision") or 0))
        latest = int(ordered[-1].get("revision") or 0) if ordered else 0
        equal = [r for r in ordered if r.get("data") == data]
        if equal:
            update = equal[-1]
            if int(update.get("revision") or 0) != latest:
                bumped = {**json_copy(update), "revision": latest + 1}
                update = await self.writer.update("controllerrevisions.apps", bumped)
        else:
            update = await self._create_revision(sts, data, latest + 1, collision)
        current = next((r for r in ordered if r["metadata"]["name"] == status.get("currentRevision")), update)
        return current, update, collision

    async def _create_revision(self, sts: Obj, data: Obj, number: int, collision: int) -> Obj:
        meta = sts["metadata"]
        labels = dict((((sts.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {})
        while True:
            name = f"{meta['name']}-{content_hash(data, collision)}"
            body = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                    "metadata": {"name": name, "namespace": meta.get("namespace"), "labels": labels,
                                 "ownerReferences": [owner_reference(sts)]},
                    "data": data, "revision": number}
            try:
                return await self.writer.create("controllerrevisions.apps", body, meta.get("namespace"))
            except errors.AlreadyExists:
                existing = await self.writer.live_get("controllerrevisions.apps", name, meta.get("namespace"))
                if existing.get("data") == data and (controller_ref(existing) or {}).get("uid") == meta["uid"]:
                    return existing
                collision += 1

    async def _truncate_history(self, sts: Obj, revisions: list[Obj], pods: list[Obj], current: Obj,
                                update: Obj) -> None:
        limit = spec_int(sts, "revisionHistoryLimit", 10)
        live = {(p["metadata"].get("labels") or {}).get(REVISION_LABEL) for p in pods}
        live |= {current["metadata"]["name"], update["metadata"]["name"]}
        history = sorted((r for r in revisions if r["metadata"]["name"] not in live),
                         key=lambda r: int(r.get("revision") or 0))
        for rev in history[:max(len(history) - limit, 0)]:
            with contextlib.suppress(errors.NotFound):
                await self.writer.delete("controllerrevisions.apps", rev["metadata"]["name"],
                                         rev["metadata"].get("namespace"))

    # -- updateStatefulSet --------------------------------------------------------------------------------------

    def _new_pod(self, sts: Obj, ordinal: int, revision: Obj) -> Obj:
        meta = sts["metadata"]
        name = f"{meta['name']}-{ordinal}"
        template = json_copy(revision["data"]["spec"]["template"])
        template.pop("$patch", None)
        labels = {POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal), REVISION_LABEL: revision["metadata"]["name"]}
        pod = pod_from_template(template, sts, name=name, labels=labels)
        spec = pod["spec"]
        spec["hostname"] = name
        if (sts.get("spec") or {}).get("serviceName"):
            spec["subdomain"] = sts["spec"]["serviceName"]
        claims = (sts.get("spec") or {}).get("volumeClaimTemplates") or []
        if claims:
            volumes = [v for v in spec.get("volumes") or () if v.get("name") not in {c["metadata"]["name"] for c in claims}]
            for claim in claims:
                volumes.append({"name": claim["metadata"]["name"],
                                "persistentVolumeClaim": {"claimName": self._claim_name(sts, claim, ordinal)}})
            spec["volumes"] = volumes
        return pod

    def _claim_name(self, sts: Obj, claim: Obj, ordinal: int) -> str:
        return f"{claim['metadata']['name']}-{sts['metadata']['name']}-{ordinal}"

    async def _create_claims(self, sts: Obj, ordinal: int) -> None:
        selector_labels = ((sts.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        for claim in (sts.get("spec") or {}).get("volumeClaimTemplates") or []:
            name = self._claim_name(sts, claim, ordinal)
            namespace = sts["metadata"].get("namespace")
            if await self.writer.get("persistentvolumeclaims", name, namespace) is not None:
                continue
            body = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": name, "namespace": namespace,
                                 "labels": {**(claim["metadata"].get("labels") or {}), **selector_labels},
                                 **({"annotations": claim["metadata"]["annotations"]}
                                    if claim["metadata"].get("annotations") else {})},
                    "spec": json_copy(claim.get("spec") or {})}
            try:
                await self.writer.create("persistentvolumeclaims", body, namespace)
                self.recorder.event(sts, "Normal", "SuccessfulCreate",
                                    f"create Claim {name} Pod {sts['metadata']['name']}-{ordinal} in StatefulSet "
                                    f"{sts['metadata']['name']} success")
            except errors.AlreadyExists:
                pass

    async def _create_pod(self, sts: Obj, req: Request, ordinal: int, revision: Obj) -> None:
        await self._create_claims(sts, ordinal)
        pod = self._new_pod(sts, ordinal, revision)
        self.expectations.raise_(req, adds=1)
        try:
            await self.writer.create("pods", pod, sts["metadata"].get("namespace"))
        except errors.ApiError as exc:
            self.expectations.creation_observed(req)
            if isinstance(exc, errors.AlreadyExists):
                return
            self.recorder.event(sts, "Warning", "FailedCreate",
                                f"create Pod {pod['metadata']['name']} in StatefulSet {sts['metadata']['name']} "
                                f"failed error: {exc.message}")
            raise
        self.recorder.event(sts, "Normal", "SuccessfulCreate",
                            f"create Pod {pod['metadata']['name']} in StatefulSet {sts['metadata']['name']} successful")

    async def _delete_pod(self, sts: Obj, req: Request, pod: Obj) -> None:
        self.expectations.raise_(req, dels=1)
        meta = pod["metadata"]
        try:
            await self.writer.delete("pods", meta["name"], meta.get("namespace"))
        except errors.NotFound:
            self.expectations.deletion_observed(req)
            return
        self.recorder.event(sts, "Normal", "SuccessfulDelete",
                            f"delete Pod {meta['name']} in StatefulSet {sts['metadata']['name']} successful")

    async def _update_pods(self, sts: Obj, req: Request, pods: list[Obj], current: Obj, update: Obj) -> Obj:
        spec = sts.get("spec") or {}
        name = sts["metadata"]["name"]
        want = spec_int(sts, "replicas", 1)
        start = int((spec.get("ordinals") or {}).get("start") or 0)
        strategy = spec.get("updateStrategy") or {"type": "RollingUpdate"}
        rolling = strategy.get("type", "RollingUpdate") == "RollingUpdate"
        partition = int(((strategy.get("rollingUpdate") or {}).get("partition")) or 0) if rolling else 0
        monotonic = (spec.get("podManagementPolicy") or "OrderedReady") != "Parallel"
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.now()
        current_name, update_name = current["metadata"]["name"], update["metadata"]["name"]
        slots: dict[int, Obj] = {}
        condemned: list[tuple[int, Obj]] = []
        for pod in pods:
            ordinal = ordinal_of(name, pod)
            if ordinal is not None and start <= ordinal < start + want:
                slots[ordinal] = pod
            else:
                condemned.append((ordinal if ordinal is not None else -1, pod))
        status: Obj = {"observedGeneration": sts["metadata"].get("generation", 0), "replicas": 0, "readyReplicas": 0,
                       "currentReplicas": 0, "updatedReplicas": 0, "availableReplicas": 0,
                       "currentRevision": current_name, "updateRevision": update_name}
        for pod in pods:
            status["replicas"] += 1
            if running_and_ready(pod):
                status["readyReplicas"] += 1
                if is_pod_available(pod, min_ready, now):
                    status["availableReplicas"] += 1
            rev = (pod["metadata"].get("labels") or {}).get(REVISION_LABEL)
            if rev == current_name:
                status["currentReplicas"] += 1
            if rev == update_name:
                status["updatedReplicas"] += 1
        blocked = False
        for ordinal in range(start, start + want):
            pod = slots.get(ordinal)
            if pod is not None and phase(pod) in TERMINAL_PHASES and not is_terminating(pod):
                await self._delete_pod(sts, req, pod)  # failed or succeeded: recreated next sync
                if monotonic:
                    blocked = True
                    break
                continue
            if pod is None:
                revision = current if (rolling and ordinal - start < partition) or not rolling else update
                await self._create_pod(sts, req, ordinal, revision)
                if monotonic:
                    blocked = True
                    break
                continue
            if monotonic and (is_terminating(pod) or not running_and_ready(pod) or
                              not is_pod_available(pod, min_ready, now)):
                blocked = True
                if min_ready and running_and_ready(pod):
                    self.enqueue(req, after=float(min_ready))
                break
        if not blocked:
            for _, pod in sorted(condemned, key=lambda item: -item[0]):
                if is_terminating(pod):
                    if monotonic:
                        blocked = True
                        break
                    continue
                await self._delete_pod(sts, req, pod)
                if monotonic:
                    blocked = True
                    break
        if not blocked and rolling:
            for ordinal in range(start + want - 1, start + partition - 1, -1):
                pod = slots.get(ordinal)
                if pod is None:
                    continue
                if (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) != update_name:
                    if not is_terminating(pod):
                        await self._delete_pod(sts, req, pod)
                    break
                if not running_and_ready(pod):
                    break
        if rolling and status["updatedReplicas"] == status["replicas"] and status["readyReplicas"] == status["replicas"]:
            status["currentReplicas"] = status["updatedReplicas"]
            status["currentRevision"] = update_name
        return status

    async def _update_status(self, sts: Obj, status: Obj) -> None:
        shown = {k: v for k, v in status.items()
                 if v != 0 or k in ("replicas", "availableReplicas", "collisionCount", "observedGeneration")}
        old = sts.get("status") or {}
        if "conditions" in old:
            shown["conditions"] = old["conditions"]
        if shown == old:
            return
        try:
            await self.writer.update(self.resource, {**sts, "status": shown}, subresource="status")
        except errors.Conflict:
            fresh = await self.writer.live_get(self.resource, sts["metadata"]["name"], sts["metadata"].get("namespace"))
            await self.writer.update(self.resource, {**fresh, "status": shown}, subresource="status")
