"""The Update operation's managedFields bookkeeping, each rule as observed on kube-apiserver v1.37.2.

Upstream: apimachinery pkg/util/managedfields/internal/{fieldmanager,skipnonapplied,capmanagers,stripmeta,
managedfieldsupdater,structuredmerge,conflict}.go and scalehandler.go; structured-merge-diff v6 typed/compare.go
and fieldpath/serialize.go. The differential corpus pins the same behaviours end to end
(tests/differential/corpus/managedfields-more.yaml).
"""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
from fakekube.patch import fieldpath, scale_fields
from fakekube.patch.apply import server_side_apply
from fakekube.patch.managed_fields import cap_update_managers, record_update
from fakekube.patch.zero import zero_object

T1, T2, T3 = "2026-11-29T15:56:38Z", "2026-11-29T15:57:00Z", "2026-11-29T15:58:00Z"
CM_ZERO = zero_object("v1", "ConfigMap")
DEPLOY = builtin_schema("apps", "Deployment")


def _cm(**meta):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "uid": "u", **meta}, "data": {"a": "1"}}


def _create(obj, manager="creator", now=T1):
    record_update(None, obj, manager=manager, api_version="v1", subresource=None, now=now, zero=CM_ZERO)
    return obj


def _update(old, new, manager, now=T2, subresource=None):
    record_update(old, new, manager=manager, api_version="v1", subresource=subresource, now=now)
    return new


def _fields(obj):
    return {e["manager"]: e["fieldsV1"] for e in obj["metadata"].get("managedFields", [])}


def test_zero_values_hold_non_pointer_structs_and_fields_without_omitempty():
    assert zero_object("apps/v1", "Deployment") == {
        "metadata": {}, "spec": {"selector": None, "template": {"metadata": {}, "spec": {"containers": None}},
                                 "strategy": {}}, "status": {}}
    assert zero_object("rbac.authorization.k8s.io/v1", "RoleBinding")["roleRef"] == {
        "apiGroup": "", "kind": "", "name": ""}
    assert zero_object("example.com/v1", "Widget") == {}  # a custom resource: an empty Unstructured


def test_a_create_owns_generate_name_and_the_added_maps():
    # observed: {"f:metadata": {"f:generateName": {}}} for a ConfigMap created with generateName alone
    obj = _create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "g-", "uid": "u",
                                                                       "creationTimestamp": T1}})
    assert _fields(obj) == {"creator": {"f:metadata": {"f:generateName": {}}}}
    # observed: data and labels are absent from ConfigMap's zero value, so they are members (".")
    obj = _create(_cm(labels={"app": "x"}))
    assert _fields(obj) == {"creator": {"f:data": {".": {}, "f:a": {}},
                                        "f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}


def test_a_create_keeps_the_entries_it_was_sent_less_what_it_takes():
    sent = {"manager": "someone", "operation": "Apply", "apiVersion": "v1", "time": "2020-01-01T00:00:00Z",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}, "f:z": {}}}}
    obj = _create(_cm(managedFields=[sent]))
    assert obj["metadata"]["managedFields"] == [
        {**sent, "fieldsV1": {"f:data": {"f:z": {}}}},
        {"manager": "creator", "operation": "Update", "apiVersion": "v1", "time": T1, "fieldsType": "FieldsV1",
         "fieldsV1": {"f:data": {".": {}, "f:a": {}}}},
    ]
    assert _fields(_create(_cm(managedFields=[{}]))) == {"creator": {"f:data": {".": {}, "f:a": {}}}}


def test_an_update_takes_from_others_and_removes_from_everyone():
    old = _create(_cm(labels={"a": "b", "c": "d"}))
    new = json.loads(json.dumps(old))
    del new["metadata"]["labels"]["a"]
    new["metadata"]["labels"]["e"] = "f"
    new["data"] = {"a": "2"}
    _update(old, new, "patcher")
    # the creator keeps data itself (a member with no children left: {})
    assert _fields(new) == {"creator": {"f:data": {}, "f:metadata": {"f:labels": {".": {}, "f:c": {}}}},
                            "patcher": {"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:e": {}}}}}


def test_entries_sent_with_an_update_replace_the_stored_ones_unless_they_do_not_decode():
    old = _create(_cm())
    sent = [{"manager": "someone", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:data": {"f:a": {}}}}]
    new = {**_cm(managedFields=sent), "data": {"a": "1", "b": "2"}}
    assert _fields(_update(old, new, "editor")) == {"someone": {"f:data": {"f:a": {}}},
                                                     "editor": {"f:data": {"f:b": {}}}}
    bad = [{**sent[0], "operation": "Foo"}]
    new = {**_cm(managedFields=bad), "data": {"a": "1", "b": "2"}}
    assert _fields(_update(old, new, "editor")) == {"creator": {"f:data": {".": {}, "f:a": {}}},
                                                     "editor": {"f:data": {"f:b": {}}}}


def test_an_existing_object_without_entries_is_not_tracked():
    old = _create(_cm())
    for reset in ([], [{}], [{"manager": "", "time": None}]):
        new = {**_cm(managedFields=reset), "data": {"a": "2"}}
        assert "managedFields" not in _update(old, new, "editor")["metadata"]
    untracked = _cm()
    new = {**_cm(), "data": {"a": "3"}}
    assert "managedFields" not in _update(untracked, new, "editor")["metadata"]


def test_a_write_that_takes_nothing_keeps_the_entries_and_their_times():
    old = _create(_cm())
    new = json.loads(json.dumps(old))
    _update(old, new, "same", now=T3)
    assert new["metadata"]["managedFields"] is old["metadata"]["managedFields"]


def test_update_managers_are_capped_at_ten_oldest_merged_per_api_version():
    # observed: with 13 Update entries the oldest four merge into ancient-changes (the first one of an
    # apiVersion becomes the bucket when the second arrives; each merge counts one), which keeps the last
    # merged one's time; the order of the list does not matter
    entries = [{"manager": f"m{i:02d}", "operation": "Update", "apiVersion": "v1", "time": f"2026-01-01T00:00:{i:02d}Z",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {f"f:k{i}": {}}}} for i in range(13, 0, -1)]
    entries.append({"manager": "a", "operation": "Apply", "apiVersion": "v1", "time": "2026-01-01T00:00:00Z",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:x": {}}}})
    capped = cap_update_managers(entries)
    names = sorted(e["manager"] for e in capped)
    assert names == ["a", "ancient-changes", *[f"m{i:02d}" for i in range(5, 14)]]
    bucket = next(e for e in capped if e["manager"] == "ancient-changes")
    assert bucket["fieldsV1"] == {"f:data": {"f:k1": {}, "f:k2": {}, "f:k3": {}, "f:k4": {}}}
    assert bucket["time"] == "2026-01-01T00:00:04Z"


def test_fields_v1_orders_keys_as_smd_compares_them():
    # observed: k:{"port":9,...} before k:{"port":80,...} before k:{"port":443,...} in a Service's entry
    paths = [("f:spec", "f:ports", f'k:{{"port":{p},"protocol":"TCP"}}') for p in (443, 9, 80)]
    tree = fieldpath.to_fields_v1(paths)
    assert list(tree["f:spec"]["f:ports"]) == [f'k:{{"port":{p},"protocol":"TCP"}}' for p in (9, 80, 443)]
    assert fieldpath.is_canonical_tree(tree)
    # field names, then keys, then values, then indices
    assert [fieldpath.element_key(pe)[0] for pe in ("f:z", 'k:{"a":1}', "v:1", "i:0")] == [0, 1, 2, 3]
    assert list(fieldpath.to_fields_v1([("v:10",), ("v:2",), ('v:"a"',), ("v:true",)])) == [
        "v:2", "v:10", 'v:"a"', "v:true"]


def test_conflicts_name_the_manager_without_a_time():
    # observed: 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.a' (conflict.go prints the
    # manager's identifier, which has no time)
    live = _create(_cm(), manager="editor")
    with pytest.raises(errors.ApplyConflict) as info:
        server_side_apply(live, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                                 "data": {"a": "2"}}, manager="applier", force=False, schema=None,
                          api_version="v1", subresource=None, now=T2)
    assert info.value.message == 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.a'


def test_an_apply_to_an_untracked_object_meets_before_first_apply():
    # observed: 409 'conflict with "before-first-apply" using v1: .data.a'; forced, the applier takes the field
    # and before-first-apply keeps the rest of what the object held
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "uid": "u", "labels": {"l": "v"}},
            "data": {"a": "1"}}
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "2"}}
    with pytest.raises(errors.ApplyConflict) as info:
        server_side_apply(live, config, manager="applier", force=False, schema=None, api_version="v1",
                          subresource=None, now=T2, zero=CM_ZERO)
    assert info.value.message == ('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: '
                                  '.data.a')
    out = server_side_apply(live, config, manager="applier", force=True, schema=None, api_version="v1",
                            subresource=None, now=T2, zero=CM_ZERO)
    assert _fields(out) == {"applier": {"f:data": {"f:a": {}}},
                            "before-first-apply": {"f:data": {}, "f:metadata": {"f:labels": {".": {}, "f:l": {}}}}}


def test_conflict_paths_are_listed_in_field_set_order():
    # smd Set.Iterate: a level's members before its children
    paths = {("f:spec", "f:a", "f:x"), ("f:spec", "f:b"), ("f:metadata", "f:labels", "f:z")}
    assert fieldpath.iteration_order(paths) == [
        ("f:metadata", "f:labels", "f:z"), ("f:spec", "f:b"), ("f:spec", "f:a", "f:x")]


def test_scale_entries_convert_to_and_from_the_parent_as_upstream_does():
    mappings = {"apps/v1": ("f:spec", "f:replicas")}
    creator = {"manager": "m", "operation": "Update", "apiVersion": "apps/v1", "time": T1, "fieldsType": "FieldsV1",
               "fieldsV1": {"f:spec": {"f:paused": {}, "f:replicas": {}}}}
    scale = scale_fields.to_subresource([creator], mappings)
    assert scale == [{"manager": "m", "operation": "Update", "apiVersion": "autoscaling/v1", "time": T1,
                      "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
    # observed: a scale write that leaves replicas to their owner still splits them off, into an entry of
    # their own without a time (decoded under autoscaling/v1, the Scale entry's identifier is not the parent's)
    parent = scale_fields.to_parent([creator], scale, "apps/v1", mappings)
    assert parent == [
        {"manager": "m", "operation": "Update", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        {**creator, "fieldsV1": {"f:spec": {"f:paused": {}}}},
    ]
