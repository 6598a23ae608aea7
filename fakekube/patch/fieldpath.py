"""Field sets: which fields of an object a manager owns, in the FieldsV1 vocabulary.

A path is a tuple of path elements written as in FieldsV1 (structured-merge-diff ``fieldpath``):
``"f:<field>"`` (struct field or map key), ``'k:{"name":"c"}'`` (item of a list-map, by its keys),
``'v:"x"'`` (item of a set), ``"i:0"`` (item by index). A field set is a ``set`` of such paths whose
members are the leaves a writer set (scalars, atomic values, empty maps) plus list-map/set items.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fakekube.jsonvalues import encode_json
from fakekube.patch.schema import UNTYPED, PatchSchema

Path = tuple[str, ...]

# Fields the field manager never tracks (apimachinery pkg/util/managedfields/internal/stripmeta.go).
STRIPPED: frozenset[Path] = frozenset(
    {("f:apiVersion",), ("f:kind",), ("f:metadata",)}
    | {
        ("f:metadata", f"f:{name}")
        for name in (
            "name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "selfLink",
            "managedFields", "deletionTimestamp", "deletionGracePeriodSeconds", "generateName",
        )
    }
)
# The metadata fields of STRIPPED (those no manager owns), by name.
STRIPPED_META_FIELDS = frozenset(path[1][2:] for path in STRIPPED if len(path) == 2)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


_KEY_ELEMENTS: dict[tuple[Any, ...], str] = {}
_SCALARS = frozenset((str, int, float, bool, type(None)))


def key_element(item: dict, keys: Iterable[str]) -> str:
    # Key values repeat across the objects of a kind (container and env names...), so the encoded element is
    # memoised for scalar keys; the cache is bounded and cleared when full.
    if type(keys) is tuple and len(keys) == 1 and keys[0] in item:  # most list maps have one key
        value = item[keys[0]]
        if type(value) in _SCALARS:
            element = _KEY_ELEMENTS.get(((keys[0], type(value), value),))
            if element is not None:
                return element
    present = tuple((k, item[k]) for k in keys if k in item)
    if all(type(v) in _SCALARS for _, v in present):
        cache_key = tuple((k, type(v), v) for k, v in present)
        element = _KEY_ELEMENTS.get(cache_key)
        if element is None:
            if len(_KEY_ELEMENTS) > 50_000:
                _KEY_ELEMENTS.clear()
            element = _KEY_ELEMENTS[cache_key] = "k:" + _dumps(dict(present))
        return element
    return "k:" + _dumps(dict(present))


def value_element(value: Any) -> str:
    return "v:" + _dumps(value)


def list_kind(schema: PatchSchema) -> str:
    return schema.ssa_list_type if schema.kind == "list" else "atomic"


def field_set(obj: dict, schema: PatchSchema | None) -> set[Path]:
    """The set of fields present in ``obj`` (apiVersion/kind and server-owned metadata excluded)."""
    out: set[Path] = set()
    _walk_map(obj, schema or UNTYPED, (), out)
    return {p for p in out if p not in STRIPPED}


def _walk_map(value: dict, schema: PatchSchema, prefix: Path, out: set[Path]) -> None:
    for k, v in value.items():
        child = schema.field(k) or UNTYPED
        _walk(v, child, (*prefix, "f:" + k), out)


def _walk(value: Any, schema: PatchSchema, path: Path, out: set[Path]) -> None:
    if isinstance(value, dict) and value and schema.kind != "scalar" and schema.map_type != "atomic":
        _walk_map(value, schema, path, out)
    elif isinstance(value, list) and value and list_kind(schema) != "atomic":
        item_schema = schema.item()
        if list_kind(schema) == "set":
            for v in value:
                out.add((*path, value_element(v)))
            return
        keys = schema.ssa_keys
        for item in value:
            if not isinstance(item, dict):
                out.add(path)
                return
            item_path = (*path, key_element(item, keys))
            out.add(item_path)
            _walk_map(item, item_schema, item_path, out)
    else:
        out.add(path)


def ensure_named_parents(paths: Iterable[Path], schema: PatchSchema | None) -> set[Path]:
    """Add the prefixes that end at a struct field (smd ``EnsureNamedFieldsAreMembers``)."""
    out = set(paths)
    for p in list(out):
        node = schema or UNTYPED
        for i, pe in enumerate(p[:-1]):
            if pe.startswith("f:") and node.is_struct:
                out.add(p[: i + 1])
            node = (node.field(pe[2:]) or UNTYPED) if pe.startswith("f:") else node.item()
    return out


# -- reading and removing values -------------------------------------------------------------------
_MISSING: Any = object()


def _match(container: Any, pe: str) -> tuple[Any, Any]:
    """(key or index, value) addressed by one path element in ``container``, or (None, _MISSING)."""
    kind, body = pe[:2], pe[2:]
    if kind == "f:":
        if isinstance(container, dict) and body in container:
            return body, container[body]
        return None, _MISSING
    if not isinstance(container, list):
        return None, _MISSING
    if kind == "i:":
        idx = int(body)
        return (idx, container[idx]) if 0 <= idx < len(container) else (None, _MISSING)
    wanted = json.loads(body)
    for i, item in enumerate(container):
        if kind == "v:" and _dumps(item) == _dumps(wanted):
            return i, item
        if kind == "k:" and isinstance(item, dict) and all(
            k in item and _dumps(item[k]) == _dumps(v) for k, v in wanted.items()
        ):
            return i, item
    return None, _MISSING


def get_path(obj: Any, path: Path) -> Any:
    node = obj
    for pe in path:
        _, node = _match(node, pe)
        if node is _MISSING:
            return _MISSING
    return node


def remove_path(obj: Any, path: Path) -> bool:
    """Remove the value at ``path`` from ``obj`` in place; ``False`` when it was not there."""
    node = obj
    for pe in path[:-1]:
        _, node = _match(node, pe)
        if node is _MISSING:
            return False
    key, value = _match(node, path[-1])
    if value is _MISSING:
        return False
    del node[key]
    return True


# -- FieldsV1 ------------------------------------------------------------------------------------------
_ORDER = {"f": 0, "v": 1, "k": 2, "i": 3}


def _pe_sort_key(pe: str) -> tuple[int, str]:
    return (_ORDER.get(pe[0], 9), pe[2:])


_ELEMENT_KEYS: dict[str, tuple[int, str]] = {}


def _element_key(pe: str) -> tuple[int, str]:
    key = _ELEMENT_KEYS.get(pe)
    if key is None:
        if len(_ELEMENT_KEYS) > 100_000:  # bounded: element strings repeat across objects of a kind
            _ELEMENT_KEYS.clear()
        key = _ELEMENT_KEYS[pe] = _pe_sort_key(pe)
    return key


def _path_key(path: Path) -> tuple[tuple[int, str], ...]:
    return tuple(map(_element_key, path))


def to_fields_v1(paths: Iterable[Path]) -> dict:
    """Encode a field set as a FieldsV1 tree (``"."`` marks a member that also has children).

    Paths are inserted in sorted order, so every level of the tree comes out sorted without re-sorting,
    and a member is seen before its children, so its ``"."`` marker can go first.
    """
    tree: dict = {}
    members: set[int] = set()
    for path in sorted(set(paths), key=_path_key):
        node = tree
        for pe in path:
            child = node.get(pe)
            if child is None:
                if id(node) in members and not node:
                    node["."] = {}
                child = node[pe] = {}
            node = child
        members.add(id(node))
    return tree


# Trees known to be canonical, by their JSON: every apply checks every manager's tree, and most are the ones
# the previous write kept. The bytes fix the tree exactly (keys, their order, and that every value is an
# object); bounded.
_CANONICAL_TREES: set[bytes] = set()
_MAX_CANONICAL_TREES = 2048


# Trees of stored objects found canonical, by identity: a stored object is never changed, so neither is a tree
# it holds, and the tree a write keeps is the very object the next write reads. Each is kept alive here, so its
# id cannot name another tree while it is remembered; bounded (the trees a store holds now, more or less).
_FROZEN_CANONICAL: dict[int, dict] = {}
_MAX_FROZEN_TREES = 1024


def is_canonical_tree(tree: Any, *, frozen: bool = False) -> bool:
    """Whether ``tree`` is ``to_fields_v1(from_fields_v1(tree))`` (what this module writes): every level's
    elements strictly sorted, ``"."`` first and only beside children. A manager's tree that is can be kept
    and edited as it is instead of being decoded and encoded again. ``frozen``: the caller guarantees that
    ``tree`` is never changed (it belongs to a stored object), so a tree seen before needs no look."""
    if type(tree) is not dict:
        return False
    if frozen and _FROZEN_CANONICAL.get(id(tree)) is tree:
        return True
    text = encode_json(tree)
    if text is not None and text in _CANONICAL_TREES:
        canonical = True
    else:
        canonical = _is_canonical(tree)
        if canonical and text is not None:
            if len(_CANONICAL_TREES) >= _MAX_CANONICAL_TREES:
                _CANONICAL_TREES.clear()
            _CANONICAL_TREES.add(text)
    if canonical and frozen:
        if len(_FROZEN_CANONICAL) >= _MAX_FROZEN_TREES:
            _FROZEN_CANONICAL.clear()
        _FROZEN_CANONICAL[id(tree)] = tree
    return canonical


def _is_canonical(tree: dict) -> bool:
    previous: tuple[int, str] | None = None
    first = True
    for pe, child in tree.items():
        if type(child) is not dict:
            return False
        if pe == ".":
            if not first or child or len(tree) == 1:
                return False
        else:
            if type(pe) is not str or not pe:
                return False
            key = _element_key(pe)
            if previous is not None and key <= previous:
                return False
            previous = key
            if child and not _is_canonical(child):
                return False
        first = False
    return True


def tree_has(tree: dict, path: Path) -> bool:
    """Whether ``path`` is a member of the field set a canonical FieldsV1 ``tree`` encodes."""
    node = tree
    for pe in path:
        node = node.get(pe)
        if node is None:
            return False
    return not node or "." in node


def from_fields_v1(tree: dict, prefix: Path = ()) -> set[Path]:
    out: set[Path] = set()
    for pe, sub in tree.items():
        if pe == ".":
            out.add(prefix)
            continue
        path = (*prefix, pe)
        if not sub:
            out.add(path)
        else:
            out |= from_fields_v1(sub, path)
    return out


def path_string(path: Path) -> str:
    """smd ``Path.String()``: ``.spec.replicas``, ``.spec.containers[name="c"].image``, ``[=x]``."""
    parts = []
    for pe in path:
        kind, body = pe[:2], pe[2:]
        if kind == "f:":
            parts.append("." + body)
        elif kind == "k:":
            keys = json.loads(body)
            parts.append("[" + ",".join(f"{k}={_dumps(v)}" for k, v in keys.items()) + "]")
        elif kind == "v:":
            parts.append("[=" + body + "]")
        else:
            parts.append("[" + body + "]")
    return "".join(parts)


def path_sort_key(path: Path) -> tuple:
    return tuple(_pe_sort_key(pe) for pe in path)


# -- FieldsV1 trees edited in place of path sets (the store's per-write hot path) -----------------------


def object_tree(obj: dict, schema: PatchSchema | None) -> dict:
    """``to_fields_v1(field_set(obj, schema))`` built in one walk of the object.

    The subtrees of top-level fields other than metadata (``spec``, ``status``, ...) are remembered by their
    JSON text: objects of a kind are often made from one template, and a tree depends only on the value and
    its schema. Trees are never edited in place (``tree_add``/``tree_remove`` copy what they change), so a
    remembered subtree is shared by every object whose managedFields hold it.
    """
    schema = schema or UNTYPED
    tree: dict = {}
    for k in sorted(obj):
        v = obj[k]
        if type(v) in _SCALARS or not v:
            tree["f:" + k] = {}
        elif k == "metadata":
            # Only an object's metadata has the fields no manager owns (STRIPPED): they are left out before the
            # walk (a tree of any other value names no ``f:`` fields at its top).
            if isinstance(v, dict):
                v = {mk: mv for mk, mv in v.items() if mk not in STRIPPED_META_FIELDS}
            tree["f:" + k] = _value_tree(v, schema.field(k) or UNTYPED) if v else {}
        else:
            tree["f:" + k] = _remembered_tree(v, schema.field(k) or UNTYPED)
    tree.pop("f:apiVersion", None)
    tree.pop("f:kind", None)
    if not tree.get("f:metadata", True):
        del tree["f:metadata"]
    return tree


_SUBTREES: dict[bytes, tuple[PatchSchema, dict]] = {}


def _remembered_tree(value: Any, schema: PatchSchema) -> dict:
    text = encode_json(value)
    if text is None or len(text) > 16_384:  # a large value is rarely repeated: not worth its memory
        return _value_tree(value, schema)
    known = _SUBTREES.get(text)
    if known is not None and known[0] is schema:
        return known[1]
    tree = _value_tree(value, schema)
    if len(_SUBTREES) > 2_000:  # bounded (at most ~32 MB): the shapes of a run's templates, not every object
        _SUBTREES.clear()
    _SUBTREES[text] = (schema, tree)
    return tree


def _map_tree(value: dict, schema: PatchSchema) -> dict:
    out: dict = {}
    for k in sorted(value):
        v = value[k]
        # Scalars and empty containers are leaves whatever the schema says: no lookup needed.
        out["f:" + k] = {} if type(v) in _SCALARS or not v else _value_tree(v, schema.field(k) or UNTYPED)
    return out


def _value_tree(value: Any, schema: PatchSchema) -> dict:
    if isinstance(value, dict) and value and schema.kind != "scalar" and schema.map_type != "atomic":
        return _map_tree(value, schema)
    if isinstance(value, list) and value and list_kind(schema) != "atomic":
        if list_kind(schema) == "set":
            return {pe: {} for pe in sorted({value_element(v) for v in value}, key=_element_key)}
        if not all(isinstance(item, dict) for item in value):
            return {}
        item_schema = schema.item()
        keys = schema.ssa_keys
        trees: dict[str, dict] = {}
        for item in value:
            pe = key_element(item, keys)
            tree = _map_tree(item, item_schema)
            # Items sharing a key (duplicate env names, say) contribute the union of their fields.
            trees[pe] = _union(trees[pe], tree) if pe in trees else tree
        out: dict = {}
        for pe in sorted(trees, key=_element_key):
            children = trees[pe]
            out[pe] = {".": {}, **children} if children else {}
        return out
    return {}


def _union(a: dict, b: dict) -> dict:
    """Two FieldsV1 subtrees merged, sorted like the rest of the tree."""
    merged = dict(a)
    for pe, sub in b.items():
        merged[pe] = _union(merged[pe], sub) if pe in merged else sub
    return _sorted_node(merged)


def _sorted_node(node: dict) -> dict:
    ordered = {".": {}} if "." in node else {}
    for pe in sorted((k for k in node if k != "."), key=_element_key):
        ordered[pe] = node[pe]
    return ordered


def tree_remove(tree: dict, paths: Iterable[Path]) -> dict:
    """A copy of ``tree`` without ``paths`` (copy-on-write: untouched subtrees are shared)."""
    result = tree
    for path in paths:
        result = _remove_one(result, path)
    return result


def _remove_one(node: dict, path: Path) -> dict:
    head = path[0]
    child = node.get(head)
    if child is None:
        return node
    out = dict(node)
    if len(path) == 1:
        if child and set(child) != {"."}:
            rest = {k: v for k, v in child.items() if k != "."}  # a member with children stays a container
            out[head] = rest
        else:
            del out[head]
    else:
        new_child = _remove_one(child, path[1:])
        if new_child is child:
            return node
        if not new_child:
            del out[head]
        elif set(new_child) == {"."}:
            out[head] = {}
        else:
            out[head] = new_child
    return out


def tree_add(tree: dict, paths: Iterable[Path]) -> dict:
    """A copy of ``tree`` with ``paths`` as members, every touched level kept sorted."""
    result = tree
    for path in sorted(paths, key=_path_key):
        result = _add_one(result, path)
    return result


def _add_one(node: dict, path: Path) -> dict:
    head = path[0]
    child = node.get(head)
    if len(path) == 1:
        if child is None:
            new_child: dict = {}
        elif child and "." not in child:
            new_child = _sorted_node({".": {}, **child})
        else:
            return node  # already a member: nothing is copied
    else:
        if child is None:
            new_child = _add_one({}, path[1:])
        elif not child:  # a leaf member that now gets children keeps its membership
            new_child = _add_one({".": {}}, path[1:])
        else:
            new_child = _add_one(child, path[1:])
        if new_child is child:
            return node
    out = dict(node)  # copied only on the way to a change
    out[head] = new_child
    return _sorted_node(out) if head not in node else out
