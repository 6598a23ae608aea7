"""The strategic merge of a list of maps whose patch only names live items, in the live order, merges them in
place (``strategic._merged_in_place``); the general path's ordering must give the same list."""

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
