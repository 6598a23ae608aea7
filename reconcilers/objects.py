"""Small helpers on JSON-shaped objects that the ports share: controller references, conditions, the
semantic status comparison, and the reconcile error types.

They mirror apimachinery helpers (``metav1.GetControllerOf``, ``metav1.IsControlledBy``,
``controllerutil.SetControllerReference``, ``meta.SetStatusCondition``, ``equality.Semantic.DeepEqual``)
closely enough for the ports to make the same decisions as the Go code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Obj = dict[str, Any]


class ReconcileError(Exception):
    """A returned Go error: the controller requeues the key with per-item backoff."""


class TemplateNotFound(ReconcileError):
    """``ErrTemplateNotFound``: the claim shows ``TemplateNotFound`` and the error is suppressed."""


def meta(obj: Obj) -> Obj:
    return obj.setdefault("metadata", {})


def labels(obj: Obj) -> dict[str, str]:
    m = meta(obj)
    if m.get("labels") is None:
        m["labels"] = {}
    return m["labels"]


def annotations(obj: Obj) -> dict[str, str]:
    m = meta(obj)
    if m.get("annotations") is None:
        m["annotations"] = {}
    return m["annotations"]


def with_annotations(obj: Obj, set_: dict[str, str] | None = None, remove: str | None = None) -> Obj:
    """``obj`` with its annotations changed, copying only the path to them: the object, its metadata and its
    annotations are new dicts, everything else is shared with ``obj`` (which is left as it was).

    What a pass sends a merge patch of: the diff from ``obj`` walks only the changed path, and the client puts
    the server's answer into the new top-level dict, never into anything shared with a cached object.
    """
    m = obj.get("metadata") or {}
    ann = dict(m.get("annotations") or {})
    if remove is not None:
        ann.pop(remove, None)
    ann.update(set_ or {})
    return {**obj, "metadata": {**m, "annotations": ann}}


def controller_of(obj: Obj) -> Obj | None:
    """``metav1.GetControllerOf``: the ownerReference with ``controller: true``, if any."""
    refs = obj["metadata"].get("ownerReferences") if "metadata" in obj else None
    if refs:
        for ref in refs:
            if ref.get("controller"):
                return ref
    return None


def is_controlled_by(obj: Obj, owner: Obj) -> bool:
    """``metav1.IsControlledBy``: compares the controller reference's UID with the owner's."""
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == owner["metadata"].get("uid")


def controller_ref(owner: Obj) -> Obj:
    """The reference ``SetControllerReference`` writes (controller and blockOwnerDeletion set)."""
    m = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": m["name"],
        "uid": m["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def set_controller_reference(owner: Obj, obj: Obj) -> None:
    """``controllerutil.SetControllerReference``: add or replace the controller reference to ``owner``."""
    refs = [r for r in meta(obj).get("ownerReferences") or () if not _same_owner(r, owner)]
    if any(r.get("controller") for r in refs):
        existing = controller_of(obj)
        raise ReconcileError(
            f"Object {meta(obj).get('namespace')}/{meta(obj).get('name')} is already owned by another "
            f"{existing.get('kind') if existing else ''} controller {existing.get('name') if existing else ''}"
        )
    refs.append(controller_ref(owner))
    meta(obj)["ownerReferences"] = refs


def _same_owner(ref: Obj, owner: Obj) -> bool:
    group = owner["apiVersion"].split("/")[0] if "/" in owner["apiVersion"] else ""
    ref_group = ref.get("apiVersion", "").split("/")[0] if "/" in ref.get("apiVersion", "") else ""
    return ref.get("kind") == owner["kind"] and ref.get("name") == owner["metadata"]["name"] and ref_group == group


def find_condition(status: Obj | None, ctype: str) -> Obj | None:
    for cond in (status or {}).get("conditions") or ():
        if cond.get("type") == ctype:
            return cond
    return None


def editable_status(status: Obj) -> Obj:
    """A pass's copy of a cached status (upstream's ``Status.DeepCopy()``), copying only what a pass edits in
    place: a new dict, and a new ``conditions`` list of new condition dicts (``set_status_condition`` edits
    those). Every other field is shared with ``status``: the ports only ever assign or pop those fields, never
    change the value inside, so the cached object stays as it was (tests/reconcilers/test_shared_reads.py).
    """
    copy = dict(status)
    conditions = status.get("conditions")
    if conditions is not None:
        copy["conditions"] = [dict(cond) for cond in conditions]
    return copy


def is_ready(obj: Obj) -> bool:
    status = obj.get("status")
    if status:
        for cond in status.get("conditions") or ():
            if cond.get("type") == "Ready":
                return cond.get("status") == "True"
    return False


def set_status_condition(status: Obj, new: Obj, now: Callable[[], str]) -> None:
    """``meta.SetStatusCondition``: lastTransitionTime moves only when the status flips.

    ``now`` is the clock (an RFC 3339 string of the current time), asked only when a time is stamped, as
    upstream reads ``metav1.Now()`` only then: most passes leave the condition's status as it was.
    """
    conditions = status.get("conditions")
    if conditions is None:
        conditions = status["conditions"] = []
    for cond in conditions:
        if cond.get("type") == new["type"]:
            if cond.get("status") != new["status"]:
                cond["status"] = new["status"]
                cond["lastTransitionTime"] = new.get("lastTransitionTime") or now()
            cond["reason"] = new["reason"]
            cond["message"] = new.get("message", "")
            if new.get("observedGeneration"):
                cond["observedGeneration"] = new["observedGeneration"]
            else:
                cond.pop("observedGeneration", None)
            return
    added = dict(new)
    if not added.get("lastTransitionTime"):
        added["lastTransitionTime"] = now()
    if not added.get("observedGeneration"):
        added.pop("observedGeneration", None)
    conditions.append(added)


_ZERO = (None, "", 0, False)
_ABSENT: Any = object()


def _omitted(value: Any) -> bool:
    """Whether Go's ``omitempty`` drops ``value``: a zero scalar, an empty list, a map of omitted values."""
    if isinstance(value, dict):
        return all(map(_omitted, value.values()))
    if isinstance(value, list):
        return not value
    return value in _ZERO


def _equal_omitting_empty(a: Any, b: Any) -> bool:
    """``a == b`` once every omitted field is dropped from both, without building the dropped copies."""
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return False
        for k, v in a.items():
            w = b.get(k, _ABSENT)
            if v == w:
                continue  # equal values are equal once dropped too
            if w is _ABSENT or _omitted(w):
                if not _omitted(v):
                    return False
            elif _omitted(v) or not _equal_omitting_empty(v, w):
                return False
        extra = b.keys() - a.keys()  # usually empty: no walk at all
        return not extra or all(_omitted(b[k]) for k in extra)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_equal_omitting_empty, a, b))
    if isinstance(b, dict | list):
        return False
    return a == b


def semantic_equal(a: Obj | None, b: Obj | None) -> bool:
    """Equality of two Go structs decoded from these dicts: absent and zero-valued fields are the same."""
    if a == b:
        return True
    return _equal_omitting_empty(a or {}, b or {})


def apply_secure_pod_defaults(pod_spec: Obj, template_spec: Obj) -> None:
    """The defaults both the claim (cold path) and the warm pool apply to a sandbox's pod spec on create: no
    service-account token unless the template asks for one, and public DNS when the template leaves its network
    policy to the default managed one."""
    if pod_spec.get("automountServiceAccountToken") is None:
        pod_spec["automountServiceAccountToken"] = False
    managed = (template_spec.get("networkPolicyManagement") or "Managed") == "Managed"
    if managed and template_spec.get("networkPolicy") is None and not pod_spec.get("dnsPolicy"):
        pod_spec["dnsPolicy"] = "None"
        pod_spec["dnsConfig"] = {"nameservers": ["8.8.8.8", "1.1.1.1"]}


def sort_conditions(status: Obj) -> None:
    conditions = status.get("conditions")
    if conditions:
        conditions.sort(key=lambda c: c.get("type", ""))
