"""``metadata.managedFields``: decoding, encoding and the ``Update`` bookkeeping of every write.

Follows kubernetes/apimachinery ``pkg/util/managedfields/internal/{managedfields,managedfieldsupdater}.go``
and structured-merge-diff's ``Updater.Update``: a write takes ownership of the fields it added or
changed (taking them away from other managers) and every manager loses the fields the write removed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fakekube.patch import fieldpath
from fakekube.patch.fieldpath import Path
from fakekube.patch.schema import UNTYPED, PatchSchema

_MISSING: Any = object()


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
        parts = (self.manager, self.operation, self.api_version, self.subresource)
        try:
            known = _IDENTIFIERS.get(parts)
        except TypeError:  # a value that cannot be a dict key (not a string): built every time
            return _build_identifier(*parts)
        if known is None:
            if len(_IDENTIFIERS) >= _MAX_IDENTIFIERS:
                _IDENTIFIERS.clear()
            known = _IDENTIFIERS[parts] = _build_identifier(*parts)
        return known

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


def _build_identifier(manager: Any, operation: Any, api_version: Any, subresource: Any) -> str:
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


@dataclass
class Comparison:
    added: set[Path]
    removed: set[Path]
    modified: set[Path]


def compare(old: dict, new: dict, schema: PatchSchema | None) -> Comparison:
    """Fields added, removed and modified between two objects (managedFields ignored).

    Walks both objects together and skips every subtree that compares equal, so the cost follows the size
    of the change, not of the object: this runs on every write the store commits.
    """
    cmp = Comparison(set(), set(), set())
    _diff_map(old, new, schema or UNTYPED, (), cmp)
    for found in (cmp.added, cmp.removed, cmp.modified):
        found -= fieldpath.STRIPPED
    return cmp


def _diff_map(old: dict, new: dict, schema: PatchSchema, prefix: Path, cmp: Comparison) -> None:
    in_metadata = prefix == ("f:metadata",)
    for key, new_value in new.items():
        old_value = old.get(key, _MISSING)
        if old_value is new_value or old_value == new_value or (in_metadata and key == "managedFields"):
            continue
        if (in_metadata and key in fieldpath.STRIPPED_META_FIELDS and not isinstance(old_value, _CONTAINERS)
                and not isinstance(new_value, _CONTAINERS)):
            continue  # untracked (compare strips the path itself), and a scalar has no other path
        child = schema.field(key) or UNTYPED
        path = (*prefix, "f:" + key)
        if old_value is _MISSING:
            fieldpath._walk(new_value, child, path, cmp.added)
        else:
            _diff_value(old_value, new_value, child, path, cmp)
    for key in old.keys() - new.keys():  # into a set: the order does not matter
        if not (in_metadata and key == "managedFields"):
            fieldpath._walk(old[key], schema.field(key) or UNTYPED, (*prefix, "f:" + key), cmp.removed)


_CONTAINERS = (dict, list)


def _diff_value(old: Any, new: Any, schema: PatchSchema, path: Path, cmp: Comparison) -> None:
    if not isinstance(old, _CONTAINERS) and not isinstance(new, _CONTAINERS):
        # Two different scalars: the field set of each is the path itself, and the value changed.
        if old != new:
            cmp.modified.add(path)
        return
    if (isinstance(old, dict) and isinstance(new, dict) and old and new and schema.kind != "scalar"
            and schema.map_type != "atomic"):
        _diff_map(old, new, schema, path, cmp)
        return
    old_items = new_items = None
    if isinstance(old, list) and isinstance(new, list) and old and new and fieldpath.list_kind(schema) == "map":
        keys = schema.ssa_keys
        old_items = _by_key(old, keys)
        new_items = _by_key(new, keys) if old_items is not None else None
    if old_items is not None and new_items is not None:
        item_schema = schema.item()
        for element, item in new_items.items():
            item_path = (*path, element)
            if element not in old_items:
                cmp.added.add(item_path)
                fieldpath._walk_map(item, item_schema, item_path, cmp.added)
            elif old_items[element] != item:
                _diff_map(old_items[element], item, item_schema, item_path, cmp)
        for element, item in old_items.items():
            if element not in new_items:
                item_path = (*path, element)
                cmp.removed.add(item_path)
                fieldpath._walk_map(item, item_schema, item_path, cmp.removed)
        return
    # Leaves, atomic values, sets and changes of shape: compare the two subtrees' field sets.
    old_set: set[Path] = set()
    new_set: set[Path] = set()
    fieldpath._walk(old, schema, path, old_set)
    fieldpath._walk(new, schema, path, new_set)
    cmp.added |= new_set - old_set
    cmp.removed |= old_set - new_set
    depth = len(path)
    for p in old_set & new_set:
        before = fieldpath.get_path(old, p[depth:])
        after = fieldpath.get_path(new, p[depth:])
        if before != after and not isinstance(after, dict):
            cmp.modified.add(p)


def _by_key(items: list, keys: tuple[str, ...]) -> dict[str, dict] | None:
    """A list-map's items by path element (the last of equal keys wins); None unless every item is a map."""
    out: dict[str, dict] = {}
    key_element = fieldpath.key_element
    for item in items:
        if not isinstance(item, dict):
            return None
        out[key_element(item, keys)] = item
    return out


def record_update(
    old: dict | None,
    new: dict,
    *,
    manager: str,
    api_version: str,
    subresource: str | None,
    now: str,
    schema: PatchSchema | None = None,
) -> None:
    """Record an ``operation: Update`` entry in ``new`` for the fields this write added or changed.

    Other managers lose those fields and every manager loses the fields the write removed. When the
    write changed nothing, the entries (and their times) are left exactly as they were, so a no-op
    write stays byte-identical.
    """
    if old is None:
        tree = fieldpath.object_tree(new, schema)
        meta = new.setdefault("metadata", {})
        meta.pop("managedFields", None)
        if tree:
            entry = {"manager": manager, "operation": "Update", "apiVersion": api_version, "time": now,
                     "fieldsType": "FieldsV1", "fieldsV1": tree}
            if subresource:
                entry["subresource"] = subresource
            meta["managedFields"] = [entry]
        return
    cmp = compare(old, new, schema)
    taken = cmp.added | cmp.modified
    if not taken and not cmp.removed:
        # Nothing this write owns changed: the entries stay exactly as stored.
        previous = ((old or {}).get("metadata") or {}).get("managedFields")
        if previous:
            new.setdefault("metadata", {})["managedFields"] = previous
        else:
            new.get("metadata", {}).pop("managedFields", None)
        return
    _update_entries(old, new, cmp, taken, manager, api_version, subresource or "", now, schema)


def _update_entries(old: dict | None, new: dict, cmp: Comparison, taken: set[Path], manager: str,
                    api_version: str, subresource: str, now: str, schema: PatchSchema | None) -> None:
    """Edit the encoded entries' FieldsV1 trees directly: only the paths that changed are touched, and the
    entries of managers that lost nothing are kept as they are."""
    previous = ((old or {}).get("metadata") or {}).get("managedFields") or []
    entries: list[dict[str, Any]] = []
    mine: dict[str, Any] | None = None
    for raw in previous:
        is_mine = (raw.get("manager") == manager and raw.get("operation", "Update") == "Update"
                   and raw.get("apiVersion", "") == api_version and raw.get("subresource", "") == subresource)
        lost = cmp.removed if is_mine else cmp.removed | taken
        tree = raw.get("fieldsV1") or {}
        pruned = fieldpath.tree_remove(tree, lost) if lost else tree
        entry = raw if pruned is tree else {**raw, "fieldsV1": pruned}
        if is_mine:
            mine = entry
        elif pruned:
            entries.append(entry)
    if taken:
        if old is None and mine is None:
            tree = fieldpath.object_tree(new, schema)
        else:
            tree = fieldpath.tree_add((mine or {}).get("fieldsV1") or {}, taken)
        mine = {"manager": manager, "operation": "Update", "apiVersion": api_version, "time": now,
                "fieldsType": "FieldsV1", "fieldsV1": tree}
        if subresource:
            mine["subresource"] = subresource
    if mine is not None and mine.get("fieldsV1"):
        entries.append(mine)
    meta = new.setdefault("metadata", {})
    if entries:
        meta["managedFields"] = sorted(entries, key=_raw_sort_key)
    else:
        meta.pop("managedFields", None)


def _raw_sort_key(entry: dict[str, Any]) -> tuple[str, ...]:
    return (entry.get("operation", ""), entry.get("time") or "", entry.get("manager", ""),
            entry.get("apiVersion", ""), entry.get("subresource", ""))
