"""The text of a JSON or merge patch's result as kube-apiserver quotes it in a 422 on ``patch``.

The server encodes the object (Go's encoder: struct fields in declaration order, map keys sorted), patches
the bytes with evanphx/json-patch v4 and quotes what that writes (apiserver
``pkg/endpoints/handlers/patch.go``). evanphx parses only what it has to: every object it parses is written
back with its keys sorted, everything else keeps the bytes it had. So:

- the top-level object is always sorted;
- a merge patch parses (and sorts) every object it merges into, and every object value it adds (to drop
  its nulls); a JSON patch parses the containers on each operation's path, and writes the values it adds
  as the patch spelled them;
- what neither touched keeps Go's encoding of the stored object: structs in their fields' declaration order
  (``go_field_order.json``, generated from the Go types by scripts/generate_go_field_order.py), maps sorted.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from fakekube.errors import go_json
from fakekube.patch.schema import PatchSchema

# metav1.ObjectMeta's fields in declaration order (apimachinery pkg/apis/meta/v1/types.go).
OBJECT_META_ORDER = {name: i for i, name in enumerate((
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields"))}

_GO_FIELD_ORDER = Path(__file__).with_name("go_field_order.json")

_SORT = "sort"  # a node evanphx parsed: its keys sorted, its children decided one by one
_SORT_ALL = "sort-all"  # an object a merge patch added: sorted all the way down
_RAW = "raw"  # a value a JSON patch wrote as the patch spelled it


def patched_json(patched: Any, patch: Any, patch_type: str, schema: PatchSchema | None,
                 custom: bool = False) -> str:
    """The patched document's text in the server's 422 (``patch`` is the decoded patch document). A custom
    resource is stored unstructured, a map all the way down, which Go's encoder writes with its keys sorted."""
    if custom:
        touched: Any = _SORT_ALL
    elif patch_type.startswith("application/merge-patch"):
        touched = _merge_touched(patch)
    else:
        touched = _json_patch_touched(patch)
    # Go's encoder escapes <, > and & (and U+2028/9) everywhere: in the stored object's bytes and in what
    # evanphx writes again. (Not in a value a JSON patch wrote as the patch spelled it: rare, not told apart.)
    return go_json(_order(patched, schema, touched), sort_keys=False)


def _merge_touched(patch: Any) -> Any:
    if not isinstance(patch, dict):
        return _SORT_ALL
    return {key: (_merge_touched(value) if isinstance(value, dict) else _SORT_ALL) for key, value in patch.items()}


def _json_patch_touched(ops: Any) -> Any:
    trie: dict[str, Any] = {}
    for op in ops if isinstance(ops, list) else ():
        if not isinstance(op, dict):
            continue
        for field in ("path", "from"):
            path = op.get(field)
            if not isinstance(path, str) or not path.startswith("/"):
                continue
            parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
            node = trie
            for part in parts[:-1]:
                child = node.get(part)
                if not isinstance(child, dict):
                    child = node[part] = {}
                node = child
            if field == "path" and parts[-1] not in node:
                node[parts[-1]] = _RAW
    return trie


def _order(value: Any, schema: PatchSchema | None, touched: Any) -> Any:
    if isinstance(value, dict):
        if touched == _RAW:
            return value
        if touched == _SORT_ALL or isinstance(touched, dict) or (schema is not None and schema.kind == "map"):
            keys = sorted(value)
        elif schema is not None and schema.kind == "object" and (order := _go_order(schema, value)):
            keys = sorted(value, key=lambda k: order.get(k, len(order)))
        else:
            keys = list(value)
        out = {}
        for key in keys:
            child_touched = touched if touched == _SORT_ALL else (touched.get(key) if isinstance(touched, dict)
                                                                    else None)
            child = schema.field(key) if schema is not None else None
            out[key] = _order(value[key], child, child_touched)
        return out
    if isinstance(value, list):
        if touched == _RAW:
            return value
        item = schema.item() if schema is not None and schema.kind == "list" else None
        return [_order(element, item, touched if touched == _SORT_ALL else
                       (touched.get(str(i)) if isinstance(touched, dict) else None))
                for i, element in enumerate(value)]
    return value


@cache
def _go_tables() -> dict[str, Any]:
    return json.loads(_GO_FIELD_ORDER.read_text())


def _go_order(schema: PatchSchema, value: dict[str, Any]) -> dict[str, int] | None:
    """The field positions of the schema's Go struct: by its definition where structs of its short name differ
    (discovery's ``EndpointPort`` and core's), else of the structs so named the first that declares every key
    of ``value`` (``Subject`` is both rbac's and flowcontrol's)."""
    tables = _go_tables()
    chosen = tables["qualified"].get(schema.definition) if schema.definition else None
    if chosen is None:
        orders = tables["structs"].get(schema.name)
        if not orders:
            return None
        chosen = next((o for o in orders if set(value) <= set(o)), orders[0])
    return {name: i for i, name in enumerate(chosen)}
