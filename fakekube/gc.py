"""Garbage collection through ownerReferences, and namespace cleanup.

Emulates kube-controller-manager's garbage collector (kubernetes ``pkg/controller/garbagecollector``) and
namespace controller (``pkg/controller/namespace``) as store clients: every action is an ordinary audited
request by ``generic-garbage-collector`` or ``namespace-controller``.

- Background: a dependent whose owners are all gone is deleted.
- Foreground: the owner waits (``foregroundDeletion`` finalizer) while its dependents are deleted; it goes
  once no dependent with ``blockOwnerDeletion: true`` remains.
- Orphan: the owner's reference is removed from each dependent, then the ``orphan`` finalizer.
- A dangling reference next to a live owner is removed from the dependent.
- A terminating namespace is emptied, then removed.

The store runs ``collect()`` after each top-level request (``gc="sync"``); the simulation runs it as an
actor in virtual time (``gc="manual"``).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.namespacedeletion import KCM_MANAGER, NAMESPACE_ACTOR, delete_namespace_content

if TYPE_CHECKING:
    from fakekube.resources import ResourceType
    from fakekube.store import Key, Store

GC_ACTOR = "generic-garbage-collector"
__all__ = ["GC_ACTOR", "NAMESPACE_ACTOR", "GarbageCollector"]


class GarbageCollector:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._owners_gone: set[str] = set()  # uids whose dependents need a look
        self._attend: set[tuple[str, Key]] = set()  # objects to look at: finalizers, dangling refs
        self._namespaces: set[str] = set()

    @property
    def pending(self) -> bool:
        return bool(self._owners_gone or self._attend or self._namespaces)

    def observe(self, rt: ResourceType, key: Key, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Called by the store on every commit: remember what the next collection must look at."""
        old_refs = old["metadata"].get("ownerReferences") if old is not None else None
        if new is None:
            assert old is not None
            self._owners_gone.add(old["metadata"]["uid"])
            if key[0] and self._terminating(key[0]):
                self._namespaces.add(key[0])
            new_refs = None
        else:
            meta = new["metadata"]
            new_refs = meta.get("ownerReferences")
            deleting = meta.get("deletionTimestamp")
            if new_refs or (deleting and meta.get("finalizers")):
                self._attend.add((rt.storage, key))
            if deleting and rt.storage == "/namespaces":
                self._namespaces.add(key[1])
            elif (key[0] and old is not None and meta.get("finalizers") != old["metadata"].get("finalizers")
                  and self._terminating(key[0])):
                self._namespaces.add(key[0])  # the namespace's report counts finalizers
        # An owner waiting in foreground deletion is looked at again whenever one of its dependents changes.
        if old_refs:
            self._attend_to_owners(old_refs)
        if new_refs and new_refs != old_refs:  # the same owners were just looked at
            self._attend_to_owners(new_refs)

    def _attend_to_owners(self, refs: Any) -> None:
        for ref in refs:
            located = self._store.object_by_uid(ref.get("uid", ""))
            if located is not None and located[2]["metadata"].get("deletionTimestamp"):
                self._attend.add((located[0], located[1]))

    def _terminating(self, namespace: str) -> bool:
        ns = self._current("/namespaces", ("", namespace))
        return ns is not None and bool(ns["metadata"].get("deletionTimestamp"))

    def collect(self, max_rounds: int = 1000) -> int:
        """Process until nothing is left to do; returns the number of requests made."""
        made = 0
        for _ in range(max_rounds):
            if not self.pending:
                break
            made += self.run_once()
        return made

    def run_once(self) -> int:
        """One pass over what has changed since the last pass."""
        store = self._store
        owners_gone, self._owners_gone = self._owners_gone, set()
        attend, self._attend = self._attend, set()
        namespaces, self._namespaces = self._namespaces, set()
        made = 0
        for uid in sorted(owners_gone):
            for storage, key, _ in store.dependents_of(uid):
                attend.add((storage, key))
        for storage, key in sorted(attend):
            made += self._attend_to(storage, key)
        for namespace in sorted(namespaces):
            made += self._empty_namespace(namespace)
        return made

    # -- one object --------------------------------------------------------------------------------------

    def _current(self, storage: str, key: Key) -> dict[str, Any] | None:
        return self._store.stored_object(storage, key)

    def _attend_to(self, storage: str, key: Key) -> int:
        obj = self._current(storage, key)
        if obj is None:
            return 0
        made = 0
        meta = obj["metadata"]
        finalizers = meta.get("finalizers") or []
        if meta.get("deletionTimestamp"):
            if "orphan" in finalizers:
                made += self._orphan_dependents(storage, key, obj)
            if "foregroundDeletion" in finalizers:
                made += self._delete_dependents_in_foreground(storage, key, obj)
            obj = self._current(storage, key)  # the requests above may have changed or removed it
        if obj is not None and obj["metadata"].get("ownerReferences"):
            made += self._check_owners(storage, key, obj)
        return made

    def _owner_state(self, uid: str) -> str:
        """absent | deleting-foreground | present"""
        located = self._store.object_by_uid(uid)
        if located is None:
            return "absent"
        meta = located[2]["metadata"]
        if meta.get("deletionTimestamp") and "foregroundDeletion" in (meta.get("finalizers") or []):
            return "foreground"
        return "present"

    def _check_owners(self, storage: str, key: Key, obj: dict[str, Any]) -> int:
        refs = obj["metadata"].get("ownerReferences") or []
        # One state per reference, in their order (references to one uid read the same state).
        states = [self._owner_state(ref.get("uid", "")) for ref in refs]
        if "present" in states:
            if "absent" not in states:
                return 0  # the common case: every owner is there
            keep = [ref for ref, state in zip(refs, states, strict=True) if state != "absent"]
            return self._set_owner_refs(storage, key, obj, keep)
        if obj["metadata"].get("deletionTimestamp"):
            return 0
        foreground = any(
            state == "foreground" and ref.get("blockOwnerDeletion") for ref, state in zip(refs, states, strict=True)
        )
        return self._delete(storage, key, "Foreground" if foreground else "Background")

    def _orphan_dependents(self, storage: str, key: Key, owner: dict[str, Any]) -> int:
        uid = owner["metadata"]["uid"]
        made = 0
        for dep_storage, dep_key, dep in self._store.dependents_of(uid):
            keep = [r for r in dep["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
            made += self._set_owner_refs(dep_storage, dep_key, dep, keep)
        return made + self._remove_finalizer(storage, key, "orphan")

    def _delete_dependents_in_foreground(self, storage: str, key: Key, owner: dict[str, Any]) -> int:
        uid = owner["metadata"]["uid"]
        made = 0
        for dep_storage, dep_key, dep in self._store.dependents_of(uid):
            ref = next((r for r in dep["metadata"].get("ownerReferences") or [] if r.get("uid") == uid), {})
            if not dep["metadata"].get("deletionTimestamp"):
                others_alive = any(
                    self._owner_state(r.get("uid", "")) == "present"
                    for r in dep["metadata"].get("ownerReferences") or [] if r.get("uid") != uid
                )
                if others_alive:
                    keep = [r for r in dep["metadata"]["ownerReferences"] if r.get("uid") != uid]
                    made += self._set_owner_refs(dep_storage, dep_key, dep, keep)
                    continue
                made += self._delete(dep_storage, dep_key, "Foreground" if ref.get("blockOwnerDeletion")
                                     else "Background")
        if any(
            r.get("uid") == uid and r.get("blockOwnerDeletion")
            for _, _, d in self._store.dependents_of(uid)
            for r in d["metadata"].get("ownerReferences") or ()
        ):
            return made  # looked at again when a dependent changes (see observe)
        return made + self._remove_finalizer(storage, key, "foregroundDeletion")

    # -- requests ----------------------------------------------------------------------------------------

    def _rt(self, storage: str) -> ResourceType:
        return self._store.storage_type(storage)

    def _delete(self, storage: str, key: Key, policy: str, actor: str = GC_ACTOR) -> int:
        rt = self._rt(storage)
        with contextlib.suppress(errors.ApiError):  # gone meanwhile, or refused: looked at again on change
            self._store.delete(rt, key[1], key[0] or None, propagation_policy=policy, actor=actor)
        return 1

    def _set_owner_refs(self, storage: str, key: Key, obj: dict[str, Any], refs: list[dict[str, Any]]) -> int:
        rt = self._rt(storage)
        patch = {"metadata": {"ownerReferences": refs or None, "uid": obj["metadata"]["uid"]}}
        with contextlib.suppress(errors.ApiError):
            self._store.patch(rt, key[1], patch, key[0] or None, actor=GC_ACTOR, field_manager=KCM_MANAGER)
        return 1

    def _remove_finalizer(self, storage: str, key: Key, finalizer: str) -> int:
        obj = self._current(storage, key)
        if obj is None or finalizer not in (obj["metadata"].get("finalizers") or []):
            return 0
        rt = self._rt(storage)
        remaining = [f for f in obj["metadata"]["finalizers"] if f != finalizer]
        patch = {"metadata": {"finalizers": remaining or None, "uid": obj["metadata"]["uid"]}}
        with contextlib.suppress(errors.ApiError):
            self._store.patch(rt, key[1], patch, key[0] or None, actor=GC_ACTOR, field_manager=KCM_MANAGER)
        return 1

    # -- namespaces --------------------------------------------------------------------------------------

    def _empty_namespace(self, namespace: str) -> int:
        return delete_namespace_content(self._store, namespace)
