"""Hypothesis properties of the patch engines."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.jsonvalues import json_equal
from fakekube.patch import JSON_PATCH, MERGE_PATCH, apply_patch
from fakekube.patch.apply import server_side_apply
from fakekube.patch.json_patch import create_json_patch
from fakekube.patch.merge import create_merge_patch, merge_patch

keys = st.text(alphabet="abcxyz/~", min_size=1, max_size=4)
scalars = st.one_of(st.booleans(), st.integers(-5, 5), st.text(max_size=3))


def documents(allow_null: bool) -> st.SearchStrategy:
    leaves = st.one_of(scalars, st.none()) if allow_null else scalars
    return st.dictionaries(keys, st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
        max_leaves=8,
    ), max_size=4)


@settings(max_examples=150, deadline=None)
@given(documents(True), documents(True))
def test_json_patch_between_two_documents_gives_the_target(a, b):
    patch = create_json_patch(a, b)
    assert apply_patch(a, json.dumps(patch), JSON_PATCH) == b


@settings(max_examples=150, deadline=None)
@given(documents(False), documents(False))
def test_merge_patch_between_two_documents_gives_the_target(a, b):
    patch = create_merge_patch(a, b)
    assert apply_patch(a, json.dumps(patch), MERGE_PATCH) == b


@settings(max_examples=200, deadline=None)
@given(documents(True), documents(True), st.booleans())
def test_a_merge_patch_without_nulls_takes_the_short_path_to_the_same_result(target, patch, share):
    """A patch document whose text holds no null skips the null handling (nothing to delete or prune): the
    result is the one the general path (a decoded body, always walked for nulls) gives, and neither input
    changes."""
    texts = json.dumps(target), json.dumps(patch)
    short = merge_patch(target, patch, share=share)
    general = merge_patch(json.loads(texts[0]), json.loads(texts[1]), share=share, patch_owned=True)
    assert json.dumps(short) == json.dumps(general)
    assert (json.dumps(target), json.dumps(patch)) == texts


@settings(max_examples=100, deadline=None)
@given(documents(False), documents(False))
def test_applying_the_same_configuration_twice_changes_nothing(live_extra, spec):
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": spec}
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "other": live_extra}
    kwargs = dict(manager="m", force=False, schema=None, api_version="v1", subresource=None)
    first = server_side_apply(live, config, now="2026-01-01T00:00:00Z", **kwargs)
    second = server_side_apply(first, config, now="2026-01-02T00:00:00Z", **kwargs)
    assert json.dumps(second, sort_keys=True) == json.dumps(first, sort_keys=True)


names = st.sampled_from(["a", "b", "c", "d"])
containers = st.lists(
    st.fixed_dictionaries({"name": names}, optional={"image": st.sampled_from(["x", "y"]),
                                                       "args": st.lists(st.sampled_from(["-v", "-q"]), max_size=2)}),
    max_size=4, unique_by=lambda c: c["name"],
)
pods = st.fixed_dictionaries({
    "metadata": st.fixed_dictionaries({}, optional={
        "labels": st.dictionaries(names, st.sampled_from(["1", "2"]), max_size=3),
        "finalizers": st.lists(names, max_size=3, unique=True)}),
    "spec": st.fixed_dictionaries({"containers": containers}),
})


@settings(max_examples=200, deadline=None)
@given(pods, pods)
def test_two_way_strategic_patch_gives_the_target(a, b):
    from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
    from fakekube.patch import STRATEGIC_MERGE_PATCH
    from fakekube.patch.strategic_diff import create_strategic_merge_patch

    schema = builtin_schema("", "Pod")
    patch = create_strategic_merge_patch(a, b, schema)
    out = apply_patch(a, json.dumps(patch), STRATEGIC_MERGE_PATCH, schema=schema)
    assert out == b


def _compare_by_definition(old: dict, new: dict, schema) -> tuple[set, set, set]:
    """What the managedFields comparison must find (smd ``typed.Compare``), from every node of each object:
    a node only the new object has is added (a map or list as well as its contents), one only the old object
    has is removed, and a node both have is modified when it is a leaf on both sides (a scalar, an atomic
    value, an empty or null container) and its value changed."""
    before, after = _nodes(old, schema), _nodes(new, schema)
    modified = {path for path in before.keys() & after.keys()
                if before[path][0] and after[path][0] and not json_equal(before[path][1], after[path][1])}
    return set(after) - set(before), set(before) - set(after), modified


def _nodes(value, schema, path=(), out=None) -> dict:
    """path → (is a leaf, value) for every node below the root (managedFields left out)."""
    from fakekube.patch import fieldpath, typed
    from fakekube.patch.schema import UNTYPED

    out = {} if out is None else out
    handler = typed.handler_of(value, schema)
    leaf = True
    if handler == "map" and isinstance(value, dict) and value and schema.map_type != "atomic":
        leaf = False
        for key, child in value.items():
            if path == ("f:metadata",) and key == "managedFields":
                continue
            _nodes(child, schema.field(key) or UNTYPED, (*path, "f:" + key), out)
    elif handler == "list" and isinstance(value, list) and value and fieldpath.list_kind(schema) != "atomic":
        pes = typed.item_elements(value, schema, fieldpath.list_kind(schema))
        if pes is not None:
            leaf = False
            for pe, item in zip(pes, value, strict=True):
                if pes.count(pe) > 1:
                    out[(*path, pe)] = (True, [v for p, v in zip(pes, value, strict=True) if p == pe])
                else:
                    _nodes(item, schema.item(), (*path, pe), out)
    if path:
        out[path] = (leaf, value)
    return out


scalar_changes = st.fixed_dictionaries({}, optional={
    "restartPolicy": st.sampled_from(["Always", "Never"]), "priority": st.sampled_from([0, 1, 1.0, True]),
    "nodeSelector": st.dictionaries(names, st.sampled_from(["1", "2", 1]), max_size=2)})


@settings(max_examples=200, deadline=None)
@given(pods, pods, scalar_changes, scalar_changes)
def test_the_managed_fields_comparison_is_the_node_definition(a, b, extra_a, extra_b):
    from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
    from fakekube.patch.update_fields import compare

    schema = builtin_schema("", "Pod")
    a["spec"].update(extra_a)
    b["spec"].update(extra_b)
    found = compare(a, b, schema)
    assert (found.added, found.removed, found.modified) == _compare_by_definition(a, b, schema)
