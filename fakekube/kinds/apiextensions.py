"""apiextensions.k8s.io/v1 kinds (apiextensions-apiserver ``pkg/registry/customresourcedefinition``,
``pkg/apis/apiextensions/v1/defaults.go``, v0.37.2).

What the registry writes is all a create's answer has of the status: empty accepted names, no conditions, the
storage version in ``storedVersions``; the naming and establishing controllers fill the rest afterwards
(fakekube.crdcontrollers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError
from fakekube.kinds.checks import mapping, seq
from fakekube.kinds.crdvalidation import crd_name_rule, validate_crd, validate_crd_status
from fakekube.strategies import StatusStrategy, Strategy, bump_generation_if, reset_status


def storage_version(spec: dict[str, Any]) -> str | None:
    """The first version marked as the storage version."""
    for version in seq(spec.get("versions")):
        if isinstance(version, dict) and version.get("storage") is True:
            return version.get("name")
    return None


def _add_stored_version(obj: dict[str, Any]) -> None:
    name = storage_version(mapping(obj.get("spec")))
    if name is None:
        return
    status = obj.setdefault("status", {})
    stored = status.get("storedVersions")
    if not isinstance(stored, list):
        status["storedVersions"] = [name]
    elif name not in stored:
        status["storedVersions"] = [*stored, name]


# JSONSchemaProps fields held by pointer: a null is not written, any other value is, zero included
_POINTER_PROPS = frozenset(("default", "example", "$ref", "maximum", "minimum", "maxLength", "minLength", "maxItems",
                            "minItems", "multipleOf", "maxProperties", "minProperties", "items", "not",
                            "additionalProperties", "additionalItems", "externalDocs",
                            "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type",
                            "x-kubernetes-map-type"))


def go_schema_props(schema: dict[str, Any]) -> None:
    """A v1 ``JSONSchemaProps`` as Go writes it back, in place: every field is omitempty, so a null, and an
    empty or false value of a field not held by pointer, is not written (observed on kube-apiserver v1.37.2:
    ``default: null`` is not stored). Nested schemas too."""
    for key in [k for k, v in schema.items()
                if v is None or (k not in _POINTER_PROPS and (v is False or (type(v) is not bool and not v)))]:
        del schema[key]
    for key in ("items", "not", "additionalProperties", "additionalItems"):
        value = schema.get(key)
        if isinstance(value, dict):
            go_schema_props(value)
        elif key == "items" and isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    go_schema_props(item)
    for key in ("allOf", "anyOf", "oneOf"):
        for item in seq(schema.get(key)):
            if isinstance(item, dict):
                go_schema_props(item)
    for key in ("properties", "patternProperties", "definitions", "dependencies"):
        for item in mapping(schema.get(key)).values():
            if isinstance(item, dict):
                go_schema_props(item)


class CrdStrategy(StatusStrategy):
    """``strategy.go``: generation on spec changes; like custom resources, no update without a
    resourceVersion; a ``/status`` write keeps the spec but, unlike most kinds, takes the request's metadata
    (``ResetObjectMetaForStatus`` is called with the new object twice)."""

    tracks_generation = True
    allow_unconditional_update = False

    def default(self, obj: dict[str, Any]) -> None:
        # SetDefaults_CustomResourceDefinition(Spec) and SetDefaults_ServiceReference.
        spec = obj.get("spec")
        if isinstance(spec, dict):
            names = spec.get("names")
            if isinstance(names, dict):
                kind = names.get("kind")
                if not names.get("singular") and isinstance(kind, str):
                    names["singular"] = kind.lower()
                if not names.get("listKind") and isinstance(kind, str) and kind:
                    names["listKind"] = kind + "List"
            if spec.get("conversion") is None:
                spec["conversion"] = {"strategy": "None"}
            service = mapping(mapping(mapping(spec.get("conversion")).get("webhook")).get("clientConfig")).get(
                "service")
            if isinstance(service, dict) and service.get("port") is None:
                service["port"] = 443
            for version in seq(spec.get("versions")):
                schema = mapping(mapping(version).get("schema")).get("openAPIV3Schema")
                if isinstance(schema, dict):
                    go_schema_props(schema)
            status = obj.get("status")
            if isinstance(status, dict) and not status.get("storedVersions"):
                name = storage_version(spec)
                if name is not None:
                    status["storedVersions"] = [name]

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["metadata"]["generation"] = 1
        # The Go status struct as it serialises: plural and kind have no omitempty, conditions is a nil slice.
        obj["status"] = {"acceptedNames": {"plural": "", "kind": ""}, "conditions": None, "storedVersions": None}
        _add_stored_version(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        reset_status(new, old)
        bump_generation_if(new, old, new.get("spec") != old.get("spec"))
        if storage_version(mapping(new.get("spec"))) not in seq(mapping(new.get("status")).get("storedVersions")):
            new["status"] = dict(mapping(new.get("status")))
            _add_stored_version(new)

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if "spec" in old:
            new["spec"] = old["spec"]
        else:
            new.pop("spec", None)

    def name_rule(self, obj: dict[str, Any]) -> Callable[[str, bool], list[str]]:
        return crd_name_rule(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_crd(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return validate_crd_status(new)
        return validate_crd(new, old)


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "CustomResourceDefinition": CrdStrategy,
}
