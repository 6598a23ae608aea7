"""The strategic merge of a list of maps whose patch only names live items, in the live order, merges them in
place (``strategic._merged_in_place``), one whose patch only brings new items puts them first
(``strategic._only_new_items``), and a new value with neither nulls nor directives is stored without the two
walks (``strategic._store_new_value``); the general paths must give the same results."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.patch import strategic
from fakekube.patch.schema import PatchSchema, merge_list

names = st.sampled_from(["a", "b", "c", "d", 1, 1.0, True])
items = st.fixed_dictionaries({"name": names}, optional={"x": st.integers(0, 3), "$patch": st.just("delete"),
                                                          "y": st.none()})
lists = st.lists(st.one_of(items, items, items, st.fixed_dictionaries({"x": st.integers(0, 3)})), max_size=4)


def _schema() -> PatchSchema:
    return merge_list("name")


def _merge(original: list, patch: list, general: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as m:
        if general:
            m.setattr(strategic, "_merged_in_place", lambda *_: None)
            m.setattr(strategic, "_only_new_items", lambda *_: False)
        try:
            out = strategic._merge_list(json.loads(json.dumps(original)), json.loads(json.dumps(patch)),
                                        _schema(), "name", False)
        except strategic.SmpError as exc:
            return f"{type(exc).__name__}: {exc}"
    return json.dumps(out)


@settings(max_examples=300, deadline=None)
@given(lists, lists)
def test_in_place_merge_is_the_general_merge(original: list, patch: list) -> None:
    monkeypatch = pytest.MonkeyPatch()
    assert _merge(original, patch, False, monkeypatch) == _merge(original, patch, True, monkeypatch)


@pytest.mark.parametrize(("original", "patch", "in_place"), [
    ([{"name": "a"}, {"name": "b"}], [{"name": "b", "x": 1}], [1]),
    ([{"name": "a"}, {"name": "b"}], [{"name": "a"}, {"name": "b"}], [0, 1]),
    ([{"name": "a"}, {"name": "b"}], [{"name": "b"}, {"name": "a"}], None),  # another order: reordered
    ([{"name": "a"}, {"name": "b"}], [{"name": "c"}], None),  # a new item
    ([{"name": "a"}, {"name": "a"}], [{"name": "a"}], None),  # duplicate live keys
    ([{"name": 1}], [{"name": 1.0}], None),  # Go tells 1 and 1.0 apart
    ([{"name": "a"}], [{"name": "a", "$patch": "delete"}], None),
])
def test_which_lists_merge_in_place(original: list, patch: list, in_place: list | None) -> None:
    assert strategic._merged_in_place(original, patch, "name") == in_place


new_names = st.sampled_from(["x", "y", "z", 2, 2.0, False])
new_items = st.fixed_dictionaries({"name": new_names}, optional={"x": st.integers(0, 3), "y": st.none(),
                                                                  "$patch": st.just("delete")})


def _go_key(item: dict) -> tuple:
    return (type(item.get("name")), item.get("name"))


live_items = st.lists(st.fixed_dictionaries({"name": names}, optional={"x": st.integers(0, 3)}), max_size=4,
                      unique_by=_go_key)


@settings(max_examples=300, deadline=None)
@given(st.one_of(live_items, lists),
       st.one_of(st.lists(new_items, max_size=4, unique_by=_go_key),
                 st.lists(st.one_of(new_items, new_items, st.fixed_dictionaries({"x": st.integers(0, 3)})),
                          max_size=4)))
def test_a_patch_of_new_items_merges_as_the_general_merge(original: list, patch: list) -> None:
    monkeypatch = pytest.MonkeyPatch()
    assert _merge(original, patch, False, monkeypatch) == _merge(original, patch, True, monkeypatch)


@pytest.mark.parametrize(("original", "patch", "only_new"), [
    ([{"name": "a"}], [{"name": "b"}, {"name": "c"}], True),
    ([], [{"name": "b"}], True),
    ([{"name": "a"}], [{"name": "b"}, {"name": "a"}], False),  # names a live item
    ([{"name": "a"}], [{"name": "b"}, {"name": "b"}], False),  # the same new item twice
    ([{"name": 1}], [{"name": 1.0}], True),  # Go tells 1 and 1.0 apart
    ([{"name": "a"}, {"name": "a"}], [{"name": "b"}], False),  # duplicate live keys
    ([{"name": "a"}], [{"name": "b", "$patch": "delete"}], False),
    ([{"x": 1}], [{"name": "b"}], False),
])
def test_which_patches_bring_only_new_items(original: list, patch: list, only_new: bool) -> None:
    assert strategic._only_new_items(original, patch, "name") is only_new


def test_new_items_go_first_in_the_patch_order() -> None:
    original = [{"type": "PodScheduled", "status": "True"}]
    patch = [{"type": "ContainersReady", "status": "True"}, {"type": "Ready", "status": "True"}]
    merged = strategic._merge_list(original, json.loads(json.dumps(patch)), merge_list("type"), "type", False)
    assert [c["type"] for c in merged] == ["ContainersReady", "Ready", "PodScheduled"]


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text("$patchnul", max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["a", "$patch", "null", "b"]), inner, max_size=3)),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_a_new_value_is_stored_as_the_walks_store_it(value: object) -> None:
    def store(walks: bool) -> str:
        with pytest.MonkeyPatch().context() as m:
            if walks:
                m.setattr(strategic, "encode_json", lambda _value: None)
            holder: dict = {}
            strategic._store_new_value(holder, "k", json.loads(json.dumps(value)))
        return json.dumps(holder)

    assert store(False) == store(True)
