"""Summaries of the sandbox cache kept up to date from the informer's event handlers.

Two scans dominated the seed-load run after the copies were gone: every warm-pool pass walked all ~600 pool
members (controller reference, Ready condition, age) and every claim pass sorted all ~600 adoption
candidates. Both answers change only when a sandbox changes, so these structures are updated once per watch
event (the informer calls its handlers synchronously while it applies the event, so they always describe
exactly what the cache holds) and a pass reads them in O(1) or O(log n).

They only replace in-memory work: the reconcilers still pay the cache read they stand for
(``client.cache_read()``), and fall back to the plain scan whenever a rare case needs the exact order of the
cache LIST (an orphan to adopt, a stuck member, a claim-owned candidate) or a test serves stale objects.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from typing import Any, overload

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.objects import Obj, controller_of, is_ready
from fakekube.sim import InformerHandler

Key = tuple[str, str]  # (namespace, name)


def _key(obj: Obj) -> Key:
    meta = obj["metadata"]
    return meta.get("namespace") or "", meta["name"]


def same_facts(old: Obj, new: Obj) -> bool:
    """Whether ``new`` tells a summary nothing ``old`` did not: the same labels and owner references, the same
    deletion and creation stamps, and the same readiness.

    Labels and owner references are compared by identity. The store's versions share every subtree a write
    left alone (a status write keeps the metadata's labels and references of the version it replaced), the
    informer caches those versions as they are, and nobody mutates a cached object; so the same object means
    the same value, and most sandbox events (status writes) are told apart from the rest without reading the
    labels or references at all. A different object with an equal value just takes the full path.
    """
    om, nm = old["metadata"], new["metadata"]
    return (om.get("labels") is nm.get("labels") and om.get("ownerReferences") is nm.get("ownerReferences")
            and om.get("deletionTimestamp") == nm.get("deletionTimestamp")
            and om.get("creationTimestamp") == nm.get("creationTimestamp")
            and is_ready(old) == is_ready(new))


class _Summary:
    """Base: subscribes to one informer and routes each event to ``_remove`` / ``_insert`` by key."""

    def __init__(self, informer: Any) -> None:
        self.informer = informer
        informer.add_handler(InformerHandler(self._on_add, self._on_update, self._on_delete))

    @property
    def exact(self) -> bool:
        """False while a test serves stale objects (``serve_stale``): the summaries describe the real cache."""
        return not self.informer.overrides

    def _on_add(self, obj: Obj, _initial: bool) -> None:
        self._insert(_key(obj), obj)

    def _on_update(self, _old: Obj, new: Obj) -> None:
        key = _key(new)
        self._remove(key)
        self._insert(key, new)

    def _on_delete(self, obj: Obj) -> None:
        self._remove(_key(obj))

    def _insert(self, key: Key, obj: Obj) -> None:
        raise NotImplementedError

    def _remove(self, key: Key) -> None:
        raise NotImplementedError


class PoolGroup:
    """The members of one warm pool (sandboxes labelled ``warm-pool-sandbox=<hash>``) in one namespace."""

    __slots__ = ("members", "orphans", "owned", "unready")

    def __init__(self) -> None:
        # key -> (counted: not deleting, orphan, controller uid or None, ready, created)
        self.members: dict[Key, Member] = {}
        self.orphans = 0  # not deleting, no controller: the pass would adopt them
        self.owned: dict[str, list[int]] = {}  # controller uid -> [members, ready members], not deleting
        self.unready: dict[Key, tuple[str | None, str]] = {}  # not deleting, not Ready -> (controller uid, created)


Member = tuple[bool, bool, str | None, bool, str]


class WarmPoolMembers(_Summary):
    """Per (namespace, pool hash): counts of active and Ready members by controller, orphans, unready ages."""

    def __init__(self, informer: Any) -> None:
        self.groups: dict[Key, PoolGroup] = {}
        self._where: dict[Key, Key] = {}  # member key -> its group
        super().__init__(informer)

    def group(self, namespace: str, pool_hash: str) -> PoolGroup | None:
        return self.groups.get((namespace, pool_hash))

    @staticmethod
    def _describe(key: Key, obj: Obj) -> tuple[Key, Member] | None:
        """(group, member record) of a pool member; None for a sandbox of no pool. The record is everything the
        group's counts are made of."""
        meta = obj["metadata"]
        pool_hash = (meta.get("labels") or {}).get(keys.WARM_POOL_SANDBOX)
        if pool_hash is None:
            return None
        ref = controller_of(obj)
        return (key[0], pool_hash), (not meta.get("deletionTimestamp"), ref is None,
                                     ref.get("uid") if ref is not None else None, is_ready(obj),
                                     meta.get("creationTimestamp") or "")

    def _on_update(self, old: Obj, new: Obj) -> None:
        if same_facts(old, new):
            return  # the same record as ``old``'s (its fields are made of the facts compared)
        key = _key(new)
        described = self._describe(key, new)
        if described is not None and self._where.get(key) == described[0] \
                and self.groups[described[0]].members[key] == described[1]:
            # Same group, same record (most updates: a member's status write that leaves it as Ready as it
            # was): removing and inserting it would give the same counts. Only the members' and the unready
            # entries' dict order would move, which no reader depends on (they count, test membership, or
            # sort by a key that names make total: warmpool.py).
            return
        self._remove(key)
        if described is not None:
            self._add(key, *described)

    def _insert(self, key: Key, obj: Obj) -> None:
        described = self._describe(key, obj)
        if described is not None:
            self._add(key, *described)

    def _add(self, key: Key, gkey: Key, member: Member) -> None:
        group = self.groups.get(gkey)
        if group is None:
            group = self.groups[gkey] = PoolGroup()
        group.members[key] = member
        self._where[key] = gkey
        counted, orphan, uid, ready, created = member
        if not counted:
            return
        if orphan:
            group.orphans += 1
        elif uid is not None:
            counts = group.owned.get(uid)
            if counts is None:
                counts = group.owned[uid] = [0, 0]
            counts[0] += 1
            counts[1] += ready
        if not ready:
            group.unready[key] = (uid, created)

    def _remove(self, key: Key) -> None:
        gkey = self._where.pop(key, None)
        if gkey is None:
            return
        group = self.groups[gkey]
        counted, orphan, uid, ready, _created = group.members.pop(key)
        if counted:
            if orphan:
                group.orphans -= 1
            elif uid is not None:
                counts = group.owned[uid]
                counts[0] -= 1
                counts[1] -= ready
                if not counts[0]:
                    del group.owned[uid]
            group.unready.pop(key, None)
        if not group.members:
            del self.groups[gkey]


class ClaimCandidates(_Summary):
    """Per (namespace, template hash): the adoption candidates, sorted as the claim controller sorts them.

    A candidate is a sandbox that is not being deleted, carries the warm-pool label and the template-hash
    label, and whose controller is a SandboxWarmPool or nobody. Order: Ready first, then oldest, then name
    (unique in a namespace, so the order never depends on event order).
    """

    def __init__(self, informer: Any) -> None:
        # (namespace, template hash) -> sorted [(unready, created, name, object)]
        self.groups: dict[Key, list[tuple[bool, str, str, Obj]]] = {}
        self._where: dict[Key, tuple[Key, tuple[bool, str, str]]] = {}
        super().__init__(informer)

    def candidates(self, namespace: str, template_hash: str) -> Sequence[Obj]:
        """A snapshot of the cached candidate objects, in adoption order; do not mutate them.

        The entry list is copied (one C-level copy) and objects are picked out only when asked for: a claim
        usually looks at one or two of ~600 candidates.
        """
        return _Snapshot(list(self.groups.get((namespace, template_hash), ())))

    @staticmethod
    def _place(key: Key, obj: Obj) -> tuple[Key, tuple[bool, str, str]] | None:
        """(group, sort key) of a candidate; None for a sandbox that is not one."""
        meta = obj["metadata"]
        if meta.get("deletionTimestamp"):
            return None
        sb_labels = meta.get("labels") or {}
        template_hash = sb_labels.get(keys.TEMPLATE_REF_HASH)
        if keys.WARM_POOL_SANDBOX not in sb_labels or template_hash is None:
            return None
        ref = controller_of(obj)
        if ref is not None and ref.get("kind") != "SandboxWarmPool":
            return None
        return (key[0], template_hash), (not is_ready(obj), meta.get("creationTimestamp") or "", meta["name"])

    def _on_update(self, old: Obj, new: Obj) -> None:
        key = _key(new)
        if same_facts(old, new):
            # The same group and sort key as ``old``'s (they are made of the facts compared), or still no
            # candidate: only the object in the entry changes.
            where = self._where.get(key)
            if where is not None:
                entries = self.groups[where[0]]
                entries[bisect_left(entries, where[1])] = (*where[1], new)
            return
        where = self._place(key, new)
        if where is not None and self._where.get(key) == where:
            # Same group and sort key: removing and inserting again would land on the same index (the sort key
            # is unique in its group), so only the object in the entry changes.
            entries = self.groups[where[0]]
            entries[bisect_left(entries, where[1])] = (*where[1], new)
            return
        self._remove(key)
        if where is not None:
            self._add(key, where, new)

    def _insert(self, key: Key, obj: Obj) -> None:
        where = self._place(key, obj)
        if where is not None:
            self._add(key, where, obj)

    def _add(self, key: Key, where: tuple[Key, tuple[bool, str, str]], obj: Obj) -> None:
        gkey, sort_key = where
        # Names are unique in a namespace, so comparisons never reach the object itself.
        insort(self.groups.setdefault(gkey, []), (*sort_key, obj))
        self._where[key] = where

    def _remove(self, key: Key) -> None:
        where = self._where.pop(key, None)
        if where is None:
            return
        gkey, sort_key = where
        entries = self.groups[gkey]
        # A 3-tuple sorts just before the 4-tuple it prefixes: bisect lands on the entry itself.
        del entries[bisect_left(entries, sort_key)]
        if not entries:
            del self.groups[gkey]


class _Snapshot(Sequence[Obj]):
    """The objects of a copied list of (unready, created, name, object) entries."""

    __slots__ = ("_entries",)

    def __init__(self, entries: list[tuple[bool, str, str, Obj]]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, index: int) -> Obj: ...

    @overload
    def __getitem__(self, index: slice) -> list[Obj]: ...

    def __getitem__(self, index: int | slice) -> Obj | list[Obj]:
        if isinstance(index, slice):
            return [entry[3] for entry in self._entries[index]]
        return self._entries[index][3]
