"""Facts about objects that every actor asks: readiness, availability, controller references, templates.

Each helper follows the upstream function named in its docstring (kubernetes ``pkg/api/v1/pod/util.go``,
``pkg/controller/controller_utils.go``, apimachinery ``pkg/apis/meta/v1/controller_ref.go``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakekube.clock import parse_rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.selectors import LabelSelector

Obj = dict[str, Any]

TERMINAL_PHASES = ("Succeeded", "Failed")


def condition(obj: Obj, kind: str) -> Obj | None:
    for cond in (obj.get("status") or {}).get("conditions") or ():
        if cond.get("type") == kind:
            return cond
    return None


def is_pod_ready(pod: Obj) -> bool:
    """``podutil.IsPodReady``."""
    cond = condition(pod, "Ready")
    return cond is not None and cond.get("status") == "True"


def is_pod_available(pod: Obj, min_ready_seconds: int, now: datetime) -> bool:
    """``podutil.IsPodAvailable``: Ready for at least ``minReadySeconds``."""
    cond = condition(pod, "Ready")
    if cond is None or cond.get("status") != "True":
        return False
    if min_ready_seconds <= 0:
        return True
    since = cond.get("lastTransitionTime")
    if not since:
        return False
    return (now - parse_rfc3339(since)).total_seconds() >= min_ready_seconds


def is_terminating(obj: Obj) -> bool:
    return bool(obj["metadata"].get("deletionTimestamp"))


def is_pod_active(pod: Obj) -> bool:
    """``controller.IsPodActive``: not terminal and not being deleted."""
    return (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES and not is_terminating(pod)


def phase(pod: Obj) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def controller_ref(obj: Obj) -> Obj | None:
    """``metav1.GetControllerOf``."""
    for ref in obj["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            return ref
    return None


def owner_reference(owner: Obj, *, block: bool = True) -> Obj:
    """``metav1.NewControllerRef``: controller and blockOwnerDeletion true."""
    meta = owner["metadata"]
    return {"apiVersion": owner.get("apiVersion", ""), "kind": owner.get("kind", ""), "name": meta["name"],
            "uid": meta["uid"], "controller": True, "blockOwnerDeletion": block}


def is_controlled_by(obj: Obj, owner: Obj) -> bool:
    ref = controller_ref(obj)
    return ref is not None and ref.get("uid") == owner["metadata"]["uid"]


def selector_of(obj: Obj) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector`` of ``spec.selector``; a missing selector matches nothing."""
    raw = (obj.get("spec") or {}).get("selector")
    if raw is None:
        return LabelSelector.nothing()
    return LabelSelector.from_dict(raw)


def matches(selector: LabelSelector, obj: Obj) -> bool:
    return selector.matches(obj["metadata"].get("labels") or {})


def pod_from_template(template: Obj, owner: Obj, *, name: str | None = None, generate_name: str | None = None,
                      labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
                      finalizers: list[str] | None = None) -> Obj:
    """``controller.GetPodFromTemplate``: the template's labels, annotations, finalizers and spec, owned by
    ``owner``, named ``name`` or ``generate_name`` + suffix."""
    tmeta = template.get("metadata") or {}
    meta: Obj = {}
    if name:
        meta["name"] = name
    else:
        meta["generateName"] = generate_name or f"{owner['metadata']['name']}-"
    meta["namespace"] = owner["metadata"].get("namespace")
    pod_labels = {**(tmeta.get("labels") or {}), **(labels or {})}
    if pod_labels:
        meta["labels"] = pod_labels
    pod_annotations = {**(tmeta.get("annotations") or {}), **(annotations or {})}
    if pod_annotations:
        meta["annotations"] = pod_annotations
    pod_finalizers = list(tmeta.get("finalizers") or []) + [f for f in finalizers or [] if f not in
                                                             (tmeta.get("finalizers") or [])]
    if pod_finalizers:
        meta["finalizers"] = pod_finalizers
    meta["ownerReferences"] = [owner_reference(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": json_copy(template.get("spec") or {})}


def int_or_percent(value: Any, total: int, *, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    text = str(value)
    if text.endswith("%"):
        percent = int(text[:-1])
        scaled = percent * total
        return -(-scaled // 100) if round_up else scaled // 100
    return int(text)


def spec_int(obj: Obj, key: str, default: int) -> int:
    """An integer spec field the API server defaults (read with the default, should the kind not apply it)."""
    value = (obj.get("spec") or {}).get(key)
    return default if value is None else int(value)
