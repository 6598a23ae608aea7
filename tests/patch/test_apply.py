"""Server-side apply: ownership, conflicts, force, pruning, list merging, managedFields content."""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
from fakekube.patch.apply import parse_apply_body, server_side_apply, validate_apply_request
from fakekube.patch.managed_fields import record_update
from fakekube.patch.schema import PatchSchema

T1, T2, T3 = "2026-11-29T15:56:38Z", "2026-11-29T15:57:00Z", "2026-11-29T15:58:00Z"
DEPLOY = builtin_schema("apps", "Deployment")
POD = builtin_schema("", "Pod")

CRD_SCHEMA = PatchSchema.from_openapi({
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                                 "port": {"type": "integer"}}}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "args": {"type": "array", "items": {"type": "string"}},
        }},
    },
})


def apply(live, config, manager="mgr", force=False, schema=DEPLOY, now=T1, api_version="apps/v1", sub=None):
    return server_side_apply(live, config, manager=manager, force=force, schema=schema,
                             api_version=api_version, subresource=sub, now=now)


def deployment(**spec):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec}


def test_create_records_an_apply_entry():
    out = apply(None, deployment(replicas=3))
    assert out["spec"] == {"replicas": 3}
    assert out["metadata"]["managedFields"] == [{
        "manager": "mgr", "operation": "Apply", "apiVersion": "apps/v1", "time": T1,
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}},
    }]


def test_reapplying_the_same_configuration_changes_nothing():
    first = apply(None, deployment(replicas=3))
    second = apply(first, deployment(replicas=3), now=T2)
    assert json.dumps(second, sort_keys=True) == json.dumps(first, sort_keys=True)


def test_conflict_with_another_apply_manager_then_force():
    live = apply(None, deployment(replicas=3), manager="a")
    with pytest.raises(errors.ApplyConflict) as info:
        apply(live, deployment(replicas=5), manager="b", now=T2)
    assert info.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "a": .spec.replicas', "reason": "Conflict",
        "details": {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "a"',
                                "field": ".spec.replicas"}]},
        "code": 409,
    }
    forced = apply(live, deployment(replicas=5), manager="b", force=True, now=T2)
    assert forced["spec"]["replicas"] == 5
    assert [m["manager"] for m in forced["metadata"]["managedFields"]] == ["b"]


def test_same_value_is_shared_ownership_not_a_conflict():
    live = apply(None, deployment(replicas=3), manager="a")
    out = apply(live, deployment(replicas=3), manager="b", now=T2)
    assert sorted(m["manager"] for m in out["metadata"]["managedFields"]) == ["a", "b"]


def test_several_conflicts_sorted_by_manager_with_update_details():
    live = apply(None, deployment(replicas=1, paused=False), manager="z-apply")
    changed = json.loads(json.dumps(live))
    changed["spec"]["minReadySeconds"] = 5
    record_update(live, changed, manager="kube-controller", api_version="apps/v1", subresource=None,
                  now=T2, schema=DEPLOY)
    with pytest.raises(errors.ApplyConflict) as info:
        apply(changed, deployment(replicas=2, paused=True, minReadySeconds=9), manager="me", now=T3)
    assert info.value.message == (
        "Apply failed with 3 conflicts: "
        'conflicts with "kube-controller" using apps/v1:\n- .spec.minReadySeconds\n'
        'conflicts with "z-apply":\n- .spec.paused\n- .spec.replicas'
    )
    assert [c["field"] for c in info.value.details["causes"]] == [
        ".spec.minReadySeconds", ".spec.paused", ".spec.replicas"]


def test_fields_no_longer_applied_are_removed_unless_someone_else_owns_them():
    live = apply(None, deployment(replicas=3, paused=True, minReadySeconds=4), manager="a")
    live = apply(live, deployment(minReadySeconds=4), manager="b", now=T2)
    out = apply(live, deployment(replicas=3), manager="a", now=T3)
    assert out["spec"] == {"replicas": 3, "minReadySeconds": 4}


def test_list_map_items_merge_by_merge_key_for_builtins():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "app", "image": "app:1"}]}}
    live = apply(None, pod, manager="dev", schema=POD, api_version="v1")
    sidecar = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"containers": [{"name": "proxy", "image": "envoy"}]}}
    out = apply(live, sidecar, manager="mesh", schema=POD, api_version="v1", now=T2)
    assert [c["name"] for c in out["spec"]["containers"]] == ["app", "proxy"]
    with pytest.raises(errors.ApplyConflict) as info:
        apply(out, {**sidecar, "spec": {"containers": [{"name": "app", "image": "app:2"}]}},
              manager="mesh", schema=POD, api_version="v1", now=T3)
    assert info.value.details["causes"][0]["field"] == '.spec.containers[name="app"].image'


def test_removing_a_list_map_item_the_manager_alone_owned():
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
          "spec": {"ports": [{"name": "http", "port": 80}, {"name": "metrics", "port": 9090}]}}
    live = apply(None, cr, schema=CRD_SCHEMA, api_version="example.com/v1")
    fields = live["metadata"]["managedFields"][0]["fieldsV1"]
    assert fields == {"f:spec": {"f:ports": {
        'k:{"name":"http"}': {".": {}, "f:name": {}, "f:port": {}},
        'k:{"name":"metrics"}': {".": {}, "f:name": {}, "f:port": {}}}}}
    out = apply(live, {**cr, "spec": {"ports": [{"name": "http", "port": 80}]}}, schema=CRD_SCHEMA,
                api_version="example.com/v1", now=T2)
    assert out["spec"]["ports"] == [{"name": "http", "port": 80}]


def test_cr_lists_are_atomic_unless_declared():
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
          "spec": {"args": ["a"], "tags": ["x"]}}
    live = apply(None, cr, manager="one", schema=CRD_SCHEMA, api_version="example.com/v1")
    out = apply(live, {**cr, "spec": {"tags": ["y"]}}, manager="two", schema=CRD_SCHEMA,
                api_version="example.com/v1", now=T2)
    assert out["spec"]["tags"] == ["x", "y"]  # set: union
    with pytest.raises(errors.ApplyConflict) as info:
        apply(live, {**cr, "spec": {"args": ["b"]}}, manager="two", schema=CRD_SCHEMA,
              api_version="example.com/v1", now=T2)
    assert info.value.details["causes"][0]["field"] == ".spec.args"


def test_record_update_takes_changed_fields_and_keeps_time_on_noop():
    live = apply(None, deployment(replicas=3), manager="a")
    same = json.loads(json.dumps(live))
    record_update(live, same, manager="ctl", api_version="apps/v1", subresource=None, now=T2, schema=DEPLOY)
    assert same == live
    status = json.loads(json.dumps(live))
    status["status"] = {"readyReplicas": 1}
    record_update(live, status, manager="ctl", api_version="apps/v1", subresource="status", now=T2,
                  schema=DEPLOY)
    entry = status["metadata"]["managedFields"][1]
    # The live object has no status at all: the status map is added, so it is a member too (".").
    assert entry == {"manager": "ctl", "operation": "Update", "apiVersion": "apps/v1", "time": T2,
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {".": {}, "f:readyReplicas": {}}},
                     "subresource": "status"}


def test_validation_errors():
    with pytest.raises(errors.Invalid) as info:
        validate_apply_request(deployment(), field_manager=None, api_version="apps/v1", kind="Deployment")
    assert info.value.message == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')
    # managedfields' version check compares the whole group, version and kind (observed on kube-apiserver
    # v1.37.2; apimachinery pkg/util/managedfields/internal/versioncheck.go).
    with pytest.raises(errors.BadRequest) as bad:
        validate_apply_request(deployment(), field_manager="m", api_version="apps/v2", kind="Deployment")
    assert bad.value.message == "invalid object type: apps/v1, Kind=Deployment"
    with pytest.raises(errors.BadRequest) as bad:
        validate_apply_request({"kind": 5}, field_manager="m", api_version="apps/v1", kind="Deployment")
    assert bad.value.message == "invalid object type: /, Kind="
    cfg = deployment()
    cfg["metadata"]["managedFields"] = []
    with pytest.raises(errors.BadRequest) as bad:
        validate_apply_request(cfg, field_manager="m", api_version="apps/v1", kind="Deployment")
    assert bad.value.message == "metadata.managedFields must be nil"


def test_parse_apply_body_yaml_and_json():
    assert parse_apply_body(b"apiVersion: v1\nkind: ConfigMap\n") == {"apiVersion": "v1", "kind": "ConfigMap"}
    assert parse_apply_body('{"a": 1}') == {"a": 1}
    for body in (b"- a\n- b\n", b"{a: [", b"42"):
        with pytest.raises(errors.BadRequest):
            parse_apply_body(body)
    # An empty or null body decodes into an empty map; the version check refuses it (kube-apiserver v1.37.2).
    assert parse_apply_body(b"") == {} == parse_apply_body(b"null")


def _containers(value, skip_managed_fields=True):
    """Every dict and list in ``value`` (managedFields left out: their trees are shared between versions)."""
    if isinstance(value, dict):
        yield value
        for key, child in value.items():
            if not (skip_managed_fields and key == "managedFields"):
                yield from _containers(child)
    elif isinstance(value, list):
        yield value
        for child in value:
            yield from _containers(child)


@pytest.mark.parametrize("second", [
    deployment(replicas=2, template={"spec": {"containers": [{"name": "a", "image": "a:2"}]}}),
    deployment(paused=None, template={"metadata": {"labels": {"x": "1"}}}),  # a null, and a pruned field
])
def test_the_result_shares_nothing_with_the_live_object_or_the_configuration(second):
    """The merge shares what it keeps until server_side_apply's one copy of the result at the end."""
    live = apply(None, deployment(replicas=1, paused=True, minReadySeconds=5,
                                  template={"spec": {"containers": [{"name": "a", "image": "a:1"}]}}))
    out = apply(live, second, now=T2)
    inputs = {id(c) for c in _containers(live)} | {id(c) for c in _containers(second)}
    assert not [c for c in _containers(out) if id(c) in inputs]
    assert "paused" not in out["spec"] or second["spec"].get("paused") is not None
