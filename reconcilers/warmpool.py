"""SandboxWarmPool controller, ported from kubernetes-sigs/agent-sandbox
``extensions/controllers/sandboxwarmpool_controller.go`` at 26288535 (2026-04-02).

API calls per pass, in order (reads from the informer cache): GET pool → LIST sandboxes labelled
``warm-pool-sandbox=NameHash(pool)`` → [PUT sandbox to adopt an orphan] → [DELETE stuck members] → per
missing member: GET template, POST sandbox (generateName ``<pool>-``), sequentially → [DELETE surplus] →
server-side apply of ``/status`` (field manager ``warmpool-controller``, force) when the status changed.

The create count comes from the cache LIST, which lags the pool's own creates: back-to-back passes can
over-create (fixed upstream by expectations in #1266). Watches: ``For(SandboxWarmPool)``, ``Owns(Sandbox)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fakekube import errors
from fakekube.agentsandbox import keys
from fakekube.agentsandbox.cache import cache_informer, list_now, shared_get, shared_list
from fakekube.agentsandbox.hashing import name_hash
from fakekube.agentsandbox.indexes import WarmPoolMembers
from fakekube.agentsandbox.objects import (
    Obj,
    ReconcileError,
    apply_secure_pod_defaults,
    controller_of,
    controller_ref,
    is_ready,
    semantic_equal,
    set_controller_reference,
)
from fakekube.clock import rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.sim import Apply, Request, Result

READINESS_GRACE_SECONDS = 300.0  # warmPoolReadinessGracePeriod: unready members older than this are replaced


@dataclass
class WarmPoolReconciler:
    client: Any
    clock_seconds: Any  # () -> simulated epoch seconds
    members: WarmPoolMembers | None = None  # a summary of the sandbox cache (indexes.py); None: scan

    async def reconcile(self, req: Request) -> Result | None:
        try:
            pool = await self.client.get(keys.WARMPOOLS, req.name, req.namespace)
        except errors.NotFound:
            return None
        if pool["metadata"].get("deletionTimestamp"):
            return None
        old_status = json_copy(pool.get("status") or {})
        await self._reconcile_pool(pool)
        await self._update_status(old_status, pool)
        return None

    async def _reconcile_pool(self, pool: Obj) -> None:
        c = self.client
        pm = pool["metadata"]
        pool_hash = name_hash(pm["name"])
        selector = {keys.WARM_POOL_SANDBOX: pool_hash}
        problems: list[str] = []
        summary = self.members
        counts: tuple[int, int] | None = None
        members: list[Obj] = []
        if summary is not None and cache_informer(c, keys.SANDBOXES) is summary.informer:
            # The members LIST, answered by the summary when nothing needs the scan; upstream copies each
            # member out of the cache, which is what it costs the CPU.
            group = summary.group(pm["namespace"], pool_hash)
            await c.cache_read(items=len(group.members) if group is not None else 0)
            counts = self._active_from_summary(summary, pm, pool_hash)
            if counts is None:
                members = list_now(summary.informer, pm["namespace"], selector)  # the LIST's answer, same instant
        else:
            members = await shared_list(c, keys.SANDBOXES, pm["namespace"], labels=selector)  # cached, read-only
        active_members: list[Obj] | None = None
        if counts is not None:
            current, ready_count = counts
        else:
            active_members, ready_count = await self._scan_members(pool, members, problems)
            current = len(active_members)
        desired = int(pool["spec"].get("replicas") or 0)
        status = pool.get("status")
        if status is None:
            status = pool["status"] = {}
        status["replicas"] = current
        status["selector"] = f"{keys.WARM_POOL_SANDBOX}={pool_hash}"
        status["readyReplicas"] = ready_count

        if current < desired:
            for _ in range(desired - current):
                try:
                    await self._create_pool_sandbox(pool, pool_hash)
                except errors.ApiError as exc:
                    problems.append(str(exc))
        if current > desired:
            active = active_members if active_members is not None else self._owned_members(pm)
            # Unready first, then newest first (names are unique, so the order never depends on the LIST's).
            active.sort(key=lambda sb: (is_ready(sb), _neg_key(sb["metadata"].get("creationTimestamp") or ""),
                                        sb["metadata"]["name"]))
            for sb in active[: current - desired]:
                try:
                    await c.delete(keys.SANDBOXES, sb)
                except errors.ApiError as exc:
                    problems.append(str(exc))
        if problems:
            raise ReconcileError("\n".join(problems))

    async def _scan_members(self, pool: Obj, members: list[Obj], problems: list[str]) -> tuple[list[Obj], int]:
        """The Go loop over the LISTed members: adopt orphans, delete stuck members; (active, Ready count)."""
        c = self.client
        pool_uid = pool["metadata"]["uid"]
        active: list[Obj] = []
        for sb in members:
            if sb["metadata"].get("deletionTimestamp"):
                continue
            ref = controller_of(sb)
            if ref is not None and ref.get("uid") == pool_uid:
                active.append(sb)
            elif ref is None:
                sb = json_copy(sb)
                try:
                    set_controller_reference(pool, sb)
                    await c.update(keys.SANDBOXES, sb)  # adopt an orphan with a locked PUT
                except (ReconcileError, errors.ApiError) as exc:
                    problems.append(str(exc))
                    continue
                active.append(sb)

        # Stuck members: unready and older than the grace period. RFC 3339 UTC stamps of one width compare
        # as strings, so the cutoff is computed once instead of parsing every member's timestamp.
        cutoff = _rfc3339(self.clock_seconds() - READINESS_GRACE_SECONDS)
        healthy: list[Obj] = []
        ready_count = 0
        for sb in active:
            ready = is_ready(sb)
            created = sb["metadata"].get("creationTimestamp")
            if not ready and created and created < cutoff:
                try:
                    await c.delete(keys.SANDBOXES, sb)
                except errors.ApiError as exc:
                    problems.append(str(exc))
                continue
            ready_count += ready
            healthy.append(sb)
        return healthy, ready_count

    def _active_from_summary(self, summary: WarmPoolMembers, pm: Obj, pool_hash: str) -> tuple[int, int] | None:
        """(active, Ready) from the summary when the scan would neither adopt nor delete; else None."""
        if not summary.exact:
            return None
        group = summary.group(pm["namespace"], pool_hash)
        if group is None:
            return 0, 0
        if group.orphans:
            return None
        pool_uid = pm["uid"]
        cutoff = _rfc3339(self.clock_seconds() - READINESS_GRACE_SECONDS)
        for uid, created in group.unready.values():
            if uid == pool_uid and created and created < cutoff:
                return None
        counts = group.owned.get(pool_uid)
        return (counts[0], counts[1]) if counts is not None else (0, 0)

    def _owned_members(self, pm: Obj) -> list[Obj]:
        """The cached active members (not deleting, controlled by the pool), in no particular order."""
        summary = self.members
        assert summary is not None
        group = summary.group(pm["namespace"], name_hash(pm["name"]))
        pool_uid = pm["uid"]
        informer = summary.informer
        return [informer.get_raw(ns, name) for (ns, name), (counted, _orphan, uid, _ready, _created) in
                (group.members.items() if group is not None else ())
                if counted and uid == pool_uid]

    async def _create_pool_sandbox(self, pool: Obj, pool_hash: str) -> None:
        pm = pool["metadata"]
        template_name = pool["spec"]["sandboxTemplateRef"]["name"]
        template = await shared_get(self.client, keys.TEMPLATES, template_name, pm["namespace"])  # read only
        tspec = template.get("spec") or {}
        tmeta = (tspec.get("podTemplate") or {}).get("metadata") or {}
        template_hash = name_hash(template_name)
        pod_labels = {**(tmeta.get("labels") or {}), keys.TEMPLATE_REF_HASH: template_hash}
        pod_spec = json_copy((tspec.get("podTemplate") or {}).get("spec") or {})
        apply_secure_pod_defaults(pod_spec, tspec)
        sandbox = {
            "apiVersion": keys.SANDBOX_API,
            "kind": "Sandbox",
            "metadata": {
                "generateName": f"{pm['name']}-",
                "namespace": pm["namespace"],
                "labels": {keys.WARM_POOL_SANDBOX: pool_hash, keys.TEMPLATE_REF_HASH: template_hash},
                "ownerReferences": [controller_ref(pool)],
            },
            "spec": {
                "replicas": 1,
                "podTemplate": {
                    "metadata": {"labels": pod_labels, "annotations": dict(tmeta.get("annotations") or {})},
                    "spec": pod_spec,
                },
            },
        }
        await self.client.create(keys.SANDBOXES, sandbox)

    async def _update_status(self, old_status: Obj, pool: Obj) -> None:
        status = pool.get("status") or {}
        if semantic_equal(old_status, status):
            return
        # SSA body from the Go struct: omitempty drops zero counts, so a zero is never applied
        # (the field is released instead; #807 later moved to a merge patch for this reason).
        applied = {k: v for k, v in status.items() if v not in (0, "", None)}
        body = {"apiVersion": keys.EXTENSIONS_API, "kind": "SandboxWarmPool",
                "metadata": {"name": pool["metadata"]["name"], "namespace": pool["metadata"]["namespace"]},
                "status": applied}
        await self.client.status_patch(keys.WARMPOOLS, body, Apply(field_owner=keys.WARMPOOL_FIELD_OWNER, force=True))


def _rfc3339(epoch_seconds: float) -> str:
    return rfc3339(datetime.fromtimestamp(epoch_seconds, UTC))


def _neg_key(timestamp: str) -> str:
    # Newest first inside a group: invert the RFC 3339 string (fixed width) character by character.
    return "".join(chr(0x7F - ord(ch)) for ch in timestamp)


def setup(mgr: Any, reconciler: WarmPoolReconciler, workers: int) -> Any:
    """``SetupWithManager``: For(SandboxWarmPool), Owns(Sandbox), no predicates."""
    return (mgr.controller("sandboxwarmpool", reconciler.reconcile, workers=workers)
            .for_(keys.WARMPOOLS)
            .owns(keys.SANDBOXES))
