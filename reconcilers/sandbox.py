"""Sandbox controller, ported from kubernetes-sigs/agent-sandbox ``controllers/sandbox_controller.go`` at
26288535 (2026-04-02), with the changes of the 953032b3 build (2026-04-03) behind ``Build`` switches.

API calls per pass, in order (reads from the informer cache): GET sandbox → [PATCH sandbox: trace
annotation] → per volumeClaimTemplate GET/POST pvc → LIST pods by sandbox-name-hash → GET pod → (DELETE pod
when replicas=0 | PUT pod with propagated labels when they changed | POST pod) → GET service → [POST
headless service] → sandbox status write (``strategies.sandbox_status``; PUT /status at 2026-04-02).

At 953032b3: the pod's owner is checked (#419, ``51814a80``: another controller's pod is refused, an unowned
one adopted) and the existing pod is PUT on **every** pass, changed or not; after the PUT or the POST the
``agents.x-k8s.io/pod-name`` annotation is merge-patched onto the sandbox when it is missing (#272,
``32cddd3e``); the status carries ``podIPs`` and Ready needs them (#518, ``ac595e71``); the status write is a
merge patch (#509, ``953032b3``); a Service is adopted or refused by owner as the pod is (#419).

Watches: ``For(Sandbox)``; ``Owns(Pod)`` and ``Owns(Service)``, each behind a predicate that requires the
``agents.x-k8s.io/sandbox-name-hash`` label.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from fakekube import errors
from fakekube.agentsandbox import keys
from fakekube.agentsandbox.builds import BUILDS, Build
from fakekube.agentsandbox.cache import cache_informer, shared_list
from fakekube.agentsandbox.cache import shared_get as _shared_get
from fakekube.agentsandbox.hashing import name_hash
from fakekube.agentsandbox.objects import (
    Obj,
    ReconcileError,
    controller_of,
    controller_ref,
    editable_status,
    find_condition,
    is_controlled_by,
    labels,
    semantic_equal,
    set_controller_reference,
    set_status_condition,
    with_annotations,
)
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.agentsandbox.tracing import Tracer
from fakekube.clock import parse_rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.sim import MergeFrom, Request, Result

CLUSTER_DOMAIN = "cluster.local"


@dataclass
class SandboxReconciler:
    client: Any
    now: Any  # () -> RFC 3339 string of the simulated time
    clock_seconds: Any  # () -> simulated epoch seconds
    strategies: WriteStrategies = field(default_factory=WriteStrategies)
    tracer: Tracer = field(default_factory=Tracer)
    build: Build = field(default_factory=lambda: BUILDS["26288535"])

    def __post_init__(self) -> None:
        self.strategies = self.build.resolve(self.strategies)

    async def reconcile(self, req: Request) -> Result | None:
        c = self.client
        try:
            # The cached object, read-only: the pass copies only what it changes (its status, or the whole
            # object before a metadata patch). The wire traffic is the same as with a full copy.
            sandbox = await _shared_get(c, keys.SANDBOXES, req.name, req.namespace)
        except errors.NotFound:
            return None
        m = sandbox["metadata"]
        if m.get("deletionTimestamp"):
            return None
        ready = find_condition(sandbox.get("status"), keys.READY)
        if ready is not None and ready.get("reason") == keys.SANDBOX_EXPIRED:
            return None

        ann = m.get("annotations") or {}
        tc = self.tracer.trace_context(m["uid"], ann.get(keys.TRACE_CONTEXT))
        if tc and not ann.get(keys.TRACE_CONTEXT):
            patch = MergeFrom(sandbox, copy=False)  # the cached object is never mutated: it is the base as is
            sandbox = with_annotations(sandbox, {keys.TRACE_CONTEXT: tc})
            await c.patch(keys.SANDBOXES, sandbox, patch)

        # spec.replicas nil means 1 (upstream sets it in memory only; _replicas() reads it that way).
        old_status = sandbox.get("status") or {}
        sandbox = {**sandbox, "status": editable_status(old_status)}

        expired, requeue_after = self._check_expiry(sandbox)
        deleted = False
        err: Exception | None = None
        try:
            if expired:
                deleted = await self._handle_expiry(sandbox)
            else:
                await self._reconcile_children(sandbox)
        except (ReconcileError, errors.ApiError) as exc:
            err = exc
        if not deleted:
            try:
                write = self._update_status(old_status, sandbox)
                if write is not None:
                    await write
            except errors.ApiError as exc:
                err = exc if err is None else ReconcileError(f"{err}\n{exc}")
        if err is not None:
            raise err
        return Result(requeue_after=requeue_after) if requeue_after > 0 else None

    def _check_expiry(self, sandbox: Obj) -> tuple[bool, float]:
        shutdown = sandbox["spec"].get("shutdownTime")
        if not shutdown:
            return False, 0.0
        remaining = parse_rfc3339(shutdown).timestamp() - self.clock_seconds()
        if remaining < 0:
            return True, 0.0
        return False, max(remaining, 2.0)

    async def _handle_expiry(self, sandbox: Obj) -> bool:
        m = sandbox["metadata"]
        problems: list[str] = []
        for resource in (keys.PODS, keys.SERVICES):
            name = m["name"]
            if self.build.owner_checks:
                # #419: look the child up (the pod by its tracked name) and delete it only if this sandbox owns it.
                if resource == keys.PODS:
                    name = (m.get("annotations") or {}).get(keys.POD_NAME) or name
                try:
                    child = await _shared_get(self.client, resource, name, m["namespace"])
                except errors.NotFound:
                    continue
                if not is_controlled_by(child, sandbox):
                    continue
            try:
                await self.client.delete(resource, name, m["namespace"])
            except errors.NotFound:
                pass
            except errors.ApiError as exc:
                problems.append(str(exc))
        if sandbox["spec"].get("shutdownPolicy") == "Delete":
            try:
                await self.client.delete(keys.SANDBOXES, sandbox)
                return True
            except errors.NotFound:
                return True
            except errors.ApiError as exc:
                problems.append(str(exc))
        if problems:
            raise ReconcileError("; ".join(problems))
        sandbox["status"] = {}
        set_status_condition(sandbox["status"], {
            "type": keys.READY, "status": "False", "reason": keys.SANDBOX_EXPIRED,
            "message": "Sandbox has expired", "observedGeneration": m.get("generation") or 0,
        }, self.now)
        return False

    # -- children --------------------------------------------------------------------------------------

    async def _reconcile_children(self, sandbox: Obj) -> None:
        m = sandbox["metadata"]
        name_h = name_hash(m["name"])
        problems: list[Exception] = []
        try:
            if sandbox["spec"].get("volumeClaimTemplates"):  # else the loop has nothing to do: no coroutine
                await self._reconcile_pvcs(sandbox)
        except (ReconcileError, errors.ApiError) as exc:
            problems.append(exc)
        pod = None
        try:
            pod = await self._reconcile_pod(sandbox, name_h)
        except (ReconcileError, errors.ApiError) as exc:
            problems.append(exc)
        # A metadata patch in _reconcile_pod replaces the in-memory object (status included): write on top
        # of what is there now.
        status = sandbox.get("status")
        if status is None:
            status = sandbox["status"] = {}
        if pod is None:
            status.pop("replicas", None)
            status.pop("selector", None)
            if self.build.pod_ips:
                status.pop("podIPs", None)
        else:
            status["replicas"] = 1
            status["selector"] = f"{keys.SANDBOX_NAME_HASH}={name_h}"
            if self.build.pod_ips:
                ips = [p["ip"] for p in (pod.get("status") or {}).get("podIPs") or () if p.get("ip")]
                if ips:
                    status["podIPs"] = ips
                else:
                    status.pop("podIPs", None)
        svc = None
        try:
            svc = await self._reconcile_service(sandbox, name_h)
        except (ReconcileError, errors.ApiError) as exc:
            problems.append(exc)
        err = problems[0] if len(problems) == 1 else ReconcileError("\n".join(map(str, problems))) if problems else None
        set_status_condition(status, self._ready_condition(sandbox, err, svc, pod), self.now)
        if err is not None:
            raise err

    def _ready_condition(self, sandbox: Obj, err: Exception | None, svc: Obj | None, pod: Obj | None) -> Obj:
        cond = {"type": keys.READY, "status": "False", "reason": "DependenciesNotReady", "message": "",
                "observedGeneration": sandbox["metadata"].get("generation") or 0}
        if err is not None:
            cond["reason"], cond["message"] = "ReconcilerError", f"Error seen: {err}"
            return cond
        pod_ready = False
        if pod is not None:
            pstatus = pod.get("status") or {}
            phase = pstatus.get("phase", "")
            message = f"Pod exists with phase: {phase}"
            if phase == "Running":
                message = "Pod is Running but not Ready"
                for pc in pstatus.get("conditions") or ():
                    if pc.get("type") == "Ready":
                        if pc.get("status") == "True":
                            if self.build.pod_ips and not pstatus.get("podIPs"):
                                message = "Pod is Ready but has no podIPs yet"
                            else:
                                message, pod_ready = "Pod is Ready", True
                        break
        elif _replicas(sandbox) == 0:
            message, pod_ready = "Pod does not exist, replicas is 0", True
        else:
            message = "Pod does not exist"
        message += "; Service Exists" if svc is not None else "; Service does not exist"
        cond["message"] = message
        if pod_ready and svc is not None:
            cond["status"], cond["reason"] = "True", "DependenciesReady"
        return cond

    async def _reconcile_pvcs(self, sandbox: Obj) -> None:
        m = sandbox["metadata"]
        for vct in sandbox["spec"].get("volumeClaimTemplates") or ():
            pvc_name = f"{(vct.get('metadata') or {}).get('name', '')}-{m['name']}"
            try:
                await self.client.get(keys.PVCS, pvc_name, m["namespace"])
                continue
            except errors.NotFound:
                pass
            pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                   "metadata": {"name": pvc_name, "namespace": m["namespace"],
                                "ownerReferences": [controller_ref(sandbox)]},
                   "spec": json_copy(vct.get("spec") or {})}
            await self.client.create(keys.PVCS, pvc)

    async def _reconcile_pod(self, sandbox: Obj, name_h: str) -> Obj | None:
        c = self.client
        m = sandbox["metadata"]
        ns = m["namespace"]
        # Only used upstream to log "multiple pods"; kept because it is a cache read the pass makes. Its
        # answer is unused, so with a cache-reading client only the read's cost (an await point) is paid.
        if cache_informer(c, keys.PODS) is not None:
            await c.cache_read()
        else:
            await shared_list(c, keys.PODS, ns, labels={keys.SANDBOX_NAME_HASH: name_h})

        tracked = (m.get("annotations") or {}).get(keys.POD_NAME)
        pod_name = tracked or m["name"]
        try:
            # Read-only view of the cached pod; it is copied below only when this pass will write it.
            pod: Obj | None = await _shared_get(c, keys.PODS, pod_name, ns)
        except errors.NotFound:
            if tracked is not None:
                raise ReconcileError(f"pod in annotation get failed: pods \"{pod_name}\" not found") from None
            pod = None

        if _replicas(sandbox) == 0:
            owned = pod is not None and (not self.build.owner_checks or is_controlled_by(pod, sandbox))
            if owned and not pod["metadata"].get("deletionTimestamp"):  # type: ignore[index]
                await c.delete(keys.PODS, pod)
            if tracked is not None:
                await self._patch_annotations(sandbox, remove=keys.POD_NAME)
            return None

        template_meta = (sandbox["spec"].get("podTemplate") or {}).get("metadata") or {}
        if pod is not None and self.build.owner_checks:
            pod = await self._sync_pod(sandbox, pod, name_h, template_meta)
        elif pod is not None:
            current = pod["metadata"].get("labels") or {}
            wanted = {keys.SANDBOX_NAME_HASH: name_h, **(template_meta.get("labels") or {})}
            changed = any(current.get(k) != v for k, v in wanted.items()) or controller_of(pod) is None
            if changed:
                before = pod if self.strategies.pod_metadata == "patch" else None  # the cached pod, unchanged
                pod = json_copy(pod)
                pm = pod["metadata"]
                pod_labels = pm.get("labels")
                if pod_labels is None:
                    pod_labels = pm["labels"] = {}
                if pod_labels.get(keys.SANDBOX_NAME_HASH) != name_h:
                    pod_labels[keys.SANDBOX_NAME_HASH] = name_h
                for k, v in (template_meta.get("labels") or {}).items():
                    if pod_labels.get(k) != v:
                        pod_labels[k] = v
                if controller_of(pod) is None:
                    pm.setdefault("ownerReferences", []).append(controller_ref(sandbox))
                await self._write_pod(pod, before)
            return pod
        else:
            pod = await self._create_pod(sandbox, name_h, template_meta)
        if self.build.pod_name_annotation and not (sandbox["metadata"].get("annotations") or {}).get(keys.POD_NAME):
            await self._ensure_pod_name_annotation(sandbox, pod["metadata"]["name"])  # its own test, asked first
        return pod

    async def _create_pod(self, sandbox: Obj, name_h: str, template_meta: Obj) -> Obj:
        m = sandbox["metadata"]
        pod_labels = {keys.SANDBOX_NAME_HASH: name_h, **(template_meta.get("labels") or {})}
        pod_spec = json_copy((sandbox["spec"].get("podTemplate") or {}).get("spec") or {})
        for vct in sandbox["spec"].get("volumeClaimTemplates") or ():
            vname = (vct.get("metadata") or {}).get("name", "")
            pod_spec.setdefault("volumes", []).append(
                {"name": vname, "persistentVolumeClaim": {"claimName": f"{vname}-{m['name']}"}})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": m["name"], "namespace": m["namespace"], "labels": pod_labels,
                            "annotations": dict(template_meta.get("annotations") or {}),
                            "ownerReferences": [controller_ref(sandbox)]},
               "spec": pod_spec}
        await self.client.create(keys.PODS, pod)
        return pod

    async def _sync_pod(self, sandbox: Obj, pod: Obj, name_h: str, template_meta: Obj) -> Obj:
        """953032b3 (#419): refuse another controller's pod, adopt an unowned one, and PUT the pod with the
        sandbox's labels on every pass — also when nothing changed (the API server then writes nothing)."""
        ref = controller_of(pod)
        sm = sandbox["metadata"]
        if ref is not None and ref.get("uid") != sm.get("uid"):
            if keys.POD_NAME in (sm.get("annotations") or {}):
                await self._patch_annotations(sandbox, remove=keys.POD_NAME)
            raise ReconcileError(f'pod "{pod["metadata"]["name"]}" is owned by {ref.get("kind")}/{ref.get("name")} '
                                 f'(UID: {ref.get("uid")}), not by sandbox "{sm["name"]}"')
        before = pod if self.strategies.pod_metadata == "patch" else None  # the cached pod, never mutated
        cached_meta = pod["metadata"]
        if ref is not None and _has_labels(cached_meta.get("labels"), name_h, template_meta.get("labels")):
            # Nothing to set (every pass after the first): what the edits below would send is the cached pod,
            # key for key. Its own fields go out as they are, in a dict of this pass's (the answer replaces its
            # contents): the API server tells the stored version's own fields from their copies by identity
            # and need not encode or compare them (verbs/noop.py, verbs/unchanged.py).
            pod = {**pod}
            await self._write_pod(pod, before)
            return pod
        # The cached pod is shared: copy what this pass changes (metadata, labels, owner references) and leave
        # spec and status shared — the store copies the body it is sent, and the answer replaces this dict.
        pm = {**cached_meta, "labels": dict(cached_meta.get("labels") or {})}
        pod = {**pod, "metadata": pm}
        if ref is None:
            pm["ownerReferences"] = [*(cached_meta.get("ownerReferences") or ()), controller_ref(sandbox)]
        pod_labels = pm["labels"]
        pod_labels[keys.SANDBOX_NAME_HASH] = name_h
        pod_labels.update(template_meta.get("labels") or {})
        await self._write_pod(pod, before)
        return pod

    def _write_pod(self, pod: Obj, before: Obj | None) -> Awaitable[Obj]:
        """PUT ``pod``, or merge-patch it from ``before``: the cached pod it was derived from, read-only.

        It hands back the client's awaitable (no coroutine of its own around it, one level fewer to resume).
        """
        if before is None:
            # PUT with the cached resourceVersion: collides with the kubelet's status patches.
            return self.client.update(keys.PODS, pod)
        return self.client.patch(keys.PODS, pod, MergeFrom(before, copy=False))

    async def _ensure_pod_name_annotation(self, sandbox: Obj, pod_name: str) -> None:
        """#272 ``ensurePodNameAnnotation``: record the pod in the sandbox's annotation unless one is there."""
        if (sandbox["metadata"].get("annotations") or {}).get(keys.POD_NAME):
            return  # already this pod, or another one (upstream logs and leaves it)
        await self._patch_annotations(sandbox, set_={keys.POD_NAME: pod_name})

    async def _patch_annotations(self, sandbox: Obj, *, set_: dict[str, str] | None = None,
                                 remove: str | None = None) -> None:
        """A merge patch of the sandbox's annotations; the in-memory sandbox becomes the server's answer."""
        # ``sandbox`` is the base as is: it is left alone until the patch has been sent.
        patch = MergeFrom(sandbox, copy=False)
        full = with_annotations(sandbox, set_, remove)
        await self.client.patch(keys.SANDBOXES, full, patch)
        sandbox.clear()
        sandbox.update(full)  # the in-memory object is now the server's answer, as in Go

    async def _reconcile_service(self, sandbox: Obj, name_h: str) -> Obj:
        m = sandbox["metadata"]
        try:
            svc = await _shared_get(self.client, keys.SERVICES, m["name"], m["namespace"])
            if self.build.owner_checks and not is_controlled_by(svc, sandbox):  # its first test, asked here
                svc = await self._check_service_owner(sandbox, svc, name_h)
        except errors.NotFound:
            svc = {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": m["name"], "namespace": m["namespace"],
                                "labels": {keys.SANDBOX_NAME_HASH: name_h},
                                "ownerReferences": [controller_ref(sandbox)]},
                   "spec": {"clusterIP": "None", "selector": {keys.SANDBOX_NAME_HASH: name_h}}}
            await self.client.create(keys.SERVICES, svc)
        status = sandbox["status"]
        status["service"] = svc["metadata"]["name"]
        status["serviceFQDN"] = f"{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc.{CLUSTER_DOMAIN}"
        return svc

    async def _check_service_owner(self, sandbox: Obj, svc: Obj, name_h: str) -> Obj:
        """953032b3 (#419): refuse another controller's Service; adopt an unowned headless one with a PUT."""
        ref = controller_of(svc)
        sm = sandbox["metadata"]
        if ref is not None and ref.get("uid") == sm.get("uid"):
            return svc
        name = svc["metadata"]["name"]
        if ref is not None:
            raise ReconcileError(f'service "{name}" is owned by {ref.get("kind")}/{ref.get("name")} '
                                 f'(UID: {ref.get("uid")}), not by sandbox "{sm["name"]}"')
        cluster_ip = (svc.get("spec") or {}).get("clusterIP") or ""
        if cluster_ip not in ("", "None"):
            raise ReconcileError(f'cannot adopt service "{name}": ClusterIP is "{cluster_ip}" '
                                 '(expected "None", field is immutable)')
        svc = json_copy(svc)
        labels(svc)[keys.SANDBOX_NAME_HASH] = name_h
        svc.setdefault("spec", {})["selector"] = {keys.SANDBOX_NAME_HASH: name_h}
        set_controller_reference(sandbox, svc)
        await self.client.update(keys.SERVICES, svc)
        return svc

    def _update_status(self, old_status: Obj, sandbox: Obj) -> Awaitable[Obj] | None:
        """``updateStatus``: the status write when the status changed, else None (nothing to send).

        It hands back the client's awaitable, as ``_write_pod`` does: no coroutine of its own per pass.
        """
        status = sandbox.get("status") or {}
        if semantic_equal(old_status, status):
            return None
        if self.strategies.sandbox_status == "update":
            return self.client.status_update(keys.SANDBOXES, sandbox)
        # A base for the purpose, sharing the sandbox's other fields: the client diffs it before any change.
        base = {**sandbox, "status": old_status}  # the diff walks the object in its own key order
        return self.client.status_patch(keys.SANDBOXES, sandbox, MergeFrom(base, copy=False))


def _has_labels(current: dict[str, str] | None, name_h: str, template_labels: dict[str, str] | None) -> bool:
    """Whether the pod's labels already hold the name hash and the template's labels (the values the pass
    sets; a stored pod's label values are strings, so equal values are the same JSON text)."""
    if current is None or current.get(keys.SANDBOX_NAME_HASH) != name_h:
        return False
    return not template_labels or all(k in current and current[k] == v for k, v in template_labels.items())


def _replicas(sandbox: Obj) -> int:
    replicas = (sandbox.get("spec") or {}).get("replicas")
    return 1 if replicas is None else int(replicas)


def has_name_hash_label(obj: Obj | None) -> bool:
    """The Owns(Pod)/Owns(Service) ``LabelSelectorPredicate``: the sandbox-name-hash label exists."""
    return obj is not None and keys.SANDBOX_NAME_HASH in ((obj.get("metadata") or {}).get("labels") or {})


def setup(mgr: Any, reconciler: SandboxReconciler, workers: int, predicates: Any) -> Any:
    """``SetupWithManager``: For(Sandbox); Owns(Pod) and Owns(Service) behind the label predicate."""
    label_pred = predicates.has_label(keys.SANDBOX_NAME_HASH)
    return (mgr.controller("sandbox", reconciler.reconcile, workers=workers)
            .for_(keys.SANDBOXES)
            .owns(keys.PODS, predicates=[label_pred])
            .owns(keys.SERVICES, predicates=[label_pred]))
