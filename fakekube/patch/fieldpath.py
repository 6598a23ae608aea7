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

# The fields stripped from the set of the manager a write records (apimachinery
# pkg/util/managedfields/internal/stripmeta.go): type meta, the metadata struct itself and the metadata the
# server owns. generateName, deletionTimestamp and deletionGracePeriodSeconds are not among them: a create
# that sets only generateName is recorded as owning ``f:metadata.f:generateName``.
STRIPPED: frozenset[Path] = frozenset(
    {("f:apiVersion",), ("f:kind",), ("f:metadata",)}
    | {
        ("f:metadata", f"f:{name}")
        for name in (
            "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
            "managedFields", "resourceVersion",
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


def _pe_sort_key(pe: str) -> tuple[Any, ...]:
    """smd ``PathElement.Compare``: field names, then keys, then values, then indices. Keys compare as their
    sorted field lists (name, then value), values with ``value.Compare`` (numbers numerically, then strings,
    booleans, lists, maps, null), so ``k:{"port":80}`` comes before ``k:{"port":443}``."""
    kind, body = pe[:2], pe[2:]
    if kind == "f:":
        return (0, body)
    try:
        if kind == "k:":
            fields = json.loads(body)
            if isinstance(fields, dict):
                return (1, tuple((name, _value_key(fields[name])) for name in sorted(fields)))
        elif kind == "v:":
            return (2, _value_key(json.loads(body)))
        elif kind == "i:":
            return (3, int(body))
    except ValueError:
        pass
    return (4, pe)  # not an element this module writes: after every other, in text order


def _value_key(value: Any) -> tuple[Any, ...]:
    """smd ``value.Compare`` as a sort key (numbers < strings < booleans < lists < maps < null)."""
    if value is None:
        return (5,)
    if value is True or value is False:
        return (2, int(value))
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(_value_key(v) for v in value))
    if isinstance(value, dict):
        return (4, tuple((k, _value_key(value[k])) for k in sorted(value)))
    return (6, str(value))


_ELEMENT_KEYS: dict[str, tuple[Any, ...]] = {}


def _element_key(pe: str) -> tuple[Any, ...]:
    key = _ELEMENT_KEYS.get(pe)
    if key is None:
        if len(_ELEMENT_KEYS) > 100_000:  # bounded: element strings repeat across objects of a kind
            _ELEMENT_KEYS.clear()
        key = _ELEMENT_KEYS[pe] = _pe_sort_key(pe)
    return key


element_key = _element_key  # the sort key of one path element (FieldsV1 order)


def _path_key(path: Path) -> tuple[tuple[Any, ...], ...]:
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
    previous: tuple[Any, ...] | None = None
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


def decode_fields_v1(tree: Any) -> set[Path] | None:
    """``FieldsToSet``: the field set a FieldsV1 tree a client sent encodes, or None when it is not one (a
    value that is not an object, a ``"."`` that is not empty, an element that does not parse)."""
    if not isinstance(tree, dict):
        return None
    out: set[Path] = set()
    stack: list[tuple[Path, dict]] = [((), tree)]
    while stack:
        prefix, node = stack.pop()
        for pe, sub in node.items():
            if not isinstance(sub, dict):
                return None
            if pe == ".":
                if sub or not prefix:
                    return None
                out.add(prefix)
                continue
            if not _valid_element(pe):
                return None
            path = (*prefix, pe)
            if sub:
                stack.append((path, sub))
            else:
                out.add(path)
    return out


def _valid_element(pe: Any) -> bool:
    if not isinstance(pe, str) or len(pe) < 2 or pe[1] != ":":
        return False
    kind, body = pe[0], pe[2:]
    if kind == "f":
        return True
    try:
        value = json.loads(body)
    except ValueError:
        return False
    if kind == "k":
        return isinstance(value, dict) and bool(value)
    if kind == "i":
        return type(value) is int and value >= 0
    return kind == "v"


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


def iteration_order(paths: Iterable[Path]) -> list[Path]:
    """The paths in smd ``Set.Iterate`` order: at each level the members first, then the children's paths,
    each group in element order (so ``.spec.b`` comes before ``.spec.a.x``)."""
    members: list[str] = []
    children: dict[str, list[Path]] = {}
    for path in paths:
        if len(path) == 1:
            members.append(path[0])
        elif path:
            children.setdefault(path[0], []).append(path[1:])
    out: list[Path] = [(pe,) for pe in sorted(set(members), key=_element_key)]
    for pe in sorted(children, key=_element_key):
        out.extend((pe, *rest) for rest in iteration_order(children[pe]))
    return out


# -- FieldsV1 trees edited in place of path sets (the store's per-write hot path) -----------------------


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
