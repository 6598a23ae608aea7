"""The namespace controller's deleter: empties a terminating namespace, reports on it, finalizes it.

kube-controller-manager's namespace controller (kubernetes ``pkg/controller/namespace/deletion``,
v1.37.2) runs for a namespace with a deletionTimestamp and ``spec.finalizers`` left:

1. it deletes the content (pods first; while pods remain nothing else is deleted), with background
   propagation, every resource type that supports delete;
2. it lists what remains and writes five ``status.conditions`` (``NamespaceDeletionDiscoveryFailure``,
   ``NamespaceDeletionGroupVersionParsingFailure``, ``NamespaceDeletionContentFailure``,
   ``NamespaceContentRemaining``, ``NamespaceFinalizersRemaining``) with a ``/status`` update when they change:
   the failing variant of a condition when something fails or remains, else its "ok" variant;
3. once nothing remains, it takes its own finalizer, ``kubernetes``, out of ``spec.finalizers`` with a
   ``/finalize`` update; the namespace goes when no finalizer of either kind is left.

Differences kept on purpose: the real controller waits 5 s after the deletion before its first pass
(``namespaceDeletionGracePeriod``) and looks again after an estimate while content remains; fakekube's acts
at once and again whenever an object of the namespace goes or changes its finalizers. A store client: every
action is an ordinary audited request.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.clock import rfc3339

if TYPE_CHECKING:
    from fakekube.store import Store

NAMESPACE_ACTOR = "namespace-controller"
KCM_MANAGER = "kube-controller-manager"  # its requests' field manager (the client's user agent)
FINALIZER_TOKEN = "kubernetes"

# status_condition_utils.go: the condition types in the order they are written, and their "ok" variants.
OK_CONDITIONS = (
    ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"),
    ("NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
     "All legacy kube types successfully parsed"),
    ("NamespaceDeletionContentFailure", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"),
    ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"),
)
PODS = "/pods"


def delete_namespace_content(store: Store, namespace: str) -> int:
    """One pass of the deleter over ``namespace``; returns the number of requests made."""
    ns = store.stored_object("/namespaces", ("", namespace))
    if ns is None or not ns["metadata"].get("deletionTimestamp"):
        return 0
    if not (ns.get("spec") or {}).get("finalizers"):
        return 0  # finalized: only its metadata finalizers (the garbage collector's) keep it
    made = _delete_content(store, namespace, only=PODS)
    remaining = _remaining(store, namespace, only=PODS)
    if not remaining:  # while pods remain, nothing else is deleted (or counted)
        made += _delete_content(store, namespace)
        remaining = _remaining(store, namespace)
    made += _report(store, namespace, remaining)
    if remaining:
        return made  # looked at again when an object of the namespace goes or changes its finalizers
    current = store.stored_object("/namespaces", ("", namespace))
    if current is None or FINALIZER_TOKEN not in ((current.get("spec") or {}).get("finalizers") or ()):
        return made
    with contextlib.suppress(errors.ApiError):
        store.finalize_namespace(namespace, actor=NAMESPACE_ACTOR)
    return made + 1


def _delete_content(store: Store, namespace: str, only: str | None = None) -> int:
    made = 0
    for storage, key in store.keys_in_namespace(namespace):
        if only is not None and storage != only:
            continue
        obj = store.stored_object(storage, key)
        if obj is None or obj["metadata"].get("deletionTimestamp"):
            continue
        with contextlib.suppress(errors.ApiError):  # gone meanwhile, or refused: looked at again on change
            store.delete(store.storage_type(storage), key[1], namespace, propagation_policy="Background",
                         actor=NAMESPACE_ACTOR)
        made += 1
    return made


def _remaining(store: Store, namespace: str, only: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for storage, key in store.keys_in_namespace(namespace):
        if only is not None and storage != only:
            continue
        obj = store.stored_object(storage, key)
        if obj is not None:
            found.append((storage, obj))
    return found


def _resources_of(store: Store, storage: str) -> list[str]:
    """``resource.group`` of every served resource listing these objects: discovery's preferred resources
    are one per group and resource, so objects served under two groups (Events) are counted under each."""
    return sorted({f"{rt.plural}.{rt.group}" for rt in store.registry
                   if rt.storage == storage and rt.namespaced and "delete" in rt.verbs})


def _report(store: Store, namespace: str, remaining: list[tuple[str, dict[str, Any]]]) -> int:
    """ProcessContentTotals and Update: the conditions, written with a /status update when they change."""
    per_resource: Counter[str] = Counter()
    per_finalizer: Counter[str] = Counter()
    for storage, obj in remaining:
        for resource in _resources_of(store, storage):
            per_resource[resource] += 1
            per_finalizer.update(obj["metadata"].get("finalizers") or ())
    failing: dict[str, tuple[str, str]] = {}
    if per_resource:
        listed = sorted(f"{r} has {n} resource instances" for r, n in per_resource.items())
        failing["NamespaceContentRemaining"] = (
            "SomeResourcesRemain", "Some resources are remaining: " + ", ".join(listed))
    if per_finalizer:
        listed = sorted(f"{f} in {n} resource instances" for f, n in per_finalizer.items())
        failing["NamespaceFinalizersRemaining"] = (
            "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: " + ", ".join(listed))
    ns = store.stored_object("/namespaces", ("", namespace))
    if ns is None:
        return 0
    status = dict(ns.get("status") or {})
    conditions = [dict(c) for c in status.get("conditions") or ()]
    if not _merge(conditions, failing, rfc3339(store.clock.now())):
        return 0
    body = {**ns, "status": {**status, "conditions": conditions}}
    with contextlib.suppress(errors.ApiError):  # a conflict is only logged upstream; the next pass retries
        store.update("namespaces", body, name=namespace, subresource="status", actor=NAMESPACE_ACTOR,
                     field_manager=KCM_MANAGER)
    return 1


def _merge(conditions: list[dict[str, Any]], failing: dict[str, tuple[str, str]], now: str) -> bool:
    """updateConditions: each type's new condition replaces the old one's status, reason and message (its
    lastTransitionTime moves only with its status), or is appended; True when anything changed."""
    changed = False
    for kind, ok_reason, ok_message in OK_CONDITIONS:
        status, (reason, message) = ("True", failing[kind]) if kind in failing else ("False", (ok_reason, ok_message))
        old = next((c for c in conditions if c.get("type") == kind), None)
        if old is None:
            conditions.append({"type": kind, "status": status, "lastTransitionTime": now, "reason": reason,
                               "message": message})
            changed = True
        elif (old.get("status"), old.get("reason"), old.get("message")) != (status, reason, message):
            if old.get("status") != status:
                old["lastTransitionTime"] = now
            old.update(status=status, reason=reason, message=message)
            changed = True
    return changed
