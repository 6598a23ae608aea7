"""A CRD's rules checked when it is created (fakekube.kinds.crdrules): each expected text observed on
kube-apiserver v1.37.2 (tests/differential/corpus/crd-cel.yaml, crd-rules-refused; crd_schema generator,
selectable-field-unknown) — apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

A = "spec.validation.openAPIV3Schema.properties[spec].properties[a]"


def _crd(a: dict[str, Any], **version: Any) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "bads.x.example.com"},
            "spec": {"group": "x.example.com", "scope": "Namespaced",
                     "names": {"plural": "bads", "singular": "bad", "kind": "Bad"},
                     "versions": [{"name": "v1", "served": True, "storage": True, **version,
                                   "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                       "spec": {"type": "object", "properties": {"a": copy.deepcopy(a)}}}}}}]}}


def _causes(kube: Store, crd: dict[str, Any]) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("customresourcedefinitions", crd)
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


def test_a_rule_that_does_not_compile_shows_the_rule_struct(kube: Store) -> None:
    crd = _crd({"type": "string", "x-kubernetes-validations": [{"rule": "self + 1 > 2"}]})
    assert _causes(kube, crd) == [
        f"{A}.x-kubernetes-validations[0].rule: Invalid value: "
        '{"Rule":"self + 1 \\u003e 2","Message":"","MessageExpression":"","Reason":null,"FieldPath":"",'
        '"OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:6: found no matching overload for '
        "'_+_' applied to '(string, int)'\n | self + 1 > 2\n | .....^"]


def test_old_self_on_an_uncorrelatable_list_item(kube: Store) -> None:
    crd = _crd({"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 10,
                                                          "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}})
    assert _causes(kube, crd) == [
        f'{A}.items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on '
        f"the uncorrelatable portion of the schema within {A}"]


def test_optional_old_self_without_old_self(kube: Store) -> None:
    crd = _crd({"type": "string", "x-kubernetes-validations": [{"rule": "self != ''", "optionalOldSelf": True}]})
    assert _causes(kube, crd) == [
        f"{A}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not "
        "used in rule"]


def test_a_field_path_that_names_nothing(kube: Store) -> None:
    crd = _crd({"type": "object", "properties": {"x": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".nope"}]})
    assert _causes(kube, crd) == [f'{A}.x-kubernetes-validations[0].fieldPath: Invalid value: ".nope": must be a '
                                  "valid path"]


def test_a_map_list_item_may_use_old_self_and_valid_rules_are_accepted(kube: Store) -> None:
    crd = _crd({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                "maxItems": 5, "items": {"type": "object", "required": ["k"], "properties": {
                    "k": {"type": "string", "maxLength": 5}, "v": {"type": "integer"}},
                    "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v", "message": "v may only grow"}]}})
    kube.create("customresourcedefinitions", crd)
    kube.create("bads", {"apiVersion": "x.example.com/v1", "kind": "Bad", "metadata": {"name": "b"},
                         "spec": {"a": [{"k": "one", "v": 2}]}}, "default")
    stored = kube.get("bads", "b", "default")
    with pytest.raises(errors.Invalid, match=r"spec\.a\[1\]: Invalid value: v may only grow"):
        kube.update("bads", {**stored, "spec": {"a": [{"k": "two", "v": 0}, {"k": "one", "v": 1}]}},
                    namespace="default")


def test_a_selectable_field_must_name_a_schema_field(kube: Store) -> None:
    crd = _crd({"type": "string"}, selectableFields=[{"jsonPath": ".spec.nope"}])
    assert _causes(kube, crd) == ['spec.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid '
                                  "path: does not refer to a valid field"]
