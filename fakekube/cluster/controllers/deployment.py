"""``deployment-controller`` (kubernetes ``pkg/controller/deployment/{deployment_controller,sync,rolling,
recreate,progress}.go``).

A sync claims the Deployment's ReplicaSets, then: a paused Deployment gets the DeploymentPaused /
DeploymentResumed Progressing condition and is only scaled; a scaling event (a live ReplicaSet whose
``desired-replicas`` annotation differs from ``spec.replicas``) scales proportionally; otherwise the
strategy rolls out. ``RollingUpdate`` grows the new ReplicaSet up to ``replicas + maxSurge`` pods, then
shrinks old ones while ``minAvailable = replicas - maxUnavailable`` pods stay available (unhealthy old pods
first); ``Recreate`` scales every old ReplicaSet to zero, waits for their pods to go, then scales the new one
up. The new ReplicaSet is ``<deployment>-<pod-template-hash>`` with the hash label in its selector and
template, and the revision annotations (``deployment.kubernetes.io/revision`` on both objects, plus
``revision-history``, ``desired-replicas`` and ``max-replicas`` on the ReplicaSet) that ``kubectl rollout
history|undo`` read. Old ReplicaSets beyond ``revisionHistoryLimit`` are deleted once scaled to zero.

Writes, as upstream: ``POST replicasets`` (a new ReplicaSet), ``PUT replicasets/<rs>`` (Update, to scale or
re-annotate), ``PUT deployments/<d>/status`` (UpdateStatus, also carrying the revision annotation),
``DELETE replicasets/<rs>`` (history clean-up); events ``ScalingReplicaSet``. Status conditions:
Available (MinimumReplicasAvailable / MinimumReplicasUnavailable) and Progressing (NewReplicaSetCreated,
FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable, ProgressDeadlineExceeded).
"""

from __future__ import annotations

import contextlib
from datetime import timedelta
from typing import Any

from fakekube import errors
from fakekube.clock import parse_rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request

from .. import identity
from ..hashing import pod_template_hash
from ..objects import controller_ref, matches, owner_reference, selector_of
from . import deployment_util as du
from .common import KcmController, owned_requests
from .deployment_rollout import RolloutStrategies

Obj = dict[str, Any]


class DeploymentController(RolloutStrategies, KcmController):
    identity = identity.DEPLOYMENT
    resource = "deployments"

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.deployments = self.manager.informer(self.resource)
        self.controller.for_(self.resource).owns("replicasets")
        self.controller.watches("replicasets", self._orphan_owners)
        self.controller.watches("pods", self._recreate_owner)

    # -- event mapping ---------------------------------------------------------------------------------------

    def _orphan_owners(self, rs: Obj) -> list[Request]:
        """An orphan ReplicaSet: every Deployment whose selector matches it (``getDeploymentsForReplicaSet``)."""
        if controller_ref(rs) is not None:
            return []
        ns = rs["metadata"].get("namespace")
        return [Request(ns, d["metadata"]["name"]) for d in self.deployments.list_raw(ns)
                if matches(selector_of(d), rs)]

    def _recreate_owner(self, pod: Obj) -> list[Request]:
        """A pod of a Recreate Deployment's ReplicaSet (``deletePod``): the Deployment waits for them to go."""
        for req in owned_requests(pod, "ReplicaSet", "apps"):
            rs = self.manager.informer("replicasets").get_raw(req.namespace, req.name)
            if rs is None:
                continue
            for owner in owned_requests(rs, "Deployment", "apps"):
                d = self.deployments.get_raw(owner.namespace, owner.name)
                if d is not None and not du.is_rolling(d):
                    return [owner]
        return []

    # -- syncDeployment --------------------------------------------------------------------------------------

    async def sync(self, req: Request) -> None:
        cached = await self.writer.get(self.resource, req.name, req.namespace)
        if cached is None:
            return
        d = json_copy(cached)
        if not (d.get("spec") or {}).get("selector"):
            self.recorder.event(d, "Warning", "SelectingAll",
                                "This deployment is selecting all pods. A non-empty selector is required.")
            return
        candidates = await self.writer.list("replicasets", req.namespace)
        rss = [json_copy(rs) for rs in await self.claim(d, "replicasets", candidates)]
        if d["metadata"].get("deletionTimestamp"):
            await self._sync_status_only(d, rss)
            return
        d = await self._check_paused_conditions(d)
        if (d.get("spec") or {}).get("paused"):
            await self._sync_scale(d, rss)
            return
        if await self._is_scaling_event(d, rss):
            await self._sync_scale(d, rss)
            return
        if du.is_rolling(d):
            await self._rollout_rolling(d, rss)
        else:
            await self._rollout_recreate(d, rss)

    async def _update_status(self, d: Obj) -> Obj:
        return await self.writer.update(self.resource, d, subresource="status")

    async def _check_paused_conditions(self, d: Obj) -> Obj:
        if du.progress_deadline(d) is None:
            return d
        status = d.setdefault("status", {})
        cond = du.get_condition(status, "Progressing")
        if cond is not None and cond.get("reason") == du.TIMED_OUT:
            return d
        paused = bool((d.get("spec") or {}).get("paused"))
        paused_reason = cond is not None and cond.get("reason") == du.PAUSED
        if paused and not paused_reason:
            du.set_condition(status, du.new_condition("Progressing", "Unknown", du.PAUSED, "Deployment is paused",
                                                      self.timestamp()))
        elif not paused and paused_reason:
            du.set_condition(status, du.new_condition("Progressing", "Unknown", du.RESUMED, "Deployment is resumed",
                                                      self.timestamp()))
        else:
            return d
        return await self._update_status(d)

    # -- ReplicaSets -------------------------------------------------------------------------------------------

    def _split(self, d: Obj, rss: list[Obj]) -> tuple[Obj | None, list[Obj]]:
        new_rs = du.find_new(d, rss)
        return new_rs, [rs for rs in rss if rs is not new_rs]

    async def _new_and_old(self, d: Obj, rss: list[Obj], create: bool) -> tuple[Obj, Obj | None, list[Obj]]:
        """``getAllReplicaSetsAndSyncRevision``: (the Deployment as now written, new RS, all old RSs)."""
        existing, old_rss = self._split(d, rss)
        new_revision = du.max_revision(old_rss) + 1
        status = d.setdefault("status", {})
        if existing is not None:
            updated = json_copy(existing)
            changed = du.set_new_rs_annotations(d, updated, new_revision, exists=True)
            min_ready = (d.get("spec") or {}).get("minReadySeconds", 0)
            if (updated.get("spec") or {}).get("minReadySeconds", 0) != min_ready:
                updated["spec"]["minReadySeconds"] = min_ready
                changed = True
            if changed:
                updated = await self.writer.update("replicasets", updated)
                rss[rss.index(existing)] = updated
            needs_update = self._set_revision(d, (updated["metadata"].get("annotations") or {}).get(du.REVISION, ""))
            if du.progress_deadline(d) is not None and du.get_condition(status, "Progressing") is None:
                du.set_condition(status, du.new_condition(
                    "Progressing", "True", du.FOUND_NEW_RS, f'Found new replica set "{updated["metadata"]["name"]}"',
                    self.timestamp()))
                needs_update = True
            if needs_update:
                d = await self._update_status(d)
            return d, updated, old_rss
        if not create:
            return d, None, old_rss
        return await self._create_new(d, rss, old_rss, new_revision)

    async def _create_new(self, d: Obj, rss: list[Obj], old_rss: list[Obj], new_revision: int
                          ) -> tuple[Obj, Obj | None, list[Obj]]:
        spec = d.get("spec") or {}
        template = json_copy(spec.get("template") or {})
        status = d.setdefault("status", {})
        template_hash = pod_template_hash(template, status.get("collisionCount"))
        labels = {**((template.get("metadata") or {}).get("labels") or {}), du.POD_TEMPLATE_HASH: template_hash}
        template.setdefault("metadata", {})["labels"] = labels
        selector = json_copy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[du.POD_TEMPLATE_HASH] = template_hash
        name = f"{d['metadata']['name']}-{template_hash}"
        new_rs: Obj = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": d["metadata"].get("namespace"), "labels": dict(labels),
                         "ownerReferences": [owner_reference(d)]},
            "spec": {"replicas": 0, "minReadySeconds": spec.get("minReadySeconds", 0), "selector": selector,
                     "template": template},
        }
        count = du.new_rs_replicas(d, [*old_rss, new_rs], new_rs)
        new_rs["spec"]["replicas"] = count
        du.set_new_rs_annotations(d, new_rs, new_revision, exists=False)
        already_exists = False
        try:
            created = await self.writer.create("replicasets", new_rs, d["metadata"].get("namespace"))
        except errors.AlreadyExists:
            live = await self.writer.live_get("replicasets", name, d["metadata"].get("namespace"))
            ref = controller_ref(live)
            if ref is not None and ref.get("uid") == d["metadata"]["uid"] and \
                    du.equal_ignore_hash((live.get("spec") or {}).get("template") or {}, spec.get("template") or {}):
                created, already_exists = live, True
            else:
                # A hash collision: a different ReplicaSet has the name. Bump collisionCount and retry.
                status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
                await self._update_status(d)
                raise errors.Conflict("replicasets", "apps", name, "hash collision; collisionCount increased") \
                    from None
        rss.append(created)
        if not already_exists and count > 0:
            self.recorder.event(d, "Normal", "ScalingReplicaSet",
                                f"Scaled up replica set {created['metadata']['name']} from 0 to {count}")
        needs_update = self._set_revision(d, str(new_revision))
        if not already_exists and du.progress_deadline(d) is not None:
            du.set_condition(status, du.new_condition(
                "Progressing", "True", du.NEW_RS_CREATED, f'Created new replica set "{created["metadata"]["name"]}"',
                self.timestamp()))
            needs_update = True
        if needs_update:
            d = await self._update_status(d)
        return d, created, old_rss

    def _set_revision(self, d: Obj, rev: str) -> bool:
        annotations = d["metadata"].setdefault("annotations", {})
        if annotations.get(du.REVISION) == rev:
            return False
        annotations[du.REVISION] = rev
        return True

    async def _scale(self, d: Obj, rs: Obj, new_size: int, rss: list[Obj]) -> tuple[bool, Obj]:
        """``scaleReplicaSetAndRecordEvent``: Update the ReplicaSet's size and replica annotations."""
        old_size = du.rs_replicas(rs)
        size_changed = old_size != new_size
        annotations_changed = du.replicas_annotations_need_update(rs, du.replicas(d), du.replicas(d) + du.max_surge(d))
        if not size_changed and not annotations_changed:
            return False, rs
        updated = json_copy(rs)
        updated["spec"]["replicas"] = new_size
        du.set_replicas_annotations(updated, du.replicas(d), du.replicas(d) + du.max_surge(d))
        updated = await self.writer.update("replicasets", updated)
        for i, existing in enumerate(rss):
            if existing["metadata"]["name"] == updated["metadata"]["name"]:
                rss[i] = updated
        if size_changed:
            direction = "up" if new_size > old_size else "down"
            self.recorder.event(d, "Normal", "ScalingReplicaSet",
                                f"Scaled {direction} replica set {rs['metadata']['name']} from {old_size} to {new_size}")
        return size_changed, updated

    # -- scaling (sync) -----------------------------------------------------------------------------------------

    async def _is_scaling_event(self, d: Obj, rss: list[Obj]) -> bool:
        new_rs, old_rss = self._split(d, rss)
        for rs in [r for r in [new_rs, *old_rss] if r is not None and du.rs_replicas(r) > 0]:
            desired = du.desired_annotation(rs)
            if desired is not None and desired != du.replicas(d):
                return True
        return False

    async def _sync_scale(self, d: Obj, rss: list[Obj]) -> None:
        """``sync``: scale (proportionally during a rollout), clean up a paused one, update the status."""
        d, new_rs, old_rss = await self._new_and_old(d, rss, create=False)
        await self._proportional_scale(d, rss, new_rs, old_rss)
        if (d.get("spec") or {}).get("paused"):
            await self._cleanup(d, [self._current(rss, rs) for rs in old_rss])
        new_rs = self._current(rss, new_rs) if new_rs is not None else None
        status = du.calculate_status(d, rss, new_rs, self.timestamp())
        if status != (d.get("status") or {}):
            d["status"] = status
            await self._update_status(d)

    async def _proportional_scale(self, d: Obj, rss: list[Obj], new_rs: Obj | None, old_rss: list[Obj]) -> None:
        active = [rs for rs in [new_rs, *old_rss] if rs is not None and du.rs_replicas(rs) > 0]
        want = du.replicas(d)
        if len(active) <= 1:
            target = active[0] if active else (new_rs if new_rs is not None else
                                                (sorted(old_rss, key=du.revision)[-1] if old_rss else None))
            if target is not None and du.rs_replicas(target) != want:
                await self._scale(d, target, want, rss)
            return
        if new_rs is not None and du.rs_replicas(new_rs) == want and du.desired_annotation(new_rs) == want and \
                du.rs_status(new_rs, "availableReplicas") == want:
            for rs in old_rss:
                if du.rs_replicas(rs) > 0:
                    await self._scale(d, rs, 0, rss)
            return
        if not du.is_rolling(d):
            return
        allowed = want + du.max_surge(d) if want > 0 else 0
        to_add = allowed - du.total_replicas(active)
        if to_add == 0:
            return
        newest_first = to_add > 0
        ordered = sorted(active, key=lambda rs: (-du.rs_replicas(rs), _age_key(rs, newest_first)))
        added = 0
        sizes: dict[str, int] = {}
        for rs in ordered:
            proportion = self._proportion(d, rs, to_add, added)
            sizes[rs["metadata"]["name"]] = du.rs_replicas(rs) + proportion
            added += proportion
        leftover = to_add - added
        if leftover:
            first = ordered[0]["metadata"]["name"]
            sizes[first] = max(sizes[first] + leftover, 0)
        for rs in ordered:
            await self._scale(d, self._current(rss, rs), sizes[rs["metadata"]["name"]], rss)

    def _proportion(self, d: Obj, rs: Obj, to_add: int, added: int) -> int:
        """``getProportion`` with ``getReplicaSetFraction``."""
        if du.rs_replicas(rs) == 0 or to_add == 0 or to_add == added:
            return 0
        want = du.replicas(d)
        if want == 0:
            fraction = -du.rs_replicas(rs)
        else:
            annotated = du.max_replicas_annotation(rs)
            if annotated is None or annotated == 0:
                annotated = int((d.get("status") or {}).get("replicas") or 0) or 1
            fraction = round(du.rs_replicas(rs) * (want + du.max_surge(d)) / annotated) - du.rs_replicas(rs)
        allowed = to_add - added
        return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)

    # -- status ----------------------------------------------------------------------------------------------------

    async def _sync_status_only(self, d: Obj, rss: list[Obj]) -> None:
        d, new_rs, _ = await self._new_and_old(d, rss, create=False)
        status = du.calculate_status(d, rss, new_rs, self.timestamp())
        if status != (d.get("status") or {}):
            d["status"] = status
            await self._update_status(d)

    async def _sync_rollout_status(self, d: Obj, rss: list[Obj]) -> None:
        """``syncRolloutStatus``: counts, Available, and Progressing with its progress deadline."""
        new_rs = du.find_new(d, rss)
        now = self.timestamp()
        status = du.calculate_status(d, rss, new_rs, now)
        deadline = du.progress_deadline(d)
        if deadline is None:
            du.remove_condition(status, "Progressing")
        current = du.get_condition(status, "Progressing")
        complete = (status.get("replicas", 0) == status.get("updatedReplicas", 0) and current is not None
                    and current.get("reason") == du.NEW_RS_AVAILABLE)
        if deadline is not None and not complete:
            rs_name = new_rs["metadata"]["name"] if new_rs is not None else None
            if du.deployment_complete(d, status):
                message = (f'ReplicaSet "{rs_name}" has successfully progressed.' if rs_name else
                           f'Deployment "{d["metadata"]["name"]}" has successfully progressed.')
                du.set_condition(status, du.new_condition("Progressing", "True", du.NEW_RS_AVAILABLE, message, now))
            elif du.deployment_progressing(d, status):
                message = (f'ReplicaSet "{rs_name}" is progressing.' if rs_name else
                           f'Deployment "{d["metadata"]["name"]}" is progressing.')
                cond = du.new_condition("Progressing", "True", du.RS_UPDATED, message, now)
                if current is not None and current.get("status") == "True":
                    cond["lastTransitionTime"] = current.get("lastTransitionTime")
                du.remove_condition(status, "Progressing")
                du.set_condition(status, cond)
            elif self._timed_out(d, status):
                message = (f'ReplicaSet "{rs_name}" has timed out progressing.' if rs_name else
                           f'Deployment "{d["metadata"]["name"]}" has timed out progressing.')
                du.set_condition(status, du.new_condition("Progressing", "False", du.TIMED_OUT, message, now))
        failures = [c for rs in rss for c in (rs.get("status") or {}).get("conditions") or ()
                    if c.get("type") == "ReplicaFailure" and rs is new_rs]
        if failures:
            failure = failures[0]
            du.set_condition(status, du.new_condition("ReplicaFailure", failure.get("status", "True"),
                                                      failure.get("reason", ""), failure.get("message", ""), now))
        else:
            du.remove_condition(status, "ReplicaFailure")
        if status == (d.get("status") or {}):
            self._requeue_stuck(d, status)
            return
        d["status"] = status
        await self._update_status(d)

    def _timed_out(self, d: Obj, status: Obj) -> bool:
        deadline = du.progress_deadline(d)
        cond = du.get_condition(status, "Progressing")
        if deadline is None or cond is None or cond.get("reason") == du.NEW_RS_AVAILABLE:
            return False
        if cond.get("reason") == du.TIMED_OUT:
            return True
        since = cond.get("lastUpdateTime")
        return bool(since) and parse_rfc3339(since) + timedelta(seconds=deadline) < self.now()

    def _requeue_stuck(self, d: Obj, status: Obj) -> None:
        """``requeueStuckDeployment``: look again when the progress deadline would pass."""
        deadline = du.progress_deadline(d)
        cond = du.get_condition(status, "Progressing")
        if deadline is None or cond is None or du.deployment_complete(d, status) or cond.get("reason") == du.TIMED_OUT:
            return
        since = cond.get("lastUpdateTime")
        if not since:
            return
        after = (parse_rfc3339(since) + timedelta(seconds=deadline) - self.now()).total_seconds()
        self.enqueue(Request(d["metadata"].get("namespace"), d["metadata"]["name"]),
                     after=max(after, 0.0) + 1.0)

    async def _cleanup(self, d: Obj, old_rss: list[Obj]) -> None:
        """``cleanupDeployment``: delete the oldest scaled-down ReplicaSets beyond ``revisionHistoryLimit``."""
        limit = du.revision_history_limit(d)
        if limit is None:
            return
        alive = [rs for rs in old_rss if not rs["metadata"].get("deletionTimestamp")]
        diff = len(alive) - limit
        if diff <= 0:
            return
        for rs in sorted(alive, key=lambda r: (du.revision(r), r["metadata"].get("creationTimestamp") or ""))[:diff]:
            if du.rs_status(rs, "replicas") or du.rs_replicas(rs) or \
                    rs["metadata"].get("generation", 0) > du.rs_status(rs, "observedGeneration"):
                continue
            with contextlib.suppress(errors.NotFound):
                await self.writer.delete("replicasets", rs["metadata"]["name"], rs["metadata"].get("namespace"))


def _age_key(rs: Obj, newest_first: bool) -> tuple[int, ...]:
    created = rs["metadata"].get("creationTimestamp") or ""
    return tuple(-ord(ch) for ch in created) if newest_first else tuple(ord(ch) for ch in created)
