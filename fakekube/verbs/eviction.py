"""``POST pods/<name>/eviction``: delete a pod unless its PodDisruptionBudget forbids it.

kube-apiserver's ``EvictionREST`` (kubernetes ``pkg/registry/core/pod/storage/eviction.go``, with
PodDisruptionConditions and the PDB ``unhealthyPodEvictionPolicy`` on, as in v1.32):

- the body is a policy/v1 (or v1beta1) ``Eviction`` named like the pod; its ``deleteOptions`` are the pod
  delete's (grace period, preconditions, dry run);
- a pod that is Pending, Succeeded, Failed or already being deleted is deleted without looking at budgets;
- otherwise the budgets of its namespace whose selector matches it are consulted: more than one is a 500
  ("This pod has more than one PodDisruptionBudget, ..."); one whose status is older than its generation, or
  that allows no disruption, answers **429 TooManyRequests** "Cannot evict pod as it would violate the pod's
  disruption budget." with a ``DisruptionBudget`` cause ("The disruption budget web needs 2 healthy pods and
  has 2 currently"); a negative allowance is a 403. An allowed eviction decrements
  ``status.disruptionsAllowed``, records the pod in ``status.disruptedPods`` and writes the budget's status
  (``PUT poddisruptionbudgets/<pdb>/status`` by kube-apiserver, a request of its own in the audit log);
- a pod that is not Ready is evicted without spending the budget when the budget is healthy anyway
  (``IfHealthyBudget``, the default) or always (``AlwaysAllow``), guarded by a resourceVersion precondition;
- the pod first gets the ``DisruptionTarget`` condition (``EvictionByEvictionAPI``), then is deleted
  (gracefully); the answer is a ``Success`` Status (201).
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.jsonvalues import json_copy
from fakekube.records import record_key
from fakekube.resources import ResourceType
from fakekube.selectors import LabelSelector

PDBS = "poddisruptionbudgets.policy"
TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget."
MAX_DISRUPTED_PODS = 2000
EVICTION_VERSIONS = ("policy/v1", "policy/v1beta1")


def _ready(pod: dict[str, Any]) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())


def _too_many(pdb: str, cause: str, retry_after: int) -> errors.ApiError:
    return errors.ApiError(429, "TooManyRequests", TOO_MANY, {
        "causes": [{"reason": "DisruptionBudget", "message": cause}], "retryAfterSeconds": retry_after or None})


class EvictionVerbs:
    """``evict``."""

    def evict(self, name: str, body: dict[str, Any], namespace: str | None = None, *, actor: str = "fakekube",
              dry_run: bool = False) -> dict[str, Any]:
        """POST pods/<name>/eviction with an ``Eviction`` body; returns the Success Status (201)."""
        rt = self.resolve("pods")
        return self._run(
            lambda: self._begin("create", rt, namespace, name, "eviction", actor, dry_run=dry_run),
            lambda entry: self._evict(rt, namespace, name, body, entry, dry_run),
        )

    def _evict(self, rt: ResourceType, namespace: str | None, name: str, body: Any, entry: AuditEntry,
               dry_run: bool) -> dict[str, Any]:
        if not isinstance(body, dict) or body.get("kind") not in (None, "Eviction") or \
                body.get("apiVersion") not in (None, *EVICTION_VERSIONS):
            kind = f"{body.get('apiVersion')}/{body.get('kind')}" if isinstance(body, dict) else type(body).__name__
            raise errors.BadRequest(f"not a Eviction object: {kind}")
        meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
        if meta.get("name") != name:
            raise errors.BadRequest("name in URL does not match name in Eviction object")
        options = body.get("deleteOptions") if isinstance(body.get("deleteOptions"), dict) else {}
        dry_run = dry_run or bool(options.get("dryRun"))
        preconditions = dict(options.get("preconditions") or {})
        grace = options.get("gracePeriodSeconds")
        # pod/storage/eviction.go: createValidation (validating admission) sees the Eviction before the pod is read
        version = str(body.get("apiVersion") or "policy/v1").partition("/")[2]
        self._validating_admission(entry, "CREATE", rt, body, None, "eviction", dry_run,
                                   request_kind=("policy", version, "Eviction"), namespace=namespace)
        record = self._lookup(rt, namespace, name)
        pod = record.obj
        entry.uid = pod["metadata"]["uid"]
        entry.rv_before = record.rv
        phase = (pod.get("status") or {}).get("phase") or "Pending"
        terminating = bool(pod["metadata"].get("deletionTimestamp"))
        if phase in ("Pending", "Succeeded", "Failed") or terminating:  # canIgnorePDB
            if phase == "Pending" and not terminating and not preconditions.get("resourceVersion"):
                preconditions["resourceVersion"] = record.rv  # shouldEnforceResourceVersion
            return self._evict_pod(rt, namespace, name, entry, grace, preconditions, dry_run)
        pdb_rt = self.resolve(PDBS)
        labels = pod["metadata"].get("labels") or {}
        budgets = []
        for pdb in self.objects(pdb_rt, namespace):
            selector = (pdb.get("spec") or {}).get("selector")
            # A budget with a nil or empty selector matches nothing.
            if selector and LabelSelector.from_dict(selector).matches(labels):
                budgets.append(pdb)
        if len(budgets) > 1:
            raise errors.ApiError(500, "", "This pod has more than one PodDisruptionBudget, which the eviction "
                                           "subresource does not support.")
        if budgets:
            pdb = budgets[0]
            status = pdb.get("status") or {}
            policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy")
            unhealthy_free = not _ready(pod) and (policy == "AlwaysAllow" or (
                int(status.get("currentHealthy") or 0) >= int(status.get("desiredHealthy") or 0) > 0))
            if unhealthy_free:
                if not preconditions.get("resourceVersion"):
                    preconditions["resourceVersion"] = record.rv
            else:
                self._spend_budget(pdb, name, dry_run, entry.actor)
        return self._evict_pod(rt, namespace, name, entry, grace, preconditions, dry_run)

    def _spend_budget(self, pdb: dict[str, Any], pod_name: str, dry_run: bool, actor: str) -> None:
        """``checkAndDecrement``, then the budget's status update (kube-apiserver's loopback client)."""
        meta = pdb["metadata"]
        status = pdb.setdefault("status", {})
        if int(status.get("observedGeneration") or 0) < int(meta.get("generation") or 0):
            raise _too_many(meta["name"], f"The disruption budget {meta['name']} is still being processed by the "
                                          "server.", 10)
        allowed = int(status.get("disruptionsAllowed") or 0)
        if allowed < 0:
            raise errors.Forbidden(f'poddisruptionbudget.policy "{meta["name"]}" is forbidden: pdb disruptions '
                                   "allowed is negative",
                                   {"name": meta["name"], "group": "policy", "kind": "poddisruptionbudget"})
        if len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
            raise errors.Forbidden(f'poddisruptionbudget.policy "{meta["name"]}" is forbidden: DisruptedPods map '
                                   "too big - too many evictions not confirmed by PDB controller",
                                   {"name": meta["name"], "group": "policy", "kind": "poddisruptionbudget"})
        if allowed == 0:
            raise _too_many(meta["name"], f"The disruption budget {meta['name']} needs "
                                          f"{int(status.get('desiredHealthy') or 0)} healthy pods and has "
                                          f"{int(status.get('currentHealthy') or 0)} currently", 0)
        status["disruptionsAllowed"] = allowed - 1
        if allowed - 1 == 0:
            set_disruption_allowed(status, self._now())
        if dry_run:
            return
        status.setdefault("disruptedPods", {})[pod_name] = self._now()
        self.update(PDBS, pdb, meta.get("namespace"), subresource="status", actor="kube-apiserver",
                    field_manager="kube-apiserver")

    def _evict_pod(self, rt: ResourceType, namespace: str | None, name: str, entry: AuditEntry,
                   grace: int | None, preconditions: dict[str, str], dry_run: bool) -> dict[str, Any]:
        """``addConditionAndDeletePod``: the DisruptionTarget condition, then the pod's (graceful) deletion."""
        record = self._lookup(rt, namespace, name)
        pod = record.obj
        stale = (preconditions.get("uid") and preconditions["uid"] != pod["metadata"]["uid"]) or \
            (preconditions.get("resourceVersion") and preconditions["resourceVersion"] != record.rv)
        if not dry_run and not stale:  # a stale precondition: the delete below answers the Conflict
            updated = json_copy(pod)
            conditions = updated.setdefault("status", {}).setdefault("conditions", [])
            now = self._now()
            target = {"type": "DisruptionTarget", "status": "True", "lastProbeTime": None, "lastTransitionTime": now,
                      "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}
            current = next((c for c in conditions if c.get("type") == "DisruptionTarget"), None)
            if current is None:
                conditions.append(target)
            elif any(current.get(k) != target[k] for k in ("status", "reason", "message")):
                target["lastTransitionTime"] = now if current.get("status") != "True" else \
                    current.get("lastTransitionTime")
                conditions[conditions.index(current)] = target
            if updated != pod:
                new = self._commit(rt, record_key(rt, pod), updated, record, entry)
                if preconditions.get("resourceVersion") and new is not None:
                    preconditions["resourceVersion"] = new.rv
        self._delete(rt, namespace, name, entry, None, grace, preconditions, None, dry_run)
        entry.code = 201
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def set_disruption_allowed(status: dict[str, Any], now: str) -> None:
    """``pdbhelper.UpdateDisruptionAllowedCondition``: DisruptionAllowed True (SufficientPods) while
    disruptions are allowed, False (InsufficientPods) otherwise; the transition time moves on a change."""
    allowed = int(status.get("disruptionsAllowed") or 0) > 0
    condition = {"type": "DisruptionAllowed", "status": "True" if allowed else "False",
                 "observedGeneration": int(status.get("observedGeneration") or 0),
                 "lastTransitionTime": now, "reason": "SufficientPods" if allowed else "InsufficientPods",
                 "message": ""}
    conditions = [c for c in status.get("conditions") or () if c.get("type") != "DisruptionAllowed"]
    old = next((c for c in status.get("conditions") or () if c.get("type") == "DisruptionAllowed"), None)
    if old is not None and old.get("status") == condition["status"]:
        condition["lastTransitionTime"] = old.get("lastTransitionTime", now)
    status["conditions"] = [*conditions, condition]
