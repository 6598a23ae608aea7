"""The fields a write that is not an apply takes: structured-merge-diff's ``Updater.Update`` comparison.

A create, PUT or patch makes its manager own what the comparison of the live object with the new one
reports as added or modified (smd ``typed/compare.go``), less the fields no manager owns (apimachinery
``pkg/util/managedfields/internal/stripmeta.go``). The comparison marks a node *added* when the live object
has no value there at all, whatever the node holds, so an added map or list is a member of the set as well
as its contents, and FieldsV1 writes it with ``"."``: ``f:labels: {".": {}, "f:app": {}}``. A node the live
object has (``spec`` of a Go zero value, a list that was ``null``) is only a member when it is a leaf whose
value changed. A create compares with the kind's Go zero value (:mod:`fakekube.patch.zero`).

:func:`create_tree` builds a create's FieldsV1 tree in one walk, remembering the trees of repeated values
(objects of a kind are often made from one template); :func:`compare` is the general comparison of an update.
"""

from __future__ import annotations

from typing import Any

from fakekube.jsonvalues import encode_json, json_equal
from fakekube.patch import fieldpath
from fakekube.patch.fieldpath import Path
from fakekube.patch.schema import UNTYPED, PatchSchema
from fakekube.patch.typed import ABSENT, Comparison, compare_unequal, handler_of, item_elements

_SCALARS = frozenset((str, int, float, bool, type(None)))
_TYPE_META = frozenset(("apiVersion", "kind"))


def create_tree(zero: dict, obj: dict, schema: PatchSchema | None) -> dict:
    """The FieldsV1 tree a create's manager owns: ``compare(zero, obj)``'s added and modified paths less the
    stripped ones (type meta, ``metadata`` itself and the server's metadata fields)."""
    schema = schema or UNTYPED
    tree: dict = {}
    for key in sorted(obj):
        if key in _TYPE_META:
            continue
        value = obj[key]
        child = schema.field(key) or UNTYPED
        before = zero.get(key, ABSENT)
        if before is None and value is None:
            continue  # null in the zero value too (a zero Time, a nil slice without omitempty): unchanged
        if key == "metadata":
            sub = _metadata_tree(before, value, child)
        elif before is ABSENT:
            sub = _remembered(None, value, child)
        else:
            sub = _remembered(before, value, child)
        if sub is not None:
            tree["f:" + key] = sub
    return tree


def _metadata_tree(before: Any, meta: Any, schema: PatchSchema) -> dict | None:
    stripped = fieldpath.STRIPPED_META_FIELDS
    if type(meta) is dict and (before is ABSENT or before == {}) and schema.map_type != "atomic":
        # Every zero value's metadata is empty (or absent): each field the object has is added. The same as
        # the general walk below, without its copies (this runs for every create).
        out: dict = {}
        for k in sorted(meta):
            if k not in stripped:
                v = meta[k]
                out["f:" + k] = {} if type(v) in _SCALARS or not v else _added(v, schema.field(k) or UNTYPED)
        return out or None
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k not in stripped}
    sub = _added(meta, schema) if before is ABSENT else _present(before, meta, schema)
    if sub is None:
        return None
    sub = {k: v for k, v in sub.items() if k != "."}  # metadata itself is stripped, its contents are not
    return sub or None


# Trees of the values of top-level fields (``spec``...), by the zero value they are compared with, the schema
# and the value's JSON. Trees are never edited in place (fieldpath.tree_add/tree_remove copy what they change),
# so one remembered tree may be held by many objects' managedFields.
_SUBTREES: dict[tuple[int, int, bytes], tuple[Any, PatchSchema, dict | None]] = {}
_MAX_SUBTREES = 2_000  # bounded (at most ~32 MB): the shapes of a run's templates, not every object


def _remembered(before: Any, value: Any, schema: PatchSchema) -> dict | None:
    """``_added(value)`` (``before`` None: the zero value has no such field) or ``_present(before, value)``."""
    if type(value) in _SCALARS or not value:
        return _added(value, schema) if before is None else _present(before, value, schema)
    text = encode_json(value)
    if text is None or len(text) > 16_384:  # a large value is rarely repeated: not worth its memory
        return _added(value, schema) if before is None else _present(before, value, schema)
    # By identity: the entry holds ``before`` and ``schema``, so neither id can name another object meanwhile.
    key = (id(before), id(schema), text)
    known = _SUBTREES.get(key)
    if known is not None and known[0] is before and known[1] is schema:
        return known[2]
    tree = _added(value, schema) if before is None else _present(before, value, schema)
    if len(_SUBTREES) >= _MAX_SUBTREES:
        _SUBTREES.clear()
    _SUBTREES[key] = (before, schema, tree)
    return tree


def _added(value: Any, schema: PatchSchema) -> dict:
    """The tree of a value the live object lacks: the node and everything in it are members."""
    if type(value) in _SCALARS or not value:
        return {}
    handler = handler_of(value, schema)
    if handler == "map":
        if not isinstance(value, dict) or schema.map_type == "atomic":
            return {}
        out: dict = {".": {}}
        for k in sorted(value):
            v = value[k]
            out["f:" + k] = {} if type(v) in _SCALARS or not v else _added(v, schema.field(k) or UNTYPED)
        return out
    if handler == "list":
        return _list_tree(None, value, schema, member=True)
    return {}


def _present(before: Any, value: Any, schema: PatchSchema) -> dict | None:
    """The tree of a value the live object has too (``before``): None when nothing changed, ``{}`` for a
    changed leaf, else the changed contents (the node itself is not a member)."""
    if before is value or (type(before) is type(value) and before == value and json_equal(before, value)):
        return None
    handler = handler_of(value, schema)
    if handler != handler_of(before, schema) or handler == "scalar":
        return {}
    if handler == "map":
        left = before if isinstance(before, dict) else None
        right = value if isinstance(value, dict) else None
        if schema.map_type == "atomic" or (not left and not right):
            return {}
        if not right:
            return None  # only removals
        left = left or {}
        out: dict = {}
        for k in sorted(right):
            child = schema.field(k) or UNTYPED
            sub = _added(right[k], child) if k not in left else _present(left[k], right[k], child)
            if sub is not None:
                out["f:" + k] = sub
        return out or None
    return _list_tree(before, value, schema, member=False)


def _list_tree(before: Any, value: Any, schema: PatchSchema, *, member: bool) -> dict | None:
    kind = fieldpath.list_kind(schema)
    left = before if isinstance(before, list) else None
    right = value if isinstance(value, list) else None
    if kind == "atomic" or (not left and not right):
        return {} if member or not json_equal(before, value) else None
    if not right:
        return {} if member else None
    right_pes = item_elements(right, schema, kind)
    left_pes = item_elements(left, schema, kind) if left else []
    if right_pes is None or left_pes is None:
        return {} if member or not json_equal(before, value) else None  # smd refuses such a list
    old: dict[str, list] = {}
    for pe, item in zip(left_pes, left or (), strict=True):
        old.setdefault(pe, []).append(item)
    new: dict[str, list] = {}
    for pe, item in zip(right_pes, right, strict=True):
        new.setdefault(pe, []).append(item)
    item_schema = schema.item()
    children: dict[str, dict] = {}
    for pe, items in new.items():
        previous = old.get(pe, ())
        if len(items) >= 2:
            # Duplicated items compare as one atomic value (smd visitListItems).
            if len(previous) < 2 or not json_equal(previous, items):
                children[pe] = {}
        elif len(previous) == 1:
            sub = _present(previous[0], items[0], item_schema)
            if sub is not None:
                children[pe] = sub
        else:
            children[pe] = _added(items[0], item_schema)
    out: dict = {".": {}} if member else {}
    for pe in sorted(children, key=fieldpath.element_key):
        out[pe] = children[pe]
    return out if out else None


def compare(old: dict, new: dict, schema: PatchSchema | None) -> Comparison:
    """``old.Compare(new)`` of two versions of an object, their managedFields left out.

    Walks both objects' top level and metadata key by key (managedFields skipped where it is, no copy made) and
    hands every value that differs to smd's comparison (typed.compare_unequal); equal subtrees are skipped
    whole, so the cost follows the size of the change: this runs on every write the store commits."""
    cmp = Comparison(set(), set(), set())
    _compare_object(old, new, schema or UNTYPED, (), cmp)
    for found in (cmp.added, cmp.removed, cmp.modified):
        found.discard(())
    return cmp


def _compare_object(old: dict, new: dict, schema: PatchSchema, prefix: Path, cmp: Comparison) -> None:
    in_metadata = bool(prefix)
    for key, value in new.items():
        if in_metadata and key == "managedFields":
            continue
        before = old.get(key, ABSENT)
        if before is value or (type(before) is type(value) and value == before):
            continue
        child = schema.field(key) or UNTYPED
        path = (*prefix, "f:" + key)
        if (key == "metadata" and not prefix and type(before) is dict and type(value) is dict and before and value
                and child.map_type != "atomic" and handler_of(value, child) == "map"):
            _compare_object(before, value, child, path, cmp)
        elif key == "metadata" and not prefix:
            compare_unequal(_without_managed_fields_meta(before), _without_managed_fields_meta(value), child, path,
                            cmp)
        else:
            compare_unequal(before, value, child, path, cmp)
    for key in old.keys() - new.keys():  # into a set: the order does not matter
        if in_metadata and key == "managedFields":
            continue
        value = old[key]
        if key == "metadata" and not prefix:
            value = _without_managed_fields_meta(value)
        compare_unequal(value, ABSENT, schema.field(key) or UNTYPED, (*prefix, "f:" + key), cmp)


def _without_managed_fields_meta(meta: Any) -> Any:
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return meta
    return {k: v for k, v in meta.items() if k != "managedFields"}


def taken_paths(cmp: Comparison) -> set[Path]:
    """What the writer takes: added and modified paths, less the stripped ones."""
    return (cmp.added | cmp.modified) - fieldpath.STRIPPED
