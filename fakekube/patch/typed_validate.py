"""structured-merge-diff's check of a value against its type, which server-side apply runs on the applied
configuration before anything else (``typed/validate.go``, ``typed/helpers.go``; sigs.k8s.io/
structured-merge-diff v6.4.2, vendored by Kubernetes 1.37). What it finds fails the apply with a 500
``failed to create typed patch object (ns/name; group/version, Kind=K): <errors>`` (apimachinery
``managedfields/internal/structuredmerge.go``), where a value of the wrong type would otherwise be dropped.

Each error is a path and a message, in smd's words and with Go's renderings of the value:

- ``.spec.containers: expected list, got &{map[image:x name:a]}`` (a map, list or struct given something
  else; ``%v`` of smd's value);
- ``.data.a: expected string, got &value.valueUnstructured{Value:1}`` (``%#v``), ``.spec.replicas: expected
  numeric (int or float), got string`` (``%T``), ``.immutable: expected boolean, got &{x}`` (``%v``);
- ``.zzz: field not declared in schema`` (the rest of that map is not looked at);
- list items: ``.metadata.finalizers: element 0: associative list without keys has an element that's a map
  type``, ``... with keys may not have non-map elements``, ``duplicate entries for key [name="a"]``.

Go iterates a map in random order, so when a configuration has several errors the real server lists them
(and, after an undeclared field, skips the rest of that map) in an order that changes from run to run; here
they follow the document. Observed on kube-apiserver v1.37.2 (docs/malformed-input.md).
"""

from __future__ import annotations

import json
from typing import Any

from fakekube.gotext import go_float, go_quote
from fakekube.patch.schema import UNTYPED, PatchSchema


def validate(value: Any, schema: PatchSchema) -> list[str]:
    """The errors smd's validation finds in ``value`` (each ``<path>: <message>``), in document order."""
    errors: list[str] = []
    _node(value, schema, "", errors)
    return errors


def _node(value: Any, schema: PatchSchema, path: str, errors: list[str]) -> None:
    kind = schema.kind
    if kind == "scalar":
        message = _scalar(value, schema.scalar)
        if message:
            errors.append(f"{path}: {message}")
    elif kind in ("object", "map"):
        _map(value, schema, path, errors)
    elif kind == "list":
        _list(value, schema, path, errors)
    elif schema.scalar == "map" and value is not None and not isinstance(value, dict):
        errors.append(f"{path}: expected map, got &{{{go_v(value)}}}")
    # otherwise untyped (deduced or not): the value decides its own shape, which is never wrong


def _scalar(value: Any, scalar: str) -> str | None:
    if value is None:
        return None
    if scalar == "numeric":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"expected numeric (int or float), got {go_type(value)}"
    elif scalar == "string":
        if not isinstance(value, str):
            return f"expected string, got &value.valueUnstructured{{Value:{go_sharp_v(value)}}}"
    elif scalar == "boolean":
        if not isinstance(value, bool):
            return f"expected boolean, got &{{{go_v(value)}}}"
    elif isinstance(value, dict | list):
        return f"expected any scalar, got &{{{go_v(value)}}}"
    return None


def _map(value: Any, schema: PatchSchema, path: str, errors: list[str]) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        errors.append(f"{path}: expected map, got &{{{go_v(value)}}}")
        return
    for key, item in value.items():
        if schema.kind == "object":
            child = schema.fields.get(key)
            if child is None:
                if not schema.deduced:
                    errors.append(f"{path}.{key}: field not declared in schema")
                    return  # smd stops walking this map at an undeclared field
                continue
        else:
            child = schema.values or UNTYPED
        _node(item, child, f"{path}.{key}", errors)


def _list(value: Any, schema: PatchSchema, path: str, errors: list[str]) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        errors.append(f"{path}: expected list, got &{{{go_v(value)}}}")
        return
    item_schema = schema.item()
    list_type = schema.ssa_list_type
    seen: set[str] = set()
    for i, item in enumerate(value):
        if list_type == "atomic":
            element = f"[{i}]"
        else:
            try:
                element = _element(item, schema, list_type)
            except ValueError as exc:
                errors.append(f"{path}: element {i}: {exc}")
                return  # without a path element nothing deeper in the list can be reported
            if element in seen:
                errors.append(f"{path}: duplicate entries for key {element}")
            seen.add(element)
        _node(item, item_schema, f"{path}{element}", errors)


def _element(item: Any, schema: PatchSchema, list_type: str) -> str:
    """``listItemToPathElement``'s path element of a set or keyed list item, rendered as smd prints it."""
    if list_type == "set":
        if isinstance(item, dict):
            raise ValueError("associative list without keys has an element that's a map type")
        if isinstance(item, list):
            raise ValueError("not supported: associative list with lists as elements")
        if item is None:
            raise ValueError("associative list without keys has an element that's an explicit null")
        return f"[={_value_string(item)}]"
    if item is None:
        raise ValueError("associative list with keys may not have a null element")
    if not isinstance(item, dict):
        raise ValueError("associative list with keys may not have non-map elements")
    keys = schema.ssa_keys
    defaults = schema.key_defaults or {}
    if defaults and not all(k in item for k in defaults):
        item = {**defaults, **item}  # a key an item leaves out is its schema default (getAssociativeKeyDefault)
    present = sorted(k for k in keys if k in item)
    if keys and not present:
        quoted = "[" + " ".join(json.dumps(k) for k in keys) + "]"
        raise ValueError(f"associative list with keys has an element that omits all key fields {quoted} (and "
                         "doesn't have default values for any key fields)")
    return "[" + ",".join(f"{k}={_value_string(item[k])}" for k in present) + "]"


def _value_string(value: Any) -> str:
    """smd ``value.ToString``: a value as JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# -- Go's renderings of a value decoded from JSON into interface{} -----------------------------------------------


def go_type(value: Any) -> str:
    """``%T``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "<nil>"


def go_v(value: Any) -> str:
    """``%v``: maps as ``map[k:v ...]`` with sorted keys, lists as ``[a b]``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + " ".join(go_v(item) for item in value) + "]"
    return "map[" + " ".join(f"{key}:{go_v(value[key])}" for key in sorted(value)) + "]"


def go_sharp_v(value: Any) -> str:
    """``%#v``: Go syntax (``map[string]interface {}{"b":1}``, ``[]interface {}{1, "a"}``)."""
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_sharp_v(item) for item in value) + "}"
    if isinstance(value, dict):
        return ("map[string]interface {}{" + ", ".join(f"{go_quote(key)}:{go_sharp_v(value[key])}"
                                                       for key in sorted(value)) + "}")
    return go_v(value)
