"""``metadata.managedFields``: decoding, encoding and the ``Update`` bookkeeping of every write.

Follows kubernetes/apimachinery ``pkg/util/managedfields/internal/{managedfields,managedfieldsupdater}.go``
and structured-merge-diff's ``Updater.Update``: a write takes ownership of the fields it added or
changed (taking them away from other managers) and every manager loses the fields the write removed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

from fakekube.patch import fieldpath, update_fields
from fakekube.patch.fieldpath import Path
from fakekube.patch.schema import PatchSchema


class ManagerEntry:
    """One manager's entry. An entry read from an object keeps its FieldsV1 tree and decodes it into a field
    set only when asked (``fields``); losing fields edits the tree (``fieldpath.tree_remove``), so an entry
    that never needs its set costs neither decoding nor encoding, and one that lost nothing is written back
    as it was read."""

    __slots__ = ("manager", "operation", "api_version", "time", "subresource", "_fields", "_tree")

    def __init__(self, manager: str, operation: str, api_version: str, time: str | None,
                 fields: set[Path] | None = None, subresource: str = "", *, tree: dict | None = None) -> None:
        self.manager = manager
        self.operation = operation
        self.api_version = api_version
        self.time = time
        self.subresource = subresource
        # Exactly one of the two is the truth: the set once decoded (or given), else the canonical tree.
        self._fields: set[Path] | None = set() if fields is None and tree is None else fields
        self._tree = tree if fields is None else None

    @property
    def fields(self) -> set[Path]:
        if self._fields is None:
            self._fields = fieldpath.from_fields_v1(self._tree or {})
            self._tree = None
        return self._fields

    @fields.setter
    def fields(self, value: set[Path]) -> None:
        self._fields, self._tree = value, None

    def owned(self, paths: set[Path]) -> set[Path]:
        """The members of ``paths`` this manager owns."""
        if self._fields is not None:
            return self._fields & paths
        tree = self._tree or {}
        return {p for p in paths if fieldpath.tree_has(tree, p)}

    def lose(self, paths: set[Path]) -> None:
        """Give up ``paths`` (those it does not own are ignored)."""
        if not paths:
            return
        if self._fields is not None:
            self._fields -= paths
        else:
            self._tree = fieldpath.tree_remove(self._tree or {}, paths)

    def canonical_tree(self) -> dict | None:
        """The canonical FieldsV1 tree the entry was read with, while its field set is still that tree's."""
        return self._tree if self._fields is None else None

    def has_fields(self) -> bool:
        return bool(self._fields) if self._fields is not None else bool(self._tree)

    @property
    def identifier(self) -> str:
        """``BuildManagerIdentifier``: the entry without time/fields as JSON (Apply drops apiVersion)."""
        return identifier_of(self.manager, self.operation, self.api_version, self.subresource)

    def encode(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version}
        if self.time:
            entry["time"] = self.time
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = self._tree if self._fields is None else fieldpath.to_fields_v1(self._fields)
        if self.subresource:
            entry["subresource"] = self.subresource
        return entry


# Every write reads every manager's identifier; the few distinct ones are remembered (bounded).
_IDENTIFIERS: dict[tuple[Any, ...], str] = {}
_MAX_IDENTIFIERS = 4096


def identifier_of(manager: Any, operation: Any, api_version: Any, subresource: Any) -> str:
    """:func:`build_identifier`, remembered: every write reads every manager's identifier."""
    parts = (manager, operation, api_version, subresource)
    try:
        known = _IDENTIFIERS.get(parts)
    except TypeError:  # a value that cannot be a dict key (not a string): built every time
        return build_identifier(*parts)
    if known is None:
        if len(_IDENTIFIERS) >= _MAX_IDENTIFIERS:
            _IDENTIFIERS.clear()
        known = _IDENTIFIERS[parts] = build_identifier(*parts)
    return known


def build_identifier(manager: Any, operation: Any, api_version: Any, subresource: Any) -> str:
    ident: dict[str, Any] = {"manager": manager, "operation": operation}
    if operation != "Apply" and api_version:
        ident["apiVersion"] = api_version
    if subresource:
        ident["subresource"] = subresource
    return json.dumps(ident, separators=(",", ":"))


Managers = dict[str, ManagerEntry]


def decode_managed_fields(obj: dict | None, *, frozen: bool = False) -> Managers:
    """The entries of ``obj``; ``frozen``: ``obj`` is a stored object, never changed (see
    ``fieldpath.is_canonical_tree``)."""
    managers: Managers = {}
    for raw in ((obj or {}).get("metadata") or {}).get("managedFields") or []:
        tree = raw.get("fieldsV1") or {}
        canonical = fieldpath.is_canonical_tree(tree, frozen=frozen)
        entry = ManagerEntry(
            manager=raw.get("manager", ""),
            operation=raw.get("operation", "Update"),
            api_version=raw.get("apiVersion", ""),
            time=raw.get("time"),
            fields=None if canonical else fieldpath.from_fields_v1(tree),
            subresource=raw.get("subresource", ""),
            tree=tree if canonical else None,
        )
        managers[entry.identifier] = entry
    return managers


def _sort_key(entry: ManagerEntry) -> tuple:
    # sortEncodedManagedFields: operation, time (whole seconds; RFC3339 strings sort the same), manager,
    # apiVersion, subresource.
    return (entry.operation, entry.time or "", entry.manager, entry.api_version, entry.subresource)


def encode_managed_fields(obj: dict, managers: Managers) -> None:
    """Write ``managers`` into ``obj["metadata"]["managedFields"]`` (removed when empty)."""
    live = [m for m in managers.values() if m.has_fields()]
    meta = obj.setdefault("metadata", {})
    if not live:
        meta.pop("managedFields", None)
        return
    meta["managedFields"] = [m.encode() for m in sorted(live, key=_sort_key)]


# -- the Update operation (create, PUT, patch) -------------------------------------------------------------
#
# apimachinery's field manager wraps the comparison in layers (pkg/util/managedfields/internal/fieldmanager.go,
# NewDefaultFieldManager), each emulated here on the encoded entries:
# - decodeLiveOrNew: the entries come from the new object when it carries valid, non-empty ones (a client may
#   write managedFields), else from the live object; a subresource always takes the live object's; ``[]`` or
#   ``[{}]`` resets them;
# - skipNonApplied: an existing object without entries is not tracked (the write records nothing);
# - capManagers: at most 10 Update entries, the oldest merged into "ancient-changes" per apiVersion;
# - buildManagerInfo: the entry is the manager, the operation, the endpoint's apiVersion and the subresource;
# - managedFieldsUpdater: only a write that took fields moves the entry's time;
# - stripMeta: type meta and the server's metadata are never owned (fieldpath.STRIPPED);
# - structuredMerge / smd Updater.Update: the writer takes what it added or modified from everyone, and every
#   manager loses what it removed (update_fields).

MAX_UPDATE_MANAGERS = 10
ANCIENT_CHANGES = "ancient-changes"
_OPERATIONS = ("Apply", "Update")


def record_update(
    old: dict | None,
    new: dict,
    *,
    manager: str,
    api_version: str,
    subresource: str | None,
    now: str,
    schema: PatchSchema | None = None,
    zero: dict | None = None,
    to_version: Callable[[dict], dict] | None = None,
    versions: Collection[str] | None = None,
) -> None:
    """Record an ``operation: Update`` entry in ``new`` for the fields this write added or changed.

    ``old`` is the live object, None for a create, which is compared with ``zero`` (the kind's Go zero value,
    fakekube.patch.zero). Other managers lose the fields the write took and every manager loses the fields it
    removed. When the write changed nothing, the entries (and their times) are left exactly as they were, so
    a no-op write stays byte-identical.

    ``to_version``: the conversion of the stored form into the write's version (``api_version``), where the
    comparison happens, for a resource stored in another form (events.k8s.io/v1 Events, stored as v1 ones);
    entries themselves are never converted. ``versions``: the apiVersions the endpoint can convert to (all of a
    custom resource's, else its own); a manager of any other version is dropped (structured-merge-diff
    ``Updater.reconcileManagedFieldsWithSchemaChanges``, a missing version); None keeps every manager.
    """
    manager = manager or "unknown"  # buildManagerInfo
    meta = new.setdefault("metadata", {})
    stored = _stored_list(old)
    entries = _chosen_entries(stored, meta, subresource)
    if not entries and old is not None:
        meta.pop("managedFields", None)  # skipNonApplied: an existing object without entries stays untracked
        return
    if versions is not None and any(e.get("apiVersion") not in versions for e in entries):
        # Dropped further in, after skipNonApplied has looked: the write is tracked even when none is left.
        entries = [e for e in entries if e.get("apiVersion") in versions]
    subresource = subresource or ""
    live, written = old, new
    if to_version is not None:
        live, written = (to_version(old) if old is not None else None), to_version(new)
    if old is None and not entries:
        # The common create: one entry, the tree built in one walk.
        tree = update_fields.create_tree(zero or {}, written, schema)
        if tree:
            meta["managedFields"] = [_new_entry(manager, api_version, now, tree, subresource)]
        else:
            meta.pop("managedFields", None)
        return
    cmp = update_fields.compare(zero or {} if live is None else live, written, schema)
    taken = update_fields.taken_paths(cmp)
    if not taken and not cmp.removed and entries is stored:
        meta["managedFields"] = stored  # nothing this write owns changed: the entries stay exactly as stored
        return
    result = _updated_entries(entries, cmp.removed, taken, manager, api_version, subresource, now)
    if result:
        meta["managedFields"] = result
    else:
        meta.pop("managedFields", None)


def _stored_list(obj: dict | None) -> list | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    found = meta.get("managedFields") if isinstance(meta, dict) else None
    return found if type(found) is list and found else None


def _chosen_entries(stored: list | None, meta: dict, subresource: str | None) -> list:
    """decodeLiveOrNew: the entries the write starts from (``stored``, the live object's non-empty list,
    itself when they are its)."""
    sent = meta.get("managedFields")
    if subresource or sent is None or sent is stored:
        return stored or []
    if type(sent) is list and is_reset(sent):
        return []
    if stored is not None and sent == stored:
        return stored
    decoded = decode_entries(sent)
    if decoded:
        return decoded
    return stored or []


def is_reset(entries: list) -> bool:
    """``isResetManagedFields``: ``[]``, or one entry that decodes to the zero ManagedFieldsEntry."""
    if not entries:
        return True
    return len(entries) == 1 and isinstance(entries[0], dict) and all(v in ("", None) for v in entries[0].values())


def decode_entries(raw: Any) -> list | None:
    """``DecodeManagedFields`` of a list a client sent, as canonical encoded entries (one per manager
    identifier, the last one winning as in Go's map; those with no fields left out); None when it does not
    decode (a wrong operation, no apiVersion, another fieldsType, a FieldsV1 that is not a field set)."""
    if type(raw) is not list:
        return None
    by_identifier: dict[str, dict] = {}
    for item in raw:
        if not isinstance(item, dict):
            return None
        operation, version = item.get("operation"), item.get("apiVersion")
        if operation not in _OPERATIONS or not isinstance(version, str) or not version:
            return None
        if item.get("fieldsType") != "FieldsV1":
            return None
        tree = item.get("fieldsV1")
        paths = fieldpath.decode_fields_v1(tree if tree is not None else {})
        if paths is None:
            return None
        manager, subresource = item.get("manager") or "", item.get("subresource") or ""
        if not isinstance(manager, str) or not isinstance(subresource, str):
            return None
        entry = _new_entry(manager, version, item.get("time"), fieldpath.to_fields_v1(paths), subresource,
                           operation)
        by_identifier[identifier_of(manager, operation, version, subresource)] = entry
    return [entry for entry in by_identifier.values() if entry["fieldsV1"]]


def _new_entry(manager: str, api_version: str, time: str | None, tree: dict, subresource: str,
               operation: str = "Update") -> dict[str, Any]:
    # Key order of the Go struct (ManagedFieldsEntry), empty fields left out as omitempty does.
    entry: dict[str, Any] = {"manager": manager} if manager else {}
    entry["operation"] = operation
    entry["apiVersion"] = api_version
    if time:
        entry["time"] = time
    entry["fieldsType"] = "FieldsV1"
    entry["fieldsV1"] = tree
    if subresource:
        entry["subresource"] = subresource
    return entry


def _raw_identifier(entry: dict[str, Any]) -> str:
    return identifier_of(entry.get("manager", ""), entry.get("operation", "Update"), entry.get("apiVersion", ""),
                             entry.get("subresource", ""))


def _updated_entries(entries: list, removed: set[Path], taken: set[Path], manager: str, api_version: str,
                     subresource: str, now: str) -> list:
    """Edit the encoded entries' FieldsV1 trees directly: only the paths that changed are touched, and the
    entries of managers that lost nothing are kept as they are."""
    mine_id = identifier_of(manager, "Update", api_version, subresource)
    lost_by_others = removed | taken
    kept: dict[str, dict[str, Any]] = {}
    mine: dict[str, Any] | None = None
    for raw in entries:
        ident = _raw_identifier(raw)
        is_mine = ident == mine_id
        lost = removed if is_mine else lost_by_others
        tree = raw.get("fieldsV1") or {}
        pruned = fieldpath.tree_remove(tree, lost) if lost else tree
        entry = raw if pruned is tree else {**raw, "fieldsV1": pruned}
        kept.pop(ident, None)  # a later entry of the same manager replaces an earlier one (Go's map)
        if is_mine:
            mine = entry
        elif pruned:
            kept[ident] = entry
    if taken:
        tree = fieldpath.tree_add((mine or {}).get("fieldsV1") or {}, taken)
        mine = _new_entry(manager, api_version, now, tree, subresource)
    if mine is not None and mine.get("fieldsV1"):
        kept[mine_id] = mine
    result = list(kept.values())
    if len(result) > MAX_UPDATE_MANAGERS:
        result = cap_update_managers(result)
    return sort_entries(result) if len(result) > 1 else result


def sort_entries(entries: list) -> list:
    """``sortEncodedManagedFields``: operation, time (whole seconds; RFC 3339 strings in UTC sort the same, an
    entry without a time first), manager, apiVersion, subresource."""
    return sorted(entries, key=_raw_sort_key)


def _raw_sort_key(entry: dict[str, Any]) -> tuple[str, ...]:
    return (entry.get("operation", ""), entry.get("time") or "", entry.get("manager", ""),
            entry.get("apiVersion", ""), entry.get("subresource", ""))


def cap_update_managers(entries: list, limit: int = MAX_UPDATE_MANAGERS) -> list:
    """``capManagersManager``: while there are more than ``limit`` Update entries, the oldest (by time, then
    identifier) are merged into an ``ancient-changes`` entry of their apiVersion, which takes the time of the
    last one merged. The first entry of an apiVersion becomes the bucket when a second one arrives."""
    updaters = [e for e in entries if e.get("operation") != "Apply"]
    if len(updaters) <= limit:
        return entries
    by_id = {_raw_identifier(e): e for e in entries}
    order = sorted(by_id, key=lambda ident: (by_id[ident].get("time") or "", ident))
    order = [ident for ident in order if by_id[ident].get("operation") != "Apply"]
    first_of_version: dict[str, str] = {}
    length = len(order)
    for ident in order:
        if length <= limit:
            break
        entry = by_id[ident]
        version = entry.get("apiVersion", "")
        bucket = build_identifier(ANCIENT_CHANGES, "Update", version, "")
        first = first_of_version.get(version)
        if first is None:
            first_of_version[version] = ident
            continue
        if bucket not in by_id:
            by_id[bucket] = by_id.pop(first)
        merged = fieldpath.from_fields_v1(entry.get("fieldsV1") or {}) | fieldpath.from_fields_v1(
            by_id[bucket].get("fieldsV1") or {})
        by_id[bucket] = _new_entry(ANCIENT_CHANGES, version, entry.get("time"), fieldpath.to_fields_v1(merged), "")
        del by_id[ident]
        length -= 1
    return list(by_id.values())
