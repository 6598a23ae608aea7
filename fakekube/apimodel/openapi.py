"""OpenAPI component schemas of built-in types (v3 and v2 dialects), from one version's definitions.

kubernetes-validate publishes the upstream definitions rewritten as JSON Schema; this module turns them back
into what kube-apiserver serves under ``/openapi/v3/...`` (``components.schemas``) and ``/openapi/v2``
(``definitions``):

- optional fields' ``"type": ["string", "null"]`` becomes ``"type": "string"``;
- a reference with siblings (a field's description, its patch strategy) becomes ``allOf: [{$ref}]`` with
  the siblings beside it in v3, as kube-openapi writes it; v2 keeps ``$ref`` with its siblings;
- IntOrString and Quantity get their upstream shapes (``format: int-or-string``; ``oneOf`` in v3, plain
  ``string`` in v2);
- the ``enum`` kubernetes-validate adds to ``apiVersion`` and ``kind`` of each kind is dropped (upstream has
  none); everything else — descriptions, ``required``, GVK, patch and list extensions — is served as it is.

``closure`` collects every definition a set of roots needs, which is what one group-version document holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from fakekube.apimodel.definitions import Definitions, definitions, schema_types
from fakekube.apimodel.versions import KubernetesVersion

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
OBJECT_META = META + "ObjectMeta"
LIST_META = META + "ListMeta"
STATUS = META + "Status"
DELETE_OPTIONS = META + "DeleteOptions"
PATCH = META + "Patch"
WATCH_EVENT = META + "WatchEvent"
# What every group-version document refers to from its paths, whatever its kinds.
COMMON = (STATUS, DELETE_OPTIONS, PATCH, WATCH_EVENT, OBJECT_META, LIST_META)

_PREFIX = {"v3": "#/components/schemas/", "v2": "#/definitions/"}
_JSON_SCHEMA_REF = "#/$defs/"


def _special(name: str, schema: dict[str, Any], dialect: str) -> dict[str, Any] | None:
    description = {"description": schema["description"]} if "description" in schema else {}
    if name == INT_OR_STRING:
        if dialect == "v2":
            return {**description, "type": "string", "format": "int-or-string"}
        return {**description, "format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]}
    if name == QUANTITY:
        if dialect == "v2":
            return {**description, "type": "string"}
        return {**description, "oneOf": [{"type": "string"}, {"type": "number"}]}
    return None


def _convert(schema: Any, dialect: str, *, field: bool) -> Any:
    """One schema node; ``field``: it is a property, item or map value (where references get siblings)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    ref = schema.get("$ref")
    for key, value in schema.items():
        if key == "$ref":
            continue
        if key == "type":
            types = sorted(schema_types(schema))
            if len(types) == 1:
                out["type"] = types[0]
            elif types:
                out["type"] = types
        elif key == "properties":
            out[key] = {name: _convert(prop, dialect, field=True) for name, prop in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _convert(value, dialect, field=True)
        elif key in ("oneOf", "anyOf", "allOf"):
            out[key] = [_convert(v, dialect, field=False) for v in value]
        else:
            out[key] = value
    if isinstance(ref, str) and ref.startswith(_JSON_SCHEMA_REF):
        target = {"$ref": _PREFIX[dialect] + ref[len(_JSON_SCHEMA_REF):]}
        if not out:
            return target
        if dialect == "v3" and field:
            return {"allOf": [target], **out}
        return {**target, **out}
    return out


def component(defs: Definitions, name: str, dialect: str = "v3") -> dict[str, Any]:
    """The served form of definition ``name`` in ``dialect`` (``v3`` or ``v2``)."""
    schema = defs[name]
    special = _special(name, schema, dialect)
    if special is not None:
        return special
    converted = _convert(schema, dialect, field=False)
    if schema.get("x-kubernetes-group-version-kind"):
        for prop in ("apiVersion", "kind"):
            node = converted.get("properties", {}).get(prop)
            if isinstance(node, dict):
                node.pop("enum", None)
    return converted


def references(schema: Any) -> Iterable[str]:
    """Every definition ``schema`` (in kubernetes-validate's form) refers to directly."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(_JSON_SCHEMA_REF):
            yield ref[len(_JSON_SCHEMA_REF):]
        for key, value in schema.items():
            if key != "$ref":
                yield from references(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from references(value)


@cache
def _direct(version: KubernetesVersion, name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(references(definitions(version)[name])))


def closure(version: KubernetesVersion, roots: Iterable[str]) -> list[str]:
    """``roots`` and every definition they need, each once, sorted (as kube-openapi orders components)."""
    defs = definitions(version)
    seen: set[str] = set()
    todo = [r for r in roots if r in defs]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(n for n in _direct(version, name) if n not in seen)
    return sorted(seen)


def list_definition(version: KubernetesVersion, definition: str) -> str | None:
    """The ``<Kind>List`` definition next to a kind's (``io.k8s.api.apps.v1.DeploymentList``)."""
    name = definition + "List"
    return name if name in definitions(version) else None
