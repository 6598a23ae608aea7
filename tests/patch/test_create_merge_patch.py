"""``create_merge_patch`` skips subtrees the two documents share or that have the same JSON text; those
shortcuts must give exactly the patch of the plain definition (key by key, JSON equality at the leaves)."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.jsonvalues import json_equal
from fakekube.patch.merge import create_merge_patch

keys = st.sampled_from(["a", "b", "c", "d"])
# true/1/1.0 are equal to Python inside containers but not to JSON: the shortcuts must not confuse them.
scalars = st.one_of(st.sampled_from([True, False, 1, 0, 1.0, 0.0, 2]), st.text(alphabet="xy", max_size=2))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(keys, inner, max_size=3)), max_leaves=10)
documents = st.dictionaries(keys, values, max_size=4)


def reference(original: dict, modified: dict) -> dict:
    """The definition, with no shortcut: removed keys are null, dicts are diffed, anything else sent whole."""
    patch: dict[str, Any] = {}
    for key in original:
        if key not in modified:
            patch[key] = None
    for key, new in modified.items():
        if key not in original:
            patch[key] = new
        elif isinstance(original[key], dict) and isinstance(new, dict):
            sub = reference(original[key], new)
            if sub:
                patch[key] = sub
        elif not json_equal(original[key], new):
            patch[key] = new
    return patch


def _sharing(original: dict, edits: dict, draw_keys: list[str]) -> dict:
    """``original`` with some top-level values replaced by ``edits``, the rest shared by reference."""
    modified = {k: v for k, v in original.items() if k not in draw_keys}
    modified.update(edits)
    return modified


@settings(max_examples=300, deadline=None)
@given(documents, documents)
def test_the_patch_is_the_definitions_patch(a, b):
    patch = create_merge_patch(a, b)
    assert json.dumps(patch) == json.dumps(reference(a, b))  # the same keys, in the same order, same literals


@settings(max_examples=300, deadline=None)
@given(documents, documents, st.lists(keys, max_size=3))
def test_shared_subtrees_are_unchanged_and_copies_diff_as_the_definition_says(a, edits, dropped):
    b = _sharing(a, edits, dropped)
    assert json.dumps(create_merge_patch(a, b)) == json.dumps(reference(a, b))
    deep = copy.deepcopy(b)  # the same values without shared objects: the same patch
    assert json.dumps(create_merge_patch(a, deep)) == json.dumps(reference(a, b))


def test_equal_to_python_but_not_to_json_is_a_change():
    base = {"spec": {"flag": 1, "ratio": 1, "items": [1, True]}}
    changed = {"spec": {"flag": True, "ratio": 1.0, "items": [True, 1]}}
    assert base == changed  # Python says so; JSON does not (true is not 1)
    assert create_merge_patch(base, changed) == {"spec": {"flag": True, "items": [True, 1]}}


def test_a_shared_subtree_is_not_walked_and_not_sent():
    spec = {"containers": [{"name": "a"}]}
    base = {"metadata": {"name": "x"}, "spec": spec, "status": {"phase": "Pending"}}
    modified = {**base, "status": {"phase": "Running"}}
    assert create_merge_patch(base, modified) == {"status": {"phase": "Running"}}
    del modified["spec"]
    assert create_merge_patch(base, modified) == {"spec": None, "status": {"phase": "Running"}}
