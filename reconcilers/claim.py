"""SandboxClaim controller, ported from kubernetes-sigs/agent-sandbox
``extensions/controllers/sandboxclaim_controller.go`` at 26288535 (2026-04-02), when PR #508 was opened
(reference notes §3.1), with the 953032b3 build's one difference in its API traffic behind a ``Build`` switch:
the claim status mirrors the sandbox's ``podIPs`` and is cleared when no sandbox is found (#518, ``ac595e71``).

API calls per pass, in order (reads are informer-cache reads, as with controller-runtime's default client):
GET claim → [PATCH claim trace annotation] → GET sandbox by status name → GET sandbox named after the claim →
LIST sandboxes in the namespace → PUT sandbox (adoption, locked; 409/404 → next candidate) → GET template →
DELETE networkpolicies/<claim>-network-policy (blind; 404 expected) → [cold path: POST sandbox] →
claim status write (``strategies.claim_status``). Events go through the asynchronous core/v1 recorder.

Watches: ``For(SandboxClaim)`` and ``Owns(Sandbox)``, no predicates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakekube import errors
from fakekube.agentsandbox import keys
from fakekube.agentsandbox.builds import BUILDS, Build
from fakekube.agentsandbox.cache import (
    CONTROLLER_UID,
    cache_informer,
    has_index,
    list_now,
    shared_get,
    shared_list,
)
from fakekube.agentsandbox.hashing import name_hash, numeric_hash
from fakekube.agentsandbox.indexes import ClaimCandidates
from fakekube.agentsandbox.objects import (
    Obj,
    ReconcileError,
    TemplateNotFound,
    apply_secure_pod_defaults,
    controller_of,
    controller_ref,
    editable_status,
    find_condition,
    is_controlled_by,
    is_ready,
    semantic_equal,
    set_status_condition,
    sort_conditions,
    with_annotations,
)
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.agentsandbox.tracing import Tracer
from fakekube.clock import parse_rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.sim import MergeFrom, Request, Result


@dataclass
class ClaimReconciler:
    client: Any  # fakekube.sim.Client
    recorder: Any  # fakekube.sim event recorder
    now: Any  # () -> RFC 3339 string of the simulated time
    clock_seconds: Any  # () -> simulated epoch seconds (expiry checks)
    workers: int = 1
    strategies: WriteStrategies = field(default_factory=WriteStrategies)
    tracer: Tracer = field(default_factory=Tracer)
    candidates: ClaimCandidates | None = None  # a summary of the sandbox cache (indexes.py); None: scan
    build: Build = field(default_factory=lambda: BUILDS["26288535"])

    # -- Reconcile -------------------------------------------------------------------------------------

    async def reconcile(self, req: Request) -> Result | None:
        c = self.client
        try:
            # The cached object, read-only: the pass copies what it changes (its status, or the whole object
            # before the trace patch). The wire traffic is the same as with a full copy.
            claim = await shared_get(c, keys.CLAIMS, req.name, req.namespace)
        except errors.NotFound:
            return None
        m = claim["metadata"]
        if m.get("deletionTimestamp"):
            return None

        # Trace initialisation: an inline merge patch, whose response refreshes the claim (status included).
        ann = m.get("annotations") or {}
        tc = self.tracer.trace_context(m["uid"], ann.get(keys.TRACE_CONTEXT))
        if tc and not ann.get(keys.TRACE_CONTEXT):
            patch = MergeFrom(claim, copy=False)
            claim = with_annotations(claim, {keys.TRACE_CONTEXT: tc})
            await c.patch(keys.CLAIMS, claim, patch)

        # Two copies of the cached status (upstream's DeepCopy of the claim): the one the pass starts from, whose
        # conditions _update_status sorts, and the one it sets; each only as deep as the pass edits in place.
        original_status = editable_status(claim.get("status") or {})
        claim = {**claim}
        if "status" in claim:
            claim["status"] = editable_status(claim["status"])  # the status this pass sets
        expired, time_left = self._check_expiration(claim)

        policy = ((claim.get("spec") or {}).get("lifecycle") or {}).get("shutdownPolicy")
        if expired and policy in ("Delete", "DeleteForeground"):
            self.recorder.event(claim, "Normal", keys.CLAIM_EXPIRED, f"Deleting Claim (ShutdownPolicy={policy})")
            with contextlib.suppress(errors.NotFound):
                await c.delete(keys.CLAIMS, claim,
                               propagation_policy="Foreground" if policy == "DeleteForeground" else None)
            return None

        sandbox: Obj | None
        reconcile_err: Exception | None = None
        try:
            if expired:
                sandbox = await self._reconcile_expired(claim)
            else:
                sandbox = await self._reconcile_active(claim)
        except (ReconcileError, errors.ApiError) as exc:
            sandbox, reconcile_err = None, exc

        self._compute_and_set_status(claim, sandbox, reconcile_err, expired)
        if not _has_expired_condition(original_status) and _has_expired_condition(claim.get("status")):
            self.recorder.event(claim, "Normal", keys.CLAIM_EXPIRED, "Claim expired")

        authoritative = await self._update_status(original_status, claim)
        if self.build.first_ready_annotation and authoritative:
            await self._stamp_first_ready(original_status, claim)

        result = Result(requeue_after=time_left) if not expired and time_left > 0 else None
        if isinstance(reconcile_err, TemplateNotFound):
            return result  # suppressed: the condition says TemplateNotFound
        if reconcile_err is not None:
            raise reconcile_err
        return result

    def _check_expiration(self, claim: Obj) -> tuple[bool, float]:
        shutdown = ((claim.get("spec") or {}).get("lifecycle") or {}).get("shutdownTime")
        if not shutdown:
            return False, 0.0
        left = parse_rfc3339(shutdown).timestamp() - self.clock_seconds()
        return (True, 0.0) if left < 0 else (False, left)

    # -- active / expired ------------------------------------------------------------------------------

    async def _reconcile_active(self, claim: Obj) -> Obj | None:
        # Fast path: an owned or adoptable sandbox, found before the template is looked up.
        sandbox = await self._get_or_create_sandbox(claim)
        if sandbox is not None:
            try:
                template = await self._get_template(claim)
            except errors.ApiError:
                template = None  # logged upstream; network policy reconcile skipped
            if template is not None:
                with contextlib.suppress(errors.ApiError):  # best effort after adoption
                    await self._reconcile_network_policy(claim, template)
            return sandbox

        # Cold path.
        try:
            template = await self._get_template(claim)
        except errors.NotFound:
            raise TemplateNotFound("SandboxTemplate not found") from None
        await self._reconcile_network_policy(claim, template)
        return await self._create_sandbox(claim, template)

    async def _reconcile_expired(self, claim: Obj) -> Obj | None:
        m = claim["metadata"]
        try:
            sandbox = await self.client.get(keys.SANDBOXES, m["name"], m["namespace"])
        except errors.NotFound:
            return None
        if not sandbox["metadata"].get("deletionTimestamp"):
            await self.client.delete(keys.SANDBOXES, sandbox)
        return sandbox

    def _get_template(self, claim: Obj) -> Awaitable[Obj]:
        name = claim["spec"]["sandboxTemplateRef"]["name"]
        # Read only (the pod template is deep-copied before use): the cache's object, not a copy. The read's
        # own awaitable, with no coroutine around it.
        return shared_get(self.client, keys.TEMPLATES, name, claim["metadata"]["namespace"])

    # -- finding or adopting a sandbox -----------------------------------------------------------------

    async def _get_or_create_sandbox(self, claim: Obj) -> Obj | None:
        c = self.client
        m = claim["metadata"]
        ns = m["namespace"]
        status_name = ((claim.get("status") or {}).get("sandbox") or {}).get("name")
        # The sandbox found is only read (its name, status and Ready condition go into the claim's status, as
        # copies): the cache's object serves, as the adopted one below is the private answer of its PUT.
        if status_name:
            try:
                sandbox = await shared_get(c, keys.SANDBOXES, status_name, ns)
                if is_controlled_by(sandbox, claim):
                    return sandbox
            except errors.NotFound:
                pass

        # Sandboxes created cold are named after the claim.
        try:
            sandbox = await shared_get(c, keys.SANDBOXES, m["name"], ns)
        except errors.NotFound:
            sandbox = None
        if sandbox is not None:
            if not is_controlled_by(sandbox, claim):
                raise ReconcileError(
                    f'sandbox "{m["name"]}" is not controlled by claim "{m["name"]}". Please use a different '
                    "claim name or delete the sandbox manually"
                )
            return sandbox

        # One namespace-wide cache LIST: the ownership guard and the adoption candidates. With the owner and
        # label indexes registered (build_env does) the same answer comes without scanning the namespace, and
        # with the candidate summary (indexes.py) without sorting the candidates on every pass.
        template_hash = name_hash(claim["spec"]["sandboxTemplateRef"]["name"])
        claim_uid = m["uid"]
        if not has_index(c, keys.SANDBOXES, CONTROLLER_UID):
            return await self._scan_candidates(claim, await shared_list(c, keys.SANDBOXES, ns), template_hash)
        owned = await shared_list(c, keys.SANDBOXES, ns, index=(CONTROLLER_UID, claim_uid))
        summary = self.candidates
        if summary is None or cache_informer(c, keys.SANDBOXES) is not summary.informer:
            labelled = await shared_list(c, keys.SANDBOXES, ns, labels={keys.TEMPLATE_REF_HASH: template_hash})
            return await self._scan_candidates(claim, [*owned, *labelled], template_hash)
        # The LIST, answered by the summary unless a rare case needs it; upstream's copies every sandbox of
        # the namespace out of the cache (r.List with only InNamespace), which is what it costs the CPU.
        await c.cache_read(items=len(summary.informer.by_ns.get(ns) or ()))
        if not summary.exact or _owns_labelled(summary.informer, ns, claim_uid, template_hash):
            labelled = list_now(summary.informer, ns, labels={keys.TEMPLATE_REF_HASH: template_hash})
            return await self._scan_candidates(claim, [*owned, *labelled], template_hash)
        for sb in owned:
            ref = controller_of(sb)
            if not sb["metadata"].get("deletionTimestamp") and ref is not None and ref.get("uid") == claim_uid:
                return sb
        candidates = summary.candidates(ns, template_hash)
        if not candidates:
            return None
        return await self._adopt_from_candidates(claim, candidates)

    async def _scan_candidates(self, claim: Obj, listed: list[Obj], template_hash: str) -> Obj | None:
        """The Go loop over the LISTed sandboxes: one this claim controls, else adopt from the candidates."""
        claim_uid = claim["metadata"]["uid"]
        candidates: list[tuple[bool, str, str, Obj]] = []  # (unready, created, name, sandbox): the sort key
        for sb in listed:
            sm = sb["metadata"]
            if sm.get("deletionTimestamp"):
                continue
            ref = controller_of(sb)
            if ref is not None and ref.get("uid") == claim_uid:
                return sb  # read only, as in _get_or_create_sandbox
            sb_labels = sm.get("labels") or {}
            if keys.WARM_POOL_SANDBOX not in sb_labels or sb_labels.get(keys.TEMPLATE_REF_HASH) != template_hash:
                continue
            if ref is not None and ref.get("kind") != "SandboxWarmPool":
                continue
            candidates.append((not is_ready(sb), sm.get("creationTimestamp") or "", sm["name"], sb))
        if not candidates:
            return None
        # Ready first, then oldest. Go's sort.Slice leaves ties (same-second creationTimestamps) in an
        # unspecified order; the port breaks them by name so that runs replay.
        candidates.sort(key=lambda item: item[:3])
        return await self._adopt_from_candidates(claim, [item[3] for item in candidates])

    async def _adopt_from_candidates(self, claim: Obj, candidates: Sequence[Obj]) -> Obj | None:
        """Walk the sorted candidates from ``FNV(claim UID) mod min(n, workers)``, adopting with a locked PUT."""
        n = len(candidates)
        window = min(n, max(self.workers, 1))
        start = numeric_hash(claim["metadata"]["uid"]) % window
        trace = (claim["metadata"].get("annotations") or {}).get(keys.TRACE_CONTEXT)
        for i in range(n):
            adopted = _adoption(candidates[(start + i) % n], claim, trace)
            try:
                # The cached resourceVersion rides along: claims racing for one sandbox get 409.
                await self.client.update(keys.SANDBOXES, adopted)
            except (errors.Conflict, errors.NotFound):
                continue
            self.recorder.event(claim, "Normal", "SandboxAdopted",
                                f'Adopted warm pool Sandbox "{adopted["metadata"]["name"]}"')
            return adopted
        return None

    # -- cold path -------------------------------------------------------------------------------------

    async def _create_sandbox(self, claim: Obj, template: Obj) -> Obj:
        m = claim["metadata"]
        tspec = template.get("spec") or {}
        ann: dict[str, str] = {}
        trace = (m.get("annotations") or {}).get(keys.TRACE_CONTEXT)
        if trace is not None:
            ann[keys.TRACE_CONTEXT] = trace
        ann[keys.TEMPLATE_REF] = template["metadata"]["name"]
        pod_template = json_copy(tspec.get("podTemplate") or {})
        apply_secure_pod_defaults(pod_template.setdefault("spec", {}), tspec)
        pod_meta = pod_template.setdefault("metadata", {})
        pod_labels = pod_meta.get("labels") or {}
        pod_labels[keys.CLAIM_UID] = m["uid"]
        pod_labels[keys.TEMPLATE_REF_HASH] = name_hash(template["metadata"]["name"])
        pod_meta["labels"] = pod_labels
        sandbox: Obj = {
            "apiVersion": keys.SANDBOX_API,
            "kind": "Sandbox",
            "metadata": {"name": m["name"], "namespace": m["namespace"], "annotations": ann,
                         "ownerReferences": [controller_ref(claim)]},
            "spec": {"podTemplate": pod_template, "replicas": 1},
        }
        try:
            await self.client.create(keys.SANDBOXES, sandbox)
        except errors.ApiError as exc:
            raise ReconcileError(f"sandbox create error: {exc}") from exc
        self.recorder.event(claim, "Normal", "SandboxProvisioned", f'Created Sandbox "{m["name"]}"')
        return sandbox

    async def _reconcile_network_policy(self, claim: Obj, template: Obj) -> None:
        tspec = template.get("spec") or {}
        if tspec.get("networkPolicyManagement") == "Unmanaged":
            return
        m = claim["metadata"]
        np_name = m["name"] + "-network-policy"
        if tspec.get("networkPolicy") is None:
            # Blind cleanup of a per-claim policy: no cache check, so a 404 is the normal answer.
            with contextlib.suppress(errors.NotFound):
                await self.client.delete(keys.NETWORK_POLICIES, np_name, m["namespace"])
            return
        # CreateOrUpdate of the per-claim policy from the template's rules.
        desired = {
            "podSelector": {"matchLabels": {keys.CLAIM_UID: m["uid"]}},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": json_copy(tspec["networkPolicy"].get("ingress")),  # the template is the cache's object
            "egress": json_copy(tspec["networkPolicy"].get("egress")),
        }
        desired = {k: v for k, v in desired.items() if v is not None}
        try:
            np = await self.client.get(keys.NETWORK_POLICIES, np_name, m["namespace"])
        except errors.NotFound:
            np = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                  "metadata": {"name": np_name, "namespace": m["namespace"],
                               "ownerReferences": [controller_ref(claim)]},
                  "spec": desired}
            await self.client.create(keys.NETWORK_POLICIES, np)
            return
        before = json_copy(np)
        np["spec"] = desired
        if not any(r.get("uid") == m["uid"] for r in np["metadata"].get("ownerReferences") or ()):
            np["metadata"].setdefault("ownerReferences", []).append(controller_ref(claim))
        if not semantic_equal(before, np):
            await self.client.update(keys.NETWORK_POLICIES, np)

    # -- status ----------------------------------------------------------------------------------------

    def _compute_and_set_status(self, claim: Obj, sandbox: Obj | None, err: Exception | None,
                                expired: bool) -> None:
        status = claim.get("status")
        if status is None:
            status = claim["status"] = {}
        set_status_condition(status, self._ready_condition(claim, sandbox, err, expired), self.now)
        if sandbox is not None:
            # A dict of its own: editable_status shares the cached claim's (where setdefault would keep it).
            held = status["sandbox"] = dict(status.get("sandbox") or {})
            held["name"] = sandbox["metadata"]["name"]
            if self.build.pod_ips:
                ips = (sandbox.get("status") or {}).get("podIPs")
                if ips:
                    held["podIPs"] = list(ips)
                else:
                    held.pop("podIPs", None)
        elif self.build.pod_ips:
            status["sandbox"] = {}  # #518 clears the name and the IPs when no sandbox was found

    def _ready_condition(self, claim: Obj, sandbox: Obj | None, err: Exception | None, expired: bool) -> Obj:
        generation = claim["metadata"].get("generation") or 0

        def false(reason: str, message: str) -> Obj:
            return {"type": keys.READY, "status": "False", "reason": reason, "message": message,
                    "observedGeneration": generation}

        if err is not None:
            if isinstance(err, TemplateNotFound):
                name = claim["spec"]["sandboxTemplateRef"]["name"]
                return false("TemplateNotFound", f'SandboxTemplate "{name}" not found')
            return false("ReconcilerError", f"Error seen: {err}")
        if expired:
            return false(keys.CLAIM_EXPIRED, "Claim expired. Sandbox resources deleted.")
        if sandbox is None:
            return false("SandboxMissing", "Sandbox does not exist")
        if _has_expired_condition(sandbox.get("status")):
            return false(keys.SANDBOX_EXPIRED, "Underlying Sandbox resource has expired independently of the Claim.")
        ready = find_condition(sandbox.get("status"), keys.READY)
        if ready is not None and self.build.claim_ready_generation:
            return {**ready, "observedGeneration": generation}  # v1.0.1: the claim's generation
        if ready is not None:
            return dict(ready)  # forwarded verbatim, the sandbox's observedGeneration and time included
        return false("SandboxNotReady", "Sandbox is not ready")

    async def _update_status(self, old_status: Obj, claim: Obj) -> bool:
        """Write the status if it changed; False when a locked patch's 409 was dropped (v1.0.1's
        ``statusAuthoritative``: the pass computed from a stale view)."""
        sort_conditions(old_status)
        status = claim.get("status") or {}
        sort_conditions(status)
        if semantic_equal(old_status, status):
            return True
        mode = self.strategies.claim_status
        if mode == "update":
            await self.client.status_update(keys.CLAIMS, claim)
            return True
        # #508: a merge patch from a copy that carries the pass's starting status.
        # A base for the purpose, sharing the claim's other fields: the client diffs it before any change.
        base = {**claim, "status": old_status}  # the diff walks the object in its own key order
        patch = MergeFrom(base, optimistic_lock=mode == "patch-lock", copy=False)
        try:
            await self.client.status_patch(keys.CLAIMS, claim, patch)
        except errors.Conflict:
            if mode != "patch-lock":
                raise
            # #1256: a 409 means someone wrote after our read; their watch event re-enqueues the claim.
            return False
        return True

    async def _stamp_first_ready(self, old_status: Obj, claim: Obj) -> None:
        """v1.0.1's ``recordCreationLatencyMetric``: the first pass that sees the claim Ready stamps the time it did;
        a pass that finds it Ready already, without the stamp (a cache not yet showing it), backfills "unknown"."""
        ready = find_condition(claim.get("status"), keys.READY)
        if ready is None or ready.get("status") != "True":
            return
        was = find_condition(old_status, keys.READY)
        if (claim["metadata"].get("annotations") or {}).get(keys.CLAIM_FIRST_READY):
            return
        value = "unknown" if was is not None and was.get("status") == "True" else self.now()
        patch = MergeFrom(claim, copy=False)
        await self.client.patch(keys.CLAIMS, with_annotations(claim, {keys.CLAIM_FIRST_READY: value}), patch)


def _adoption(cached: Obj, claim: Obj, trace: str | None) -> Obj:
    """The candidate as the claim's adoption PUT sends it: warm-pool labels off, the claim as controller, the
    trace context and the claim-uid pod label on. The cached object is shared, so only the dicts on the paths
    that change are new (keys keep their places, and a missing one is added last, as in-place edits would)."""
    cm = cached["metadata"]
    sb_labels = dict(cm.get("labels") or {})
    sb_labels.pop(keys.WARM_POOL_SANDBOX, None)
    sb_labels.pop(keys.TEMPLATE_REF_HASH, None)
    ann = dict(cm.get("annotations") or {})
    if trace is not None:
        ann[keys.TRACE_CONTEXT] = trace
    meta = {**cm, "labels": sb_labels, "ownerReferences": [controller_ref(claim)], "annotations": ann}
    spec = dict(cached.get("spec") or {})
    template = dict(spec.get("podTemplate") or {})
    pod_meta = dict(template.get("metadata") or {})
    pod_meta["labels"] = {**(pod_meta.get("labels") or {}), keys.CLAIM_UID: claim["metadata"]["uid"]}
    template["metadata"] = pod_meta
    spec["podTemplate"] = template
    return {**cached, "metadata": meta, "spec": spec}


def _owns_labelled(informer: Any, namespace: str, claim_uid: str, template_hash: str) -> bool:
    """Does the claim control a sandbox that still has the template-hash label (the LIST would return it)?

    Adoption drops that label, so this is normally False; when True only the LIST's own order is exact.
    """
    for sb in informer.list_raw(namespace, None, {CONTROLLER_UID: claim_uid}):
        if (sb["metadata"].get("labels") or {}).get(keys.TEMPLATE_REF_HASH) == template_hash:
            return True
    return False


def _has_expired_condition(status: Obj | None) -> bool:
    ready = find_condition(status, keys.READY)
    return ready is not None and ready.get("reason") in (keys.CLAIM_EXPIRED, keys.SANDBOX_EXPIRED)


def setup(mgr: Any, reconciler: ClaimReconciler, workers: int) -> Any:
    """``SetupWithManager``: For(SandboxClaim), Owns(Sandbox), no predicates."""
    return (mgr.controller("sandboxclaim", reconciler.reconcile, workers=workers)
            .for_(keys.CLAIMS)
            .owns(keys.SANDBOXES))
