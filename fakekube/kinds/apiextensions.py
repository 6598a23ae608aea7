"""apiextensions.k8s.io/v1 kinds (apiextensions-apiserver ``pkg/registry/customresourcedefinition``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fakekube import errors
from fakekube.errors import FieldError
from fakekube.goregexp import syntax_error
from fakekube.strategies import StatusStrategy, Strategy

# JSONSchemaProps members that hold schemas: one schema, a list of them, or a map of them.
_ONE = ("not",)
_LIST = ("allOf", "anyOf", "oneOf")
_MAP = ("properties", "patternProperties", "definitions")


class CrdStrategy(StatusStrategy):
    """``strategy.go``: generation on spec changes and, like custom resources, no update without a
    resourceVersion; validation of the schemas' ``pattern`` regular expressions (``validation.go``)."""

    tracks_generation = True
    allow_unconditional_update = False

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return pattern_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any], subresource: str | None) -> list[FieldError]:
        return pattern_errors(new) if subresource is None else []


def pattern_errors(crd: dict[str, Any]) -> list[FieldError]:
    """Every ``pattern`` Go's ``regexp`` does not compile (observed on kube-apiserver v1.37.2: ``spec.validation.
    openAPIV3Schema.properties[spec].properties[s].pattern: Invalid value: "(": must be a valid regular
    expression, but isn't: error parsing regexp: missing closing ): `(```). The paths are those of the
    internal CRD: one schema shared by every version is ``spec.validation``, else each version's own."""
    spec = crd.get("spec")
    versions = spec.get("versions") if isinstance(spec, dict) else None
    if not isinstance(versions, list):
        return []
    schemas = [(v.get("schema") or {}).get("openAPIV3Schema") if isinstance(v, dict) and isinstance(v.get("schema"), dict)
               else None for v in versions]
    if schemas and all(schema == schemas[0] for schema in schemas):
        roots = [("spec.validation.openAPIV3Schema", schemas[0])]
    else:
        roots = [(f"spec.versions[{i}].schema.openAPIV3Schema", schema) for i, schema in enumerate(schemas)]
    found = []
    for root, schema in roots:
        for path, node in _schemas(schema, root):
            pattern = node.get("pattern")
            if isinstance(pattern, str):
                problem = syntax_error(pattern)
                if problem is not None:
                    found.append(errors.invalid(f"{path}.pattern", pattern,
                                                f"must be a valid regular expression, but isn't: {problem}"))
    return found


def _schemas(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    yield path, node
    for key in _ONE:
        yield from _schemas(node.get(key), f"{path}.{key}")
    for key in _LIST:
        for i, child in enumerate(node.get(key) or () if isinstance(node.get(key), list) else ()):
            yield from _schemas(child, f"{path}.{key}[{i}]")
    for key in _MAP:
        children = node.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from _schemas(child, f"{path}.{key}[{name}]")
    items = node.get("items")
    if isinstance(items, list):
        for i, child in enumerate(items):
            yield from _schemas(child, f"{path}.items[{i}]")
    else:
        yield from _schemas(items, f"{path}.items")
    yield from _schemas(node.get("additionalProperties"), f"{path}.additionalProperties")


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "CustomResourceDefinition": CrdStrategy,
}
