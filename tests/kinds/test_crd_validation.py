"""CustomResourceDefinition validation, each expected text observed on kube-apiserver v1.37.2
(apiextensions-apiserver ``pkg/apis/apiextensions/validation``, ``pkg/apiserver/schema``,
``pkg/apiserver/schema/defaulting``): one invalid thing per CRD, as the server walks schema properties in Go
map order."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

BASE: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "things.x.example.com"},
    "spec": {"group": "x.example.com", "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "properties": {"spec": {"type": "object"}}}}}]}}
ROOT = "spec.validation.openAPIV3Schema"  # one version: its schema is lifted to the internal spec.validation
X = f"{ROOT}.properties[x]"
VERSION_JSON = ('[{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,'
                '"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]')


def _x(schema: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda crd: crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"].update(x=schema)


CASES: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    ("group", lambda c: c["spec"].update(group="nodot"), [
        'metadata.name: Invalid value: "things.x.example.com": must be spec.names.plural+"."+spec.group',
        'spec.group: Invalid value: "nodot": should be a domain with at least one dot']),
    ("scope", lambda c: c["spec"].update(scope="Weird"),
     ['spec.scope: Unsupported value: "Weird": supported values: "Cluster", "Namespaced"']),
    ("no storage version", lambda c: c["spec"]["versions"][0].update(storage=False), [
        f"spec.versions: Invalid value: {VERSION_JSON}: must have exactly one version marked as storage version",
        "status.storedVersions: Invalid value: null: must have at least one stored version"]),
    ("no schema", lambda c: c["spec"]["versions"][0].pop("schema"),
     ["spec.versions[0].schema.openAPIV3Schema: Required value"]),
    ("kind is listKind", lambda c: c["spec"]["names"].update(listKind="Thing"),
     ['spec.names.listKind: Invalid value: "Thing": kind and listKind may not be the same']),
    ("root type", lambda c: c["spec"]["versions"][0]["schema"]["openAPIV3Schema"].update(type="string"),
     [f'{ROOT}.type: Invalid value: "string": must be object at the root']),
    ("untyped field", _x({}), [f"{X}.type: Required value: must not be empty for specified object fields"]),
    ("array without items", _x({"type": "array"}), [f"{X}.items: Required value: must be specified"]),
    # NewStructural fails on a $ref: no structural check (no missing type), only the OpenAPI one (observed on
    # kube-apiserver v1.37.2; apiextensions-apiserver validation.go validateCustomResourceDefinitionValidation)
    ("$ref", _x({"$ref": "#/definitions/x"}), [f"{X}.$ref: Forbidden: $ref is not supported"]),
    ("null type", _x({"type": "null"}), [
        f'{X}.type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", '
        '"object", "string"',
        f"{X}.type: Forbidden: type cannot be set to null, use nullable as an alternative"]),
    ("Go-only regexp syntax refused", _x({"type": "string", "pattern": "a(?=b)"}), [
        f'{X}.pattern: Invalid value: "a(?=b)": must be a valid regular expression, but isn\'t: error parsing '
        "regexp: invalid or unsupported Perl syntax: `(?=`"]),
    ("properties and additionalProperties",
     _x({"type": "object", "additionalProperties": {"type": "string"}, "properties": {"a": {"type": "string"}}}),
     [f"{X}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"]),
    ("nested structural", _x({"type": "string", "anyOf": [{"type": "string", "description": "d"}]}), [
        f"{X}.anyOf[0].description: Forbidden: must be empty to be structural",
        f"{X}.anyOf[0].type: Forbidden: must be empty to be structural"]),
    ("metadata", lambda c: c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"].update(
        metadata={"type": "object", "properties": {"labels": {"type": "object"}}}),
     [f"{ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but "
      "metadata is implicitly specified"]),
    ("default of another type", _x({"type": "string", "default": 5}),
     [f'{X}.default: Invalid value: "integer":  in body must be of type string: "integer"']),
    ("default with unknown fields", _x({"type": "object", "properties": {"a": {"type": "string"}},
                                        "default": {"a": "x", "b": 1}}),
     [f'{X}.default: Invalid value: {{"a":"x","b":1}}: must not have unknown fields']),
    ("default item", _x({"type": "array", "items": {"type": "string"}, "default": [1]}),
     [f'{X}.default.[0]: Invalid value: "integer": [0] in body must be of type string: "integer"']),
    ("webhook conversion", lambda c: c["spec"].update(conversion={"strategy": "Webhook"}), [
        "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
        "spec.conversion.conversionReviewVersions: Required value"]),
    ("API approval", lambda c: (c["spec"].update(group="things.k8s.io"),
                                c["metadata"].update(name="things.things.k8s.io")),
     ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval '
      'annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111']),
    ("version name", lambda c: c["spec"]["versions"][0].update(name="V1"), [
        "spec.versions[0].name: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric "
        "characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
        "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        "spec.version: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters "
        "or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]),
]


@pytest.mark.parametrize(("change", "expected"), [(c, e) for _, c, e in CASES], ids=[n for n, _, _ in CASES])
def test_invalid_crds(kube: Store, change: Callable[[dict[str, Any]], None], expected: list[str]) -> None:
    crd = copy.deepcopy(BASE)
    change(crd)
    with pytest.raises(errors.Invalid) as caught:
        kube.create("customresourcedefinitions", crd)
    assert [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]] == expected


def test_a_unicode_class_pattern_is_checked_as_go_checks_it(kube: Store) -> None:
    crd = copy.deepcopy(BASE)
    _x({"type": "string", "pattern": r"^\pL+\z"})(crd)
    kube.create("customresourcedefinitions", crd)
    created = kube.create("things", {"apiVersion": "x.example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
                                     "x": "héllo"}, "default")
    assert created["x"] == "héllo"
    with pytest.raises(errors.Invalid, match=r"x in body should match '\^\\pL\+\\z'"):
        kube.create("things", {"apiVersion": "x.example.com/v1", "kind": "Thing", "metadata": {"name": "u"},
                               "x": "123"}, "default")


def test_group_and_plural_are_immutable(kube: Store) -> None:
    kube.create("customresourcedefinitions", copy.deepcopy(BASE))
    crd = kube.get("customresourcedefinitions", "things.x.example.com")
    crd["spec"]["names"]["kind"] = "Other"
    with pytest.raises(errors.Invalid, match=r'spec\.names\.kind: Invalid value: "Other": field is immutable'):
        kube.update("customresourcedefinitions", crd)


def test_schema_fields_go_does_not_write_are_not_stored(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2: every JSONSchemaProps field is omitempty (a pointer keeps its zero)
    crd = copy.deepcopy(BASE)
    _x({"type": "string", "nullable": True, "default": None, "description": "", "enum": [], "maxLength": 0,
        "x-kubernetes-int-or-string": False})(crd)
    created = kube.create("customresourcedefinitions", crd)
    x = created["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["x"]
    assert x == {"type": "string", "nullable": True, "maxLength": 0}
