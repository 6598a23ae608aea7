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


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def key_element(item: dict, keys: Iterable[str]) -> str:
    return "k:" + _dumps({k: item[k] for k in keys if k in item})


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


def schema_at(schema: PatchSchema | None, path: Path) -> PatchSchema:
    node = schema or UNTYPED
    for pe in path:
        node = (node.field(pe[2:]) or UNTYPED) if pe.startswith("f:") else node.item()
    return node


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


def to_fields_v1(paths: Iterable[Path]) -> dict:
    """Encode a field set as a FieldsV1 tree (``"."`` marks a member that also has children)."""
    members = set(paths)
    tree: dict = {}
    for p in members:
        node = tree
        for pe in p:
            node = node.setdefault(pe, {})
    for p in members:
        node = tree
        for pe in p:
            node = node[pe]
        if node and "." not in node:
            node["."] = {}
    return _sorted_tree(tree)


def _sorted_tree(tree: dict) -> dict:
    out: dict = {}
    if "." in tree:
        out["."] = {}
    for pe in sorted((k for k in tree if k != "."), key=_pe_sort_key):
        out[pe] = _sorted_tree(tree[pe])
    return out


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
