"""fakekube.patch.typed_validate: structured-merge-diff's check of an applied configuration, in its words (each
message observed from kube-apiserver v1.37.2 for the same configuration, docs/malformed-input.md)."""

from __future__ import annotations

import pytest

from fakekube.apimodel.patch_schemas import builtin_patch_schema
from fakekube.patch.custom_resources import custom_resource_schema
from fakekube.patch.typed_validate import go_sharp_v, go_v, validate

CONFIGMAP = builtin_patch_schema("", "ConfigMap")
DEPLOYMENT = builtin_patch_schema("apps", "Deployment")


def _deployment(**spec):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec}


@pytest.mark.parametrize(("config", "errors"), [
    ({"metadata": True}, [".metadata: expected map, got &{true}"]),
    ({"data": ["x"]}, [".data: expected map, got &{[x]}"]),
    ({"data": "x"}, [".data: expected map, got &{x}"]),
    ({"data": {"a": 1}}, [".data.a: expected string, got &value.valueUnstructured{Value:1}"]),
    ({"data": {"a": {"b": 1}}},
     ['.data.a: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"b":1}}']),
    ({"immutable": "x"}, [".immutable: expected boolean, got &{x}"]),
    ({"metadata": {"labels": [1]}}, [".metadata.labels: expected map, got &{[1]}"]),
    ({"metadata": {"ownerReferences": {"a": 1}}}, [".metadata.ownerReferences: expected list, got &{map[a:1]}"]),
    ({"metadata": {"finalizers": [{"a": 1}]}},
     [".metadata.finalizers: element 0: associative list without keys has an element that's a map type"]),
    ({"metadata": {"finalizers": ["a", "a"]}}, ['.metadata.finalizers: duplicate entries for key [="a"]']),
    ({"zzz": 1, "data": "x"}, [".zzz: field not declared in schema"]),  # smd stops at an undeclared field
])
def test_configmap(config, errors) -> None:
    assert validate({"apiVersion": "v1", "kind": "ConfigMap", **config}, CONFIGMAP) == errors


@pytest.mark.parametrize(("spec", "errors"), [
    ({"replicas": "3"}, [".spec.replicas: expected numeric (int or float), got string"]),
    ({"selector": [1]}, [".spec.selector: expected map, got &{[1]}"]),
    ({"template": {"spec": {"containers": {"name": "a", "image": "x"}}}},
     [".spec.template.spec.containers: expected list, got &{map[image:x name:a]}"]),
    ({"template": {"spec": {"containers": ["x"]}}},
     [".spec.template.spec.containers: element 0: associative list with keys may not have non-map elements"]),
    ({"template": {"spec": {"containers": [{"name": "a", "env": {"a": "b"}}]}}},
     ['.spec.template.spec.containers[name="a"].env: expected list, got &{map[a:b]}']),
    ({"template": {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}}},
     ['.spec.template.spec.containers: duplicate entries for key [name="a"]']),
])
def test_deployment(spec, errors) -> None:
    assert validate(_deployment(**spec), DEPLOYMENT) == errors


def test_custom_resource() -> None:
    schema = custom_resource_schema({"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "typed": {"type": "object", "properties": {"s": {"type": "string"}, "l": {"type": "array"}}}}})
    base = {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a"}}
    assert validate({**base, "typed": {"s": 5}}, schema) == [
        ".typed.s: expected string, got &value.valueUnstructured{Value:5}"]
    assert validate({**base, "typed": {"l": {"a": 1}}}, schema) == [".typed.l: expected list, got &{map[a:1]}"]
    assert validate({**base, "spec": [1]}, schema) == [".spec: expected map, got &{[1]}"]
    assert validate({**base, "spec": {"anything": [1, {"b": 2}]}}, schema) == []
    assert validate({**base, "zzz": 1}, schema) == [".zzz: field not declared in schema"]


def test_go_renderings() -> None:
    assert go_v({"b": [1, "x"], "a": 1.5}) == "map[a:1.5 b:[1 x]]"
    assert go_v(None) == "<nil>" and go_v(1e21) == "1e+21"
    assert go_sharp_v(["a", 1, None]) == '[]interface {}{"a", 1, interface {}(nil)}'


def test_a_list_map_key_left_out_is_named_by_its_default() -> None:
    # observed on kube-apiserver v1.37.2: structured-merge-diff typed/helpers.go getAssociativeKeyDefault names
    # a Service port by protocol TCP too
    service = builtin_patch_schema("", "Service")
    assert validate({"apiVersion": "v1", "kind": "Service", "spec": {"ports": [{"port": "80"}]}}, service) == [
        '.spec.ports[port="80",protocol="TCP"].port: expected numeric (int or float), got string']
