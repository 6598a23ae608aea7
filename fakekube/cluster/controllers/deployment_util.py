"""The arithmetic of Deployments (kubernetes ``pkg/controller/deployment/util/deployment_util.go``).

Revisions and their annotations, maxSurge / maxUnavailable (``ResolveFenceposts``), how many replicas a new
ReplicaSet may have (``NewRSNewReplicas``), the status computed from the ReplicaSets (``calculateStatus``)
and the conditions with their upstream reasons and messages (``SetDeploymentCondition`` moves a changed
condition to the end of the list and keeps ``lastTransitionTime`` while the status stays the same).
"""

from __future__ import annotations

from typing import Any

from ..objects import int_or_percent, spec_int

Obj = dict[str, Any]

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
POD_TEMPLATE_HASH = "pod-template-hash"
# Annotations a Deployment never copies to its ReplicaSets (``skipCopyAnnotation``).
_SKIP_COPY = {"kubectl.kubernetes.io/last-applied-configuration", REVISION, REVISION_HISTORY, DESIRED_REPLICAS,
              MAX_REPLICAS, "deprecated.deployment.rollback.to"}

# Condition reasons (deployment_util.go).
NEW_RS_CREATED = "NewReplicaSetCreated"
FOUND_NEW_RS = "FoundNewReplicaSet"
RS_UPDATED = "ReplicaSetUpdated"
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
MIN_AVAILABLE = "MinimumReplicasAvailable"
MIN_UNAVAILABLE = "MinimumReplicasUnavailable"

# -- spec, with the API server's defaults when the kind did not apply them ---------------------------------


def replicas(d: Obj) -> int:
    return spec_int(d, "replicas", 1)


def strategy(d: Obj) -> Obj:
    value = (d.get("spec") or {}).get("strategy") or {}
    if not value.get("type"):
        value = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%",
                                                            **(value.get("rollingUpdate") or {})}}
    return value


def is_rolling(d: Obj) -> bool:
    return strategy(d).get("type") == "RollingUpdate"


def progress_deadline(d: Obj) -> int | None:
    spec = d.get("spec") or {}
    value = spec.get("progressDeadlineSeconds", 600)
    return None if value is None or value >= 2**31 - 1 else int(value)


def revision_history_limit(d: Obj) -> int | None:
    value = (d.get("spec") or {}).get("revisionHistoryLimit", 10)
    return None if value is None else int(value)


def resolve_fenceposts(d: Obj) -> tuple[int, int]:
    rolling = strategy(d).get("rollingUpdate") or {}
    desired = replicas(d)
    surge = int_or_percent(rolling.get("maxSurge", "25%"), desired, round_up=True)
    unavailable = int_or_percent(rolling.get("maxUnavailable", "25%"), desired, round_up=False)
    if surge == 0 and unavailable == 0:
        unavailable = 1  # validation forbids both being zero; upstream still guards against it
    return surge, unavailable


def max_surge(d: Obj) -> int:
    return resolve_fenceposts(d)[0] if is_rolling(d) else 0


def max_unavailable(d: Obj) -> int:
    if not is_rolling(d) or replicas(d) == 0:
        return 0
    return min(resolve_fenceposts(d)[1], replicas(d))


# -- ReplicaSets ----------------------------------------------------------------------------------------------


def rs_replicas(rs: Obj) -> int:
    return spec_int(rs, "replicas", 1)


def rs_status(rs: Obj, key: str) -> int:
    return int((rs.get("status") or {}).get(key) or 0)


def revision(rs: Obj) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


def max_revision(rss: list[Obj]) -> int:
    return max((revision(rs) for rs in rss), default=0)


def by_creation(rss: list[Obj]) -> list[Obj]:
    """``controller.ReplicaSetsByCreationTimestamp``: oldest first, then by name."""
    return sorted(rss, key=lambda rs: (rs["metadata"].get("creationTimestamp") or "", rs["metadata"]["name"]))


def template_without_hash(template: Obj) -> Obj:
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    labels.pop(POD_TEMPLATE_HASH, None)
    meta = {**(template.get("metadata") or {}), "labels": labels}
    if not labels:
        meta.pop("labels")
    return {**template, "metadata": meta}


def equal_ignore_hash(a: Obj, b: Obj) -> bool:
    """``EqualIgnoreHash``: Go compares the decoded structs, where ``null``, ``{}`` and ``[]`` equal an absent
    field (kubectl's ``rollout undo`` sends ``creationTimestamp: null`` and ``resources: {}``)."""
    return _without_zero(template_without_hash(a)) == _without_zero(template_without_hash(b))


def _without_zero(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _without_zero(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_without_zero(v) for v in value]
    return value


def find_new(d: Obj, rss: list[Obj]) -> Obj | None:
    """``FindNewReplicaSet``: the oldest ReplicaSet whose template is the Deployment's (hash label aside)."""
    template = (d.get("spec") or {}).get("template") or {}
    for rs in by_creation(rss):
        if equal_ignore_hash((rs.get("spec") or {}).get("template") or {}, template):
            return rs
    return None


def total_replicas(rss: list[Obj]) -> int:
    return sum(rs_replicas(rs) for rs in rss if rs is not None)


def sum_status(rss: list[Obj], key: str) -> int:
    return sum(rs_status(rs, key) for rs in rss if rs is not None)


def new_rs_replicas(d: Obj, all_rss: list[Obj], new_rs: Obj) -> int:
    """``NewRSNewReplicas``: how far the new ReplicaSet may grow now."""
    if not is_rolling(d):
        return replicas(d)
    current = total_replicas(all_rss)
    max_total = replicas(d) + max_surge(d)
    if current >= max_total:
        return rs_replicas(new_rs)
    return rs_replicas(new_rs) + min(max_total - current, replicas(d) - rs_replicas(new_rs))


def set_new_rs_annotations(d: Obj, rs: Obj, new_revision: int, exists: bool) -> bool:
    """``SetNewReplicaSetAnnotations``: copy the Deployment's annotations, bump the revision (keeping the
    history), and on a new ReplicaSet record desired and max replicas. Returns whether anything changed."""
    annotations = rs["metadata"].setdefault("annotations", {})
    before = dict(annotations)
    for key, value in (d["metadata"].get("annotations") or {}).items():
        if key not in _SKIP_COPY:
            annotations[key] = value
    old = annotations.get(REVISION, "")
    try:
        old_number = int(old) if old else 0
    except ValueError:
        old_number = 0
    if old_number < new_revision:
        annotations[REVISION] = str(new_revision)
        if old:
            history = annotations.get(REVISION_HISTORY)
            annotations[REVISION_HISTORY] = f"{history},{old}" if history else old
    if not exists:
        set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d))
    return annotations != before


def set_replicas_annotations(rs: Obj, desired: int, max_replicas: int) -> bool:
    annotations = rs["metadata"].setdefault("annotations", {})
    new = {DESIRED_REPLICAS: str(desired), MAX_REPLICAS: str(max_replicas)}
    if all(annotations.get(k) == v for k, v in new.items()):
        return False
    annotations.update(new)
    return True


def replicas_annotations_need_update(rs: Obj, desired: int, max_replicas: int) -> bool:
    annotations = rs["metadata"].get("annotations") or {}
    return annotations.get(DESIRED_REPLICAS) != str(desired) or annotations.get(MAX_REPLICAS) != str(max_replicas)


def desired_annotation(rs: Obj) -> int | None:
    value = (rs["metadata"].get("annotations") or {}).get(DESIRED_REPLICAS)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def max_replicas_annotation(rs: Obj) -> int | None:
    value = (rs["metadata"].get("annotations") or {}).get(MAX_REPLICAS)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# -- conditions and status ---------------------------------------------------------------------------------


def get_condition(status: Obj, kind: str) -> Obj | None:
    for cond in status.get("conditions") or ():
        if cond.get("type") == kind:
            return cond
    return None


def new_condition(kind: str, status: str, reason: str, message: str, now: str) -> Obj:
    return {"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now, "reason": reason,
            "message": message}


def set_condition(status: Obj, cond: Obj) -> None:
    """``SetDeploymentCondition``."""
    current = get_condition(status, cond["type"])
    if current is not None and current.get("status") == cond["status"] and current.get("reason") == cond["reason"]:
        return
    if current is not None and current.get("status") == cond["status"]:
        cond = {**cond, "lastTransitionTime": current.get("lastTransitionTime")}
    status["conditions"] = [c for c in status.get("conditions") or () if c.get("type") != cond["type"]] + [cond]


def remove_condition(status: Obj, kind: str) -> None:
    conditions = [c for c in status.get("conditions") or () if c.get("type") != kind]
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)


def calculate_status(d: Obj, all_rss: list[Obj], new_rs: Obj | None, now: str) -> Obj:
    """``calculateStatus``; zero counts are omitted, as ``omitempty`` encodes them."""
    available = sum_status(all_rss, "availableReplicas")
    total = total_replicas(all_rss)
    old = d.get("status") or {}
    status: Obj = {
        "observedGeneration": d["metadata"].get("generation", 0),
        "replicas": sum_status(all_rss, "replicas"),
        "updatedReplicas": sum_status([new_rs] if new_rs is not None else [], "replicas"),
        "readyReplicas": sum_status(all_rss, "readyReplicas"),
        "availableReplicas": available,
        "unavailableReplicas": max(total - available, 0),
    }
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    status = {k: v for k, v in status.items() if v != 0}
    if old.get("conditions"):
        status["conditions"] = [dict(c) for c in old["conditions"]]
    if available >= replicas(d) - max_unavailable(d):
        set_condition(status, new_condition("Available", "True", MIN_AVAILABLE, "Deployment has minimum availability.",
                                            now))
    else:
        set_condition(status, new_condition("Available", "False", MIN_UNAVAILABLE,
                                            "Deployment does not have minimum availability.", now))
    return status


def status_int(status: Obj, key: str) -> int:
    return int(status.get(key) or 0)


def deployment_complete(d: Obj, status: Obj) -> bool:
    want = replicas(d)
    return (status_int(status, "updatedReplicas") == want and status_int(status, "replicas") == want
            and status_int(status, "availableReplicas") == want
            and status_int(status, "observedGeneration") >= d["metadata"].get("generation", 0))


def deployment_progressing(d: Obj, status: Obj) -> bool:
    old = d.get("status") or {}
    old_old = status_int(old, "replicas") - status_int(old, "updatedReplicas")
    new_old = status_int(status, "replicas") - status_int(status, "updatedReplicas")
    return (status_int(status, "updatedReplicas") > status_int(old, "updatedReplicas") or new_old < old_old
            or status_int(status, "readyReplicas") > status_int(old, "readyReplicas")
            or status_int(status, "availableReplicas") > status_int(old, "availableReplicas"))
