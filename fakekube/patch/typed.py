"""structured-merge-diff's typed operations on JSON values described by a :class:`PatchSchema`.

Server-side apply is assembled from four operations of kubernetes-sigs/structured-merge-diff (v4.4.2, the
version Kubernetes 1.32 vendors; sources in docs/semantics.md), each written here for plain JSON values:

- :func:`merge` (``typed/merge.go``): the configuration merged into the live object;
- :func:`applied_fields` (``typed/tofieldset.go``): the fields a configuration sets, which its applier owns;
- :func:`remove_items` (``typed/remove.go``): a value without the members of a field set;
- :func:`compare` (``typed/compare.go``): the fields added, removed and modified between two values;

plus :func:`with_named_parents` (``fieldpath.Set.EnsureNamedFieldsAreMembers``).

Empty and null values follow upstream exactly, because that is where apply is easy to get wrong: a map,
list or struct that is empty or null on both sides is a leaf (so ``{}``, ``[]`` and ``null`` are kept
apart); a null or empty map in a configuration is a member of its applier's field set, an empty granular
list is not; a null against a non-empty live map or list keeps the live content; removing the last items
of a map or list leaves a null behind (the caller drops nulls the way the typed decoder does).

``ABSENT`` is "no value" (Go's nil ``value.Value``), distinct from ``None`` (JSON null).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakekube.jsonvalues import json_copy, json_equal
from fakekube.patch.fieldpath import Path, key_element, list_kind, value_element
from fakekube.patch.schema import UNTYPED, PatchSchema

ABSENT: Any = object()
_SCALARS = frozenset((str, int, float, bool))


@dataclass
class Comparison:
    """``typed.Comparison``: the paths a change added, removed and modified (no path is in two of them)."""

    added: set[Path]
    removed: set[Path]
    modified: set[Path]


def handler_of(value: Any, schema: PatchSchema) -> str:
    """Which of doScalar / doMap / doList smd runs for ``value`` (``deduceAtom`` then ``handleAtom``)."""
    kind = schema.kind
    if kind == "scalar":
        return "scalar"
    if kind in ("object", "map"):
        return "map"
    if kind == "list":
        return "list"
    # Untyped: the value decides; a null (or no value) takes the map handler, which handleAtom tries first.
    if isinstance(value, list):
        return "list"
    if type(value) in _SCALARS:
        return "scalar"
    return "map"


_TYPED_HANDLERS = {"scalar": "scalar", "object": "map", "map": "map", "list": "list"}


def _child(schema: PatchSchema, key: str) -> PatchSchema:
    return schema.field(key) or UNTYPED


def item_elements(items: list, schema: PatchSchema, kind: str) -> list[str] | None:
    """The path element of each item of a set or list-map; None when an item cannot have one (smd
    rejects such a list; it is then handled as an atomic value)."""
    if kind == "set":
        return [value_element(item) for item in items]
    keys = schema.ssa_keys
    defaults = schema.key_defaults
    out: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        if defaults is not None and not all(k in item for k in defaults):
            item = {**defaults, **item}  # a key an item leaves out is its schema default (getAssociativeKeyDefault)
        out.append(key_element(item, keys))
    return out


# -- merge ---------------------------------------------------------------------------------------------


def merge(lhs: Any, rhs: Any, schema: PatchSchema) -> Any:
    """``lhs.Merge(rhs)``: ``rhs`` wins on leaves; maps merge key by key and granular lists item by item.
    The result is a fresh document (neither input is shared with it)."""
    value = merge_shared(lhs, rhs, schema)
    return value if value is ABSENT else json_copy(value)


def merge_shared(lhs: Any, rhs: Any, schema: PatchSchema) -> Any:
    """:func:`merge` without the copy: the result holds the subtrees of ``lhs`` and ``rhs`` it keeps as they
    are, the very objects (only the maps and lists on the way to a merged member are new). For a caller that
    copies the result once when it is done with it, and for :func:`compare`, which skips shared subtrees."""
    if lhs is ABSENT or rhs is ABSENT:
        return rhs if rhs is not ABSENT else lhs  # what upstream's walk of one side rebuilds: that side
    handler = handler_of(rhs, schema)
    if handler == "map":
        return _merge_map(lhs, rhs, schema)
    if handler == "list":
        return _merge_list(lhs, rhs, schema)
    return rhs


def _merge_map(lhs: Any, rhs: Any, schema: PatchSchema) -> Any:
    left = lhs if isinstance(lhs, dict) else None
    right = rhs if isinstance(rhs, dict) else None
    if schema.map_type == "atomic" or (not left and not right):
        return rhs  # empty or null on both sides: a leaf, so {} and null stay apart
    left = left or {}
    right = right or {}
    out: dict[str, Any] = {}
    for key in (*left, *(k for k in right if k not in left)):
        lhs_value, rhs_value = left.get(key, ABSENT), right.get(key, ABSENT)
        if lhs_value is ABSENT or rhs_value is ABSENT:
            out[key] = lhs_value if rhs_value is ABSENT else rhs_value  # one side only: kept as it is
            continue
        value = merge_shared(lhs_value, rhs_value, _child(schema, key))
        if value is not ABSENT:
            out[key] = value
    return out if out else ABSENT


def _merge_list(lhs: Any, rhs: Any, schema: PatchSchema) -> Any:
    left = lhs if isinstance(lhs, list) else None
    right = rhs if isinstance(rhs, list) else None
    kind = list_kind(schema)
    if kind == "atomic" or (not left and not right):
        return rhs
    left = left or []
    right = right or []
    left_pes = item_elements(left, schema, kind)
    right_pes = item_elements(right, schema, kind)
    if left_pes is None or right_pes is None:
        return rhs
    out = _merge_list_items(left, right, left_pes, right_pes, schema.item())
    return out if out else ABSENT


def _merge_list_items(left: list, right: list, left_pes: list[str], right_pes: list[str],
                      item_schema: PatchSchema) -> list:
    """smd ``visitListItems``: the live order is kept, configuration items shared with it are placed in the
    configuration's order, new configuration items follow the shared item before them; a duplicated live
    item is replaced by the configuration's (or kept, with its duplicates, when the configuration does not
    name it)."""
    observed_left: dict[str, Any] = {}
    for pe, item in zip(left_pes, left, strict=True):
        observed_left[pe] = ABSENT if pe in observed_left else item  # duplicates merge with nothing
    observed_right: dict[str, Any] = {}
    unique_right: list[str] = []
    for pe, item in zip(right_pes, right, strict=True):
        if pe not in observed_right:  # smd refuses duplicates in a configuration; the first one counts
            observed_right[pe] = item
            unique_right.append(pe)
    shared = [pe for pe in unique_right if pe in observed_left]
    next_shared = shared.pop(0) if shared else None
    merged_right: set[str] = set()
    out: list = []

    def add(lhs: Any, rhs: Any) -> None:
        value = merge_shared(lhs, rhs, item_schema)
        if value is not ABSENT:
            out.append(value)

    li = ri = 0
    left_len, right_len = len(left_pes), len(unique_right)
    while li < left_len or ri < right_len:
        if li < left_len and ri < right_len:
            pe = left_pes[li]
            if pe == unique_right[ri]:
                merged_right.add(pe)
                add(observed_left[pe], observed_right[pe])
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in observed_right and next_shared is not None and next_shared != pe:
                li += 1  # a shared item, but not the one due in this round
                continue
        if li < left_len:
            pe = left_pes[li]
            if pe not in observed_right:
                add(left[li], ABSENT)
                li += 1
                continue
            if pe in merged_right:
                li += 1
        if ri < right_len:
            pe = unique_right[ri]
            merged_right.add(pe)
            add(observed_left.get(pe, ABSENT), observed_right[pe])
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
    return out


# -- field sets ----------------------------------------------------------------------------------------


def applied_fields(value: Any, schema: PatchSchema) -> set[Path]:
    """``ToFieldSet``: leaves, nulls, empty maps, atomic values, map keys and list items (not struct fields
    that hold content, and not empty granular lists)."""
    out: set[Path] = set()
    _field_set(value, schema, (), out)
    out.discard(())
    return out


def _field_set(value: Any, schema: PatchSchema, path: Path, out: set[Path]) -> None:
    handler = handler_of(value, schema)
    if handler == "scalar":
        out.add(path)
        return
    if handler == "list":
        kind = list_kind(schema)
        if kind == "atomic":
            out.add(path)
            return
        if not isinstance(value, list):
            return
        pes = item_elements(value, schema, kind)
        if pes is None:
            out.add(path)
            return
        seen: set[str] = set()
        duplicated: set[str] = set()
        for pe in pes:
            if pe in seen:
                duplicated.add(pe)
            seen.add(pe)
        item_schema = schema.item()
        for pe in duplicated:
            out.add((*path, pe))
        for pe, item in zip(pes, value, strict=True):
            if pe not in duplicated:
                _field_set(item, item_schema, (*path, pe), out)
                out.add((*path, pe))
        return
    if schema.map_type == "atomic":
        out.add(path)
        return
    if not isinstance(value, dict):
        return
    for key, child_value in value.items():
        child_path = (*path, "f:" + key)
        _field_set(child_value, _child(schema, key), child_path, out)
        if child_value is None or child_value == {} or not schema.is_field(key):
            out.add(child_path)


def with_named_parents(paths: set[Path], schema: PatchSchema) -> set[Path]:
    """``EnsureNamedFieldsAreMembers``: every struct field a path runs through becomes a member too
    (``a.b.c`` adds ``a`` when it is a struct field, not ``a.b`` when ``a`` is a map)."""
    out = set(paths)
    for path in paths:
        node: PatchSchema | None = schema
        for i, pe in enumerate(path[:-1]):
            if node is None:
                break
            if pe.startswith("f:"):
                name = pe[2:]
                if node.is_field(name):
                    out.add(path[: i + 1])
                node = _child(node, name)
            elif pe.startswith("k:"):
                node = node.item()
            else:
                node = None  # below a set value or an index nothing is a named field
    return out


# -- removal -------------------------------------------------------------------------------------------

_Trie = dict[str, tuple[bool, "dict"]]


def _trie(paths: set[Path]) -> _Trie:
    """The set as nested nodes: path element → (is a member, children)."""
    root: dict[str, list] = {}
    for path in paths:
        node = root
        for i, pe in enumerate(path):
            entry = node.get(pe)
            if entry is None:
                entry = node[pe] = [False, {}]
            if i == len(path) - 1:
                entry[0] = True
            node = entry[1]
    return _freeze(root)


def _freeze(node: dict[str, list]) -> _Trie:
    return {pe: (member, _freeze(children)) for pe, (member, children) in node.items()}


def remove_items(value: Any, paths: set[Path], schema: PatchSchema) -> Any:
    """``RemoveItems``: ``value`` without the members of ``paths`` (and their contents). A map or list whose
    last items go becomes null, as upstream."""
    if not paths:
        return value
    return _remove(value, _trie(paths), schema)


def _remove(value: Any, trie: _Trie, schema: PatchSchema) -> Any:
    handler = handler_of(value, schema)
    if handler == "scalar":
        return value
    if handler == "list":
        kind = list_kind(schema)
        if not isinstance(value, list) or not value or kind == "atomic":
            return None
        pes = item_elements(value, schema, kind)
        if pes is None:
            return None
        items = []
        item_schema = schema.item()
        for pe, item in zip(pes, value, strict=True):
            node = trie.get(pe)
            if node is not None:
                member, children = node
                if member:
                    continue
                item = _remove(item, children, item_schema)
            items.append(item)
        return items or None
    if not isinstance(value, dict) or not value or schema.map_type == "atomic":
        return None
    out: dict[str, Any] = {}
    for key, child_value in value.items():
        node = trie.get("f:" + key)
        if node is not None:
            member, children = node
            if member:
                continue
            child_value = _remove(child_value, children, _child(schema, key))
        out[key] = child_value
    return out or None


# -- comparison ----------------------------------------------------------------------------------------


def compare(lhs: Any, rhs: Any, schema: PatchSchema) -> Comparison:
    """``lhs.Compare(rhs)``: every node of an added or removed subtree is listed, leaves that differ are
    modified. Equal subtrees are skipped whole (one the two sides share without a look inside), so the cost
    follows the size of the change."""
    cmp = Comparison(set(), set(), set())
    _compare(lhs, rhs, schema, (), cmp)
    for found in (cmp.added, cmp.removed, cmp.modified):
        found.discard(())
    return cmp


def _compare(lhs: Any, rhs: Any, schema: PatchSchema, path: Path, cmp: Comparison) -> None:
    if lhs is rhs or (type(lhs) is type(rhs) and lhs is not ABSENT and lhs == rhs):
        # Python's == says true is 1: values of two types go on to the leaf test (json_equal), so a scalar
        # that changes from true to 1 is modified as upstream's value.Equals says; inside equal containers
        # such a change is not seen.
        return
    compare_unequal(lhs, rhs, schema, path, cmp)


def compare_unequal(lhs: Any, rhs: Any, schema: PatchSchema, path: Path, cmp: Comparison) -> None:
    """:func:`compare` of two values at ``path`` known to differ (a map's walk has compared them already), into
    ``cmp``; either may be ``ABSENT``."""
    handlers: tuple[str, ...]
    kind = schema.kind
    if kind != "untyped":  # a typed node's handler does not depend on the values (the hot path)
        handlers = (_TYPED_HANDLERS[kind],)
    elif rhs is ABSENT:
        handlers = (handler_of(lhs, schema),)
    elif lhs is ABSENT:
        handlers = (handler_of(rhs, schema),)
    else:
        left, right = handler_of(lhs, schema), handler_of(rhs, schema)
        handlers = (right,) if left == right else (left, right)  # a change of shape: both walks report
    in_leaf = False
    for handler in handlers:
        if handler == "map":
            in_leaf = _compare_map(lhs, rhs, schema, path, cmp)
        elif handler == "list":
            in_leaf = _compare_list(lhs, rhs, schema, path, cmp)
        else:
            in_leaf = _compare_leaf(lhs, rhs, path, cmp)
    if not in_leaf:
        if lhs is ABSENT:
            cmp.added.add(path)
        elif rhs is ABSENT:
            cmp.removed.add(path)


def _compare_leaf(lhs: Any, rhs: Any, path: Path, cmp: Comparison) -> bool:
    if lhs is ABSENT:
        cmp.added.add(path)
    elif rhs is ABSENT:
        cmp.removed.add(path)
    elif not json_equal(lhs, rhs):
        cmp.modified.add(path)
    return True


def _compare_map(lhs: Any, rhs: Any, schema: PatchSchema, path: Path, cmp: Comparison) -> bool:
    left = lhs if isinstance(lhs, dict) else None
    right = rhs if isinstance(rhs, dict) else None
    if schema.map_type == "atomic" or (not left and not right):
        return _compare_leaf(lhs, rhs, path, cmp)
    left = left or {}
    right = right or {}
    for key in (*left, *(k for k in right if k not in left)):
        lhs_value, rhs_value = left.get(key, ABSENT), right.get(key, ABSENT)
        if lhs_value is rhs_value or (type(lhs_value) is type(rhs_value) and lhs_value is not ABSENT
                                      and lhs_value == rhs_value):
            continue  # what _compare would skip first, without its call (a shared subtree: by identity)
        compare_unequal(lhs_value, rhs_value, _child(schema, key), (*path, "f:" + key), cmp)
    return False


def _compare_list(lhs: Any, rhs: Any, schema: PatchSchema, path: Path, cmp: Comparison) -> bool:
    left = lhs if isinstance(lhs, list) else None
    right = rhs if isinstance(rhs, list) else None
    kind = list_kind(schema)
    if kind == "atomic" or (not left and not right):
        return _compare_leaf(lhs, rhs, path, cmp)
    left = left or []
    right = right or []
    left_pes = item_elements(left, schema, kind)
    right_pes = item_elements(right, schema, kind)
    if left_pes is None or right_pes is None:
        return _compare_leaf(lhs, rhs, path, cmp)
    item_schema = schema.item()
    if left_pes == right_pes and len(set(left_pes)) == len(left_pes):
        # The same items in the same order (an item changed in place, the usual write): pair them directly.
        for pe, before, after in zip(left_pes, left, right, strict=True):
            if before is not after and (type(before) is not type(after) or before != after):
                compare_unequal(before, after, item_schema, (*path, pe), cmp)
        return False
    left_items: dict[str, list] = {}
    right_items: dict[str, list] = {}
    for pes, items, index in ((left_pes, left, left_items), (right_pes, right, right_items)):
        for pe, item in zip(pes, items, strict=True):
            index.setdefault(pe, []).append(item)
    for pe in (*left_items, *(p for p in right_items if p not in left_items)):
        before, after = left_items.get(pe, []), right_items.get(pe, [])
        item_path = (*path, pe)
        if len(before) <= 1 and len(after) <= 1:
            _compare(before[0] if before else ABSENT, after[0] if after else ABSENT, item_schema, item_path, cmp)
        elif len(before) >= 2 and len(after) >= 2:
            if not json_equal(before, after):
                cmp.modified.add(item_path)
        elif len(before) >= 2:  # duplicates on the left only: the whole item counts as removed
            if after:
                _compare(ABSENT, after[0], item_schema, item_path, cmp)
            cmp.removed.add(item_path)
        else:
            if before:
                _compare(before[0], ABSENT, item_schema, item_path, cmp)
            cmp.added.add(item_path)
    return False
