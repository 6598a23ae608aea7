"""MutatingAdmissionPolicy through the store (the differential cases map/* hold the real server's answers; these
are quick checks of the same rules)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

V1 = "admissionregistration.k8s.io/v1"
CM_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"], "operations": ["CREATE", "UPDATE"]}]


def policy(kube: Store, name: str, *mutations: dict[str, Any], **spec: Any) -> None:
    spec.setdefault("matchConstraints", {"resourceRules": CM_RULES})
    spec.setdefault("reinvocationPolicy", "Never")
    kube.create("mutatingadmissionpolicies", {"apiVersion": V1, "kind": "MutatingAdmissionPolicy",
                                              "metadata": {"name": name}, "spec": {**spec, "mutations": list(mutations)}})
    kube.create("mutatingadmissionpolicybindings", {"apiVersion": V1, "kind": "MutatingAdmissionPolicyBinding",
                                                    "metadata": {"name": name}, "spec": {"policyName": name}})


def jp(expr: str) -> dict[str, Any]:
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expr}}


def ac(expr: str) -> dict[str, Any]:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expr}}


def cm(kube: Store, name: str, data: dict[str, str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    if data is not None:
        body["data"] = data
    return kube.create("configmaps", body, "default")


def test_json_patch_and_apply_configuration_in_order() -> None:
    kube = Store()
    policy(kube, "p", jp("[JSONPatch{op: 'add', path: '/metadata/labels', value: {'a': 'b'}}]"),
           ac("Object{data: {'label': object.metadata.labels.a}}"))
    made = cm(kube, "one", {"x": "1"})
    assert made["metadata"]["labels"] == {"a": "b"}
    assert made["data"] == {"x": "1", "label": "b"}
    assert "uid" in made["metadata"]


def test_runtime_error_fails_unless_ignored() -> None:
    kube = Store()
    policy(kube, "p", ac("Object{data: {'x': object.data.nosuch}}"))
    with pytest.raises(errors.ApiError) as caught:
        cm(kube, "boom", {"a": "1"})
    assert (caught.value.code, caught.value.reason) == (403, "Invalid")
    assert caught.value.message == ("policy 'p' with binding 'p' denied request: expression 'Object{data: {'x': "
                                    "object.data.nosuch}}' resulted in error: no such key: nosuch")
    with pytest.raises(errors.NotFound):
        kube.get("configmaps", "boom", "default")
    kube2 = Store()
    policy(kube2, "p", ac("Object{data: {'x': object.data.nosuch}}"),
           ac("Object{metadata: Object.metadata{annotations: {'after': 'ran'}}}"), failurePolicy="Ignore")
    assert cm(kube2, "boom", {"a": "1"})["metadata"]["annotations"] == {"after": "ran"}


def test_atomic_struct_refused() -> None:
    kube = Store()
    policy(kube, "p", ac("Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'a': 'b'}}}}"),
           matchConstraints={"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                "resources": ["deployments"], "operations": ["CREATE"]}]})
    with pytest.raises(errors.ApiError) as caught:
        kube.create("deployments", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                                    "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                                        "metadata": {"labels": {"a": "b"}},
                                        "spec": {"containers": [{"name": "c", "image": "i"}]}}}}, "default")
    assert caught.value.message.endswith("error applying patch: invalid ApplyConfiguration: may not mutate atomic "
                                         "arrays, maps or structs: .spec.selector")


def test_if_needed_policy_runs_again_after_a_later_change() -> None:
    kube = Store()
    policy(kube, "a", ac("has(object.metadata.labels) && 'second' in object.metadata.labels ? "
                         "Object{metadata: Object.metadata{labels: {'copied': object.metadata.labels['second']}}} : "
                         "Object{}"), reinvocationPolicy="IfNeeded")
    policy(kube, "b", jp("[JSONPatch{op: 'add', path: '/metadata/labels', value: {'second': 'v'}}]"))
    assert cm(kube, "re")["metadata"]["labels"] == {"second": "v", "copied": "v"}


def test_compile_error_refuses_the_policy() -> None:
    kube = Store()
    with pytest.raises(errors.ApiError) as caught:
        policy(kube, "bad", jp("'x'"))
    assert caught.value.code == 422
    assert "spec.mutations[0].jsonPatch.expression: Invalid value: \"'x'\": must evaluate to list(JSONPatch) but " \
           "got string" in caught.value.message


def test_variables_are_typed_for_the_mutations() -> None:
    # kube-apiserver v1.37.2 (map/compile-errors): the variable's own type, not dyn
    kube = Store()
    with pytest.raises(errors.ApiError) as caught:
        policy(kube, "p", jp("variables.patches"), variables=[{"name": "patches", "expression": "[1]"}])
    assert "must evaluate to list(JSONPatch) but got list(int)" in caught.value.message
    policy(kube, "q", ac("Object{data: {'v': variables.broken}}"),
           variables=[{"name": "broken", "expression": "object.data.missing"}])
    with pytest.raises(errors.ApiError) as caught:
        cm(kube, "c", {"a": "1"})
    assert caught.value.message.endswith('resulted in error: composited variable "broken" fails to evaluate: '
                                         "no such key: missing")
