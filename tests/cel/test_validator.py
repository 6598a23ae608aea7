"""Rules run on custom resource writes (fakekube.cel.validator through the store): each expected text
observed on kube-apiserver v1.37.2 (tests/differential/corpus/crd-cel.yaml, crd-cel/rules), behaviour after
apiextensions-apiserver pkg/apiserver/schema/cel/validation.go (v0.37.2)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

V = "x-kubernetes-validations"
SPEC: dict[str, Any] = {
    "type": "object",
    V: [{"rule": "!has(self.min) || !has(self.max) || self.min <= self.max", "message": "min must not exceed max",
         "fieldPath": ".min", "reason": "FieldValueForbidden"}],
    "properties": {
        "min": {"type": "integer"}, "max": {"type": "integer"},
        "name": {"type": "string", V: [{"rule": "self.startsWith('a')",
                                        "messageExpression": "'name must start with a, not ' + self"}]},
        "size": {"type": "integer", V: [{"rule": "self < 100"}]},
        "mode": {"type": "string", V: [{"rule": "self == oldSelf", "message": "mode is immutable"}]},
        "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}},
                                             V: [{"rule": "self.port > 0", "message": "port must be positive"}]}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}, V: [{"rule": "self.size() <= 2"}]},
        "ratio": {"type": "number", V: [{"rule": "self <= 1.0"}]},
        "dup": {"type": "string", V: [{"rule": "self != 'x'", "reason": "FieldValueDuplicate"}]},
        "req": {"type": "string", V: [{"rule": "self != ''", "reason": "FieldValueRequired",
                                       "message": "req must not be empty"}]},
        "grow": {"type": "integer", V: [{"rule": "!oldSelf.hasValue() || self >= oldSelf.value()",
                                         "optionalOldSelf": True, "message": "grow may only grow"}]},
        "div": {"type": "integer", V: [{"rule": "10 / self > 1"}]},
        "ios": {"x-kubernetes-int-or-string": True, V: [{"rule": "self > 0"}]},
        "first": {"type": "array", "items": {"type": "integer"}, V: [{"rule": "self[0] == 1"}]},
    },
}
CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.x.example.com"},
    "spec": {"group": "x.example.com", "scope": "Namespaced",
             "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {
                               "type": "object",
                               V: [{"rule": "self.metadata.name != 'forbidden'", "message": "this name is forbidden"}],
                               "properties": {"spec": SPEC, "status": {"type": "object", "properties": {
                                   "phase": {"type": "string", V: [{"rule": "self != 'Bad'", "message": "bad phase"}]},
                               }}}}}}]}}


@pytest.fixture
def kube_with_crd(kube: Store) -> Store:
    kube.create("customresourcedefinitions", copy.deepcopy(CRD))
    return kube


def _gadget(object_name: str = "g", /, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "x.example.com/v1", "kind": "Gadget", "metadata": {"name": object_name}, "spec": spec}


def _causes(exc: pytest.ExceptionInfo[errors.Invalid]) -> list[str]:
    return [f"{c['field']}: {c['message']} ({c['reason']})" for c in exc.value.status["details"]["causes"]]


@pytest.mark.parametrize(("spec", "name", "cause"), [
    ({"min": 3, "max": 2}, "g", "spec.min: Forbidden: min must not exceed max (FieldValueForbidden)"),
    ({"name": "bcd"}, "g", 'spec.name: Invalid value: "bcd": name must start with a, not bcd (FieldValueInvalid)'),
    ({"size": 150}, "g", "spec.size: Invalid value: 150: failed rule: self < 100 (FieldValueInvalid)"),
    ({"ports": [{"port": 1}, {"port": 0}]}, "g",
     "spec.ports[1]: Invalid value: port must be positive (FieldValueInvalid)"),
    ({"labels": {"a": "1", "b": "2", "c": "3"}}, "g",
     "spec.labels: Invalid value: failed rule: self.size() <= 2 (FieldValueInvalid)"),
    ({"ratio": 1.5}, "g", "spec.ratio: Invalid value: 1.5: failed rule: self <= 1.0 (FieldValueInvalid)"),
    ({"ratio": 2}, "g", "spec.ratio: Invalid value: 2: failed rule: self <= 1.0 (FieldValueInvalid)"),
    ({"dup": "x"}, "g", 'spec.dup: Duplicate value: "x" (FieldValueDuplicate)'),
    ({"req": ""}, "g", "spec.req: Required value: req must not be empty (FieldValueRequired)"),
    ({"div": 0}, "g",
     'spec.div: Invalid value: "integer": division by zero evaluating rule: 10 / self > 1 (FieldValueInvalid)'),
    ({"ios": "a"}, "g", "spec.ios: Invalid value: \"\": 'no such overload': call arguments did not match a "
                        "supported operator, function or macro signature for rule: self > 0 (FieldValueInvalid)"),
    ({"first": []}, "g",
     'spec.first: Invalid value: "array": index out of bounds: 0 evaluating rule: self[0] == 1 (FieldValueInvalid)'),
    ({}, "forbidden", "<nil>: Invalid value: this name is forbidden (FieldValueInvalid)"),
])
def test_a_broken_rule_on_create(kube_with_crd: Store, spec: dict[str, Any], name: str, cause: str) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube_with_crd.create("gadgets", _gadget(name, **spec), "default")
    assert _causes(caught) == [cause]
    assert kube_with_crd.list("gadgets", "default")["items"] == []


def test_transition_rules_run_on_update_where_the_old_value_exists(kube_with_crd: Store) -> None:
    kube = kube_with_crd
    kube.create("gadgets", _gadget(mode="a", grow=1), "default")
    stored = kube.get("gadgets", "g", "default")
    with pytest.raises(errors.Invalid) as caught:
        kube.update("gadgets", {**stored, "spec": {"mode": "b", "grow": 1}}, namespace="default")
    assert _causes(caught) == ['spec.mode: Invalid value: "b": mode is immutable (FieldValueInvalid)']
    with pytest.raises(errors.Invalid) as caught:
        kube.update("gadgets", {**stored, "spec": {"mode": "a", "grow": 0}}, namespace="default")
    assert _causes(caught) == ["spec.grow: Invalid value: 0: grow may only grow (FieldValueInvalid)"]
    kube.update("gadgets", {**stored, "spec": {"mode": "a", "grow": 5}}, namespace="default")
    # A member the update adds has no old value: its transition rule does not run.
    kube.create("gadgets", _gadget("g2"), "default")
    g2 = kube.get("gadgets", "g2", "default")
    kube.update("gadgets", {**g2, "spec": {"mode": "z"}}, namespace="default")


def test_rules_on_the_status_subresource(kube_with_crd: Store) -> None:
    kube = kube_with_crd
    kube.create("gadgets", _gadget(), "default")
    stored = kube.get("gadgets", "g", "default")
    with pytest.raises(errors.Invalid) as caught:
        kube.update("gadgets", {**stored, "status": {"phase": "Bad"}}, namespace="default", subresource="status")
    assert _causes(caught) == ['status.phase: Invalid value: "Bad": bad phase (FieldValueInvalid)']


def test_ratcheting_an_unchanged_value_is_not_validated_again(kube: Store) -> None:
    crd = copy.deepcopy(CRD)
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["size"][V] = [{"rule": "self < 1000"}]
    kube.create("customresourcedefinitions", crd)
    kube.create("gadgets", _gadget(size=500, name="abc"), "default")
    # The rule tightens after the object was stored (CRDValidationRatcheting, GA in v1.33).
    current = kube.get("customresourcedefinitions", "gadgets.x.example.com")
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"][V] = [
        {"rule": "self < 100"}]
    kube.update("customresourcedefinitions", current)
    stored = kube.get("gadgets", "g", "default")
    kube.update("gadgets", {**stored, "spec": {"size": 500, "name": "abd"}}, namespace="default")
    # The rule still fails on the unchanged value: a warning with the error's text, not an error.
    assert kube.audit.entries[-1].warnings == ["spec.size: Invalid value: 500: failed rule: self < 100"]
    stored = kube.get("gadgets", "g", "default")
    with pytest.raises(errors.Invalid) as caught:
        kube.update("gadgets", {**stored, "spec": {"size": 501, "name": "abd"}}, namespace="default")
    assert _causes(caught) == ["spec.size: Invalid value: 501: failed rule: self < 100 (FieldValueInvalid)"]


def test_a_blocking_schema_error_skips_the_rules(kube_with_crd: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube_with_crd.create("gadgets", _gadget(size="big"), "default")
    assert _causes(caught) == [
        'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string" '
        "(FieldValueTypeInvalid)",
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
        "correct the existing errors to complete validation (FieldValueInvalid)"]
