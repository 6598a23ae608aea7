"""The store's fast managedFields paths agree with the plain path-set definitions (structured-merge-diff's
comparison, FieldsV1 serialisation)."""

from __future__ import annotations

import json
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
from fakekube.patch import fieldpath as fp
from fakekube.patch import update_fields
from fakekube.patch.managed_fields import ManagerEntry, decode_managed_fields
from fakekube.patch.zero import zero_object

POD = builtin_schema("", "Pod")
POD_ZERO = zero_object("v1", "Pod")
NAMES = st.sampled_from(["a", "b", 'q"x', "c-1"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(0, 3), st.sampled_from(["", "x", "y"]))
CONTAINER = st.fixed_dictionaries({"name": NAMES}, optional={
    "image": SCALARS,
    "env": st.lists(st.fixed_dictionaries({"name": NAMES}, optional={"value": SCALARS}), max_size=3),
    "ports": st.lists(st.fixed_dictionaries({"containerPort": st.integers(1, 3)},
                                            optional={"protocol": st.sampled_from(["TCP", "UDP"])}), max_size=2),
    "args": st.lists(st.text(max_size=2), max_size=2),
})
PODS = st.fixed_dictionaries({
    "apiVersion": st.just("v1"), "kind": st.just("Pod"),
    "metadata": st.fixed_dictionaries({"name": st.just("p")}, optional={
        "labels": st.dictionaries(NAMES, st.sampled_from(["1", "2"]), max_size=2),
        "finalizers": st.lists(NAMES, max_size=2, unique=True),
        # Fields no manager owns: left out of every tree.
        "uid": st.just("u-1"), "namespace": st.just("ns"), "generateName": st.just("p-"),
        "creationTimestamp": st.just("2026-01-01T00:00:00Z"), "resourceVersion": st.just("5"),
        "managedFields": st.just([{"manager": "m", "operation": "Update"}]),
        "annotations": st.dictionaries(NAMES, st.just("a"), max_size=2),
    }),
}, optional={
    "spec": st.fixed_dictionaries({}, optional={
        "containers": st.lists(CONTAINER, max_size=3, unique_by=lambda c: c["name"]),
        "nodeName": SCALARS,
        "volumes": st.lists(st.fixed_dictionaries({"name": NAMES}, optional={"emptyDir": st.just({})}),
                            max_size=2, unique_by=lambda v: v["name"]),
    }),
    "status": st.fixed_dictionaries({}, optional={
        "conditions": st.lists(st.fixed_dictionaries({"type": NAMES, "status": SCALARS}), max_size=2,
                               unique_by=lambda c: c["type"]),
    }),
})


def _create_definition(zero: dict, obj: dict, schema: Any) -> dict:
    """The plain definition of a create's tree: compare with the zero value, take what was added or modified,
    less what no manager owns (smd Updater.Update, stripmeta.go)."""
    return fp.to_fields_v1(update_fields.taken_paths(update_fields.compare(zero, obj, schema)))


@pytest.mark.parametrize("meta", [{}, {"uid": "u"}, ["x"], "text", {"labels": {}}, {"labels": {"a": "1"}, "uid": "u"}])
def test_create_tree_of_odd_metadata_is_the_comparison_encoded(meta: Any) -> None:
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"nodeName": "n"}}
    for schema in (POD, None):
        for zero in (POD_ZERO, {}):
            assert _encoded(update_fields.create_tree(zero, obj, schema)) == _encoded(
                _create_definition(zero, obj, schema))


def _encoded(tree: dict) -> str:
    return json.dumps(tree)  # key order matters: FieldsV1 is serialised sorted


@settings(max_examples=200, deadline=None)
@given(obj=PODS)
def test_create_tree_is_the_comparison_with_the_zero_value_encoded(obj: dict) -> None:
    for schema in (POD, None):
        for zero in (POD_ZERO, {}):
            assert _encoded(update_fields.create_tree(zero, obj, schema)) == _encoded(
                _create_definition(zero, obj, schema))


def test_create_tree_marks_added_containers_and_not_those_of_the_zero_value() -> None:
    # observed on kube-apiserver v1.37.2: labels and a container item are added (".": {}), spec and containers
    # are in Pod's zero value (spec: {containers: null}), so they are not members.
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}},
           "spec": {"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}
    assert update_fields.create_tree(POD_ZERO, obj, POD) == {
        "f:metadata": {"f:labels": {".": {}, "f:a": {}}},
        "f:spec": {"f:containers": {'k:{"name":"c"}': {
            ".": {}, "f:image": {}, "f:name": {},
            "f:ports": {".": {}, 'k:{"containerPort":80,"protocol":"TCP"}': {
                ".": {}, "f:containerPort": {}, "f:protocol": {}}}}}},
    }
    # A custom resource's zero value is empty: its spec is added too.
    assert update_fields.create_tree({}, {"metadata": {"name": "w"}, "spec": {"size": 1}}, None) == {
        "f:spec": {".": {}, "f:size": {}}}


@settings(max_examples=200, deadline=None)
@given(before=PODS, after=PODS)
def test_tree_edits_match_set_arithmetic(before: dict, after: dict) -> None:
    old, new = fp.field_set(before, POD), fp.field_set(after, POD)
    tree = fp.to_fields_v1(old)
    edited = fp.tree_add(fp.tree_remove(tree, old - new), new - old)
    assert _encoded(edited) == _encoded(fp.to_fields_v1(new))
    assert _encoded(tree) == _encoded(fp.to_fields_v1(old))  # copy-on-write: the input is untouched


def test_objects_with_one_spec_share_a_remembered_tree_that_edits_do_not_touch() -> None:
    spec = {"containers": [{"name": "a", "image": "x", "env": [{"name": "E", "value": "1"}]}]}
    first = update_fields.create_tree(POD_ZERO, {"metadata": {"name": "p"}, "spec": json.loads(json.dumps(spec))}, POD)
    second = update_fields.create_tree(POD_ZERO, {"metadata": {"name": "q"}, "spec": json.loads(json.dumps(spec))},
                                       POD)
    assert first["f:spec"] is second["f:spec"]
    before = _encoded(second)
    fp.tree_remove(fp.tree_add(first, {("f:spec", "f:hostname")}), {("f:spec", 'k:{"name":"a"}', "f:image")})
    assert _encoded(second) == before
    assert _encoded(update_fields.create_tree({}, {"spec": spec}, None)) == _encoded(
        _create_definition({}, {"spec": spec}, None))


# -- a manager entry kept as its tree (server-side apply edits the other managers' trees in place of sets) --

PATHS = st.lists(st.lists(st.sampled_from(["f:a", "f:b", 'k:{"name":"x"}', "v:1", "i:0"]), min_size=1,
                          max_size=3).map(tuple), max_size=8).map(set)


@settings(max_examples=300, deadline=None)
@given(before=PODS, lost=PATHS, probe=PATHS)
def test_a_tree_kept_entry_answers_and_loses_like_its_field_set(before: dict, lost: set, probe: set) -> None:
    owned = fp.field_set(before, POD)
    lost = lost | set(list(owned)[: len(lost)])  # some paths it owns, some it does not
    probe = probe | set(list(owned)[-len(probe):] if probe else ())
    tree = fp.to_fields_v1(owned)
    assert fp.is_canonical_tree(tree)
    kept = ManagerEntry("m", "Update", "v1", None, tree=tree)
    assert kept.owned(probe) == owned & probe
    kept.lose(lost)
    assert kept.encode()["fieldsV1"] == fp.to_fields_v1(owned - lost)
    assert _encoded(kept.encode()["fieldsV1"]) == _encoded(fp.to_fields_v1(owned - lost))
    assert kept.fields == owned - lost and kept.has_fields() == bool(owned - lost)
    assert _encoded(tree) == _encoded(fp.to_fields_v1(owned))  # the tree read from the object is untouched


@settings(max_examples=200, deadline=None)
@given(obj=PODS)
def test_only_trees_this_module_writes_are_canonical(obj: dict) -> None:
    tree = fp.to_fields_v1(fp.field_set(obj, POD))
    assert fp.is_canonical_tree(tree)
    assert fp.is_canonical_tree(update_fields.create_tree(POD_ZERO, obj, POD))
    for pe in list(tree)[1:]:  # any level out of order is not
        shuffled = {pe: tree[pe], **{k: v for k, v in tree.items() if k != pe}}
        assert not fp.is_canonical_tree(shuffled)


def test_trees_another_writer_could_send_are_decoded_and_written_again() -> None:
    for odd in ({"f:b": {}, "f:a": {}}, {"f:a": {".": {}}}, {"f:a": {"f:x": {}, ".": {}}}, {"f:a": 1},
                {".": {}}, {"f:a": {".": {"f:z": {}}, "f:x": {}}}, {"": {}}):
        assert not fp.is_canonical_tree(odd)
    entries = decode_managed_fields({"metadata": {"managedFields": [
        {"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:b": {}, "f:a": {".": {}}}}}]}})
    (entry,) = entries.values()
    assert entry.encode()["fieldsV1"] == {"f:spec": {"f:a": {}, "f:b": {}}}
    assert list(entry.encode()["fieldsV1"]["f:spec"]) == ["f:a", "f:b"]


def test_a_remembered_canonical_tree_does_not_vouch_for_a_reordered_or_retyped_one() -> None:
    tree = {"f:metadata": {"f:labels": {".": {}, "f:a": {}}}, "f:spec": {}}
    assert fp.is_canonical_tree(tree) and fp.is_canonical_tree(json.loads(json.dumps(tree)))
    assert not fp.is_canonical_tree({"f:spec": {}, "f:metadata": {"f:labels": {".": {}, "f:a": {}}}})
    assert not fp.is_canonical_tree({"f:metadata": {"f:labels": {"f:a": {}, ".": {}}}, "f:spec": {}})
    assert not fp.is_canonical_tree({"f:metadata": {"f:labels": {".": {}, "f:a": []}}, "f:spec": {}})


def test_only_a_frozen_tree_is_recognised_by_identity() -> None:
    tree = {"f:metadata": {"f:labels": {"f:zz-only-here": {}}}}
    assert fp.is_canonical_tree(tree, frozen=True)
    assert fp.is_canonical_tree(tree, frozen=True)  # the second look is by identity
    # A caller that does not promise to leave its tree alone has it looked at again after a change.
    tree["f:metadata"]["f:labels"]["."] = {}  # "." after a field: not canonical
    assert not fp.is_canonical_tree(tree)
    other = {"f:spec": {"f:b": {}, "f:a": {}}}
    assert not fp.is_canonical_tree(other, frozen=True)
    assert not fp.is_canonical_tree(other, frozen=True)  # a tree found not canonical is not remembered
