"""``json_copy`` (orjson's C round trip with a Python fallback) gives what the Python walk gives: an equal,
independent copy with the same types — and falls back wherever the C round trip would not."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from fakekube import jsonvalues
from fakekube.jsonvalues import copy_with_text, encode_json, json_copy, json_equal, walk_copy

JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
              st.text(max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=3), inner, max_size=4)),
    max_leaves=20,
)


def _typed(value: object) -> object:
    """A rendering that tells 1 from 1.0 from True and NaN from null, for comparing copies exactly."""
    if isinstance(value, dict):
        return {"dict": [(k, _typed(v)) for k, v in value.items()]}
    if isinstance(value, list | tuple):
        return {type(value).__name__: [_typed(v) for v in value]}
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return [type(value).__name__, repr(value)]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.dictionaries(st.text(max_size=3), JSON, max_size=5), st.lists(JSON, max_size=5)))
def test_the_copy_is_the_walks_copy_and_shares_nothing(doc: object) -> None:
    copy = json_copy(doc)
    assert _typed(copy) == _typed(walk_copy(doc))
    before = json.dumps(_typed(doc))
    if isinstance(copy, dict):
        copy["added"] = 1
        for value in copy.values():
            if isinstance(value, dict | list):
                value.clear()
    assert json.dumps(_typed(doc)) == before


@pytest.mark.parametrize("value", [
    {"a": float("nan")}, {"a": [float("inf")]}, {1: "int key"}, {"a": 2**64}, {"a": "\ud800"},
    {"a": datetime.datetime(2026, 1, 1)},
])
def test_values_the_c_round_trip_would_change_take_the_walk(value: dict) -> None:
    copy = json_copy(value)
    assert _typed(copy) == _typed(walk_copy(value))
    assert copy is not value


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.dictionaries(st.text(max_size=3), JSON, max_size=5), st.lists(JSON, max_size=5)))
def test_copy_with_text_is_json_copy_and_encode_json(doc: object) -> None:
    copy, data = copy_with_text(doc)
    assert _typed(copy) == _typed(json_copy(doc))
    assert data == encode_json(doc)
    assert copy is not doc


@pytest.mark.parametrize("value", [
    {"a": float("nan")}, {"a": 2**64}, {1: "int key"}, {"a": datetime.datetime(2026, 1, 1)}, {"a": None},
])
def test_copy_with_text_has_no_text_where_encode_json_has_none(value: dict) -> None:
    copy, data = copy_with_text(value)
    assert data == encode_json(value)
    assert _typed(copy) == _typed(walk_copy(value))


def test_a_tuple_inside_a_document_comes_back_as_a_list_as_from_json() -> None:
    assert json_copy({"a": (1, 2)}) == {"a": [1, 2]} == json.loads(json.dumps({"a": (1, 2)}))
    top = (1, 2)
    assert json_copy(top) is top  # not a document: returned as it is, as before


def test_subclasses_and_dataclasses_keep_their_type() -> None:
    class Name(str):
        pass

    @dataclasses.dataclass
    class Point:
        x: int

    value = {"name": Name("n"), "point": Point(1)}
    copy = json_copy(value)
    assert type(copy["name"]) is Name and copy["point"] is value["point"]
    assert encode_json(value) is None


def test_without_orjson_everything_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonvalues, "_dumps", None)
    doc = {"a": [1, 2.0, True, None, {"b": "c"}]}
    assert encode_json(doc) is None
    assert _typed(json_copy(doc)) == _typed(doc)


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_json_equal_is_the_walks_equality(a: object, b: object) -> None:
    assert json_equal(a, b) == jsonvalues._walk_equal(a, b)
    assert json_equal(a, a) == jsonvalues._walk_equal(a, a)


@pytest.mark.parametrize(("a", "b", "equal"), [
    ([1], [1.0], True), ([1], [True], False), ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
    ({"a": [True]}, {"a": [1]}, False), ([float("nan")], [float("nan")], False), ([None], [None], True),
])
def test_json_equal_cases(a: object, b: object, equal: bool) -> None:
    assert json_equal(a, b) is equal


def test_json_text_is_orjson_text_without_the_exactness_check() -> None:
    from fakekube.jsonvalues import encode_json, json_text

    assert json_text({"a": [1, 1.0, True, None]}) == b'{"a":[1,1.0,true,null]}'
    nan = {"x": float("nan")}
    assert json_text(nan) == b'{"x":null}' and encode_json(nan) is None  # the caller compares values as well

    class Sub(dict):  # type: ignore[type-arg]
        pass

    assert json_text(Sub(a=1)) is None and json_text({1: "a"}) is None


@pytest.mark.parametrize(("a", "b", "same"), [
    ({"a": 1, "b": [True]}, {"a": 1, "b": [True]}, True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # equal dicts, keys in another order: other bytes
    ({"a": 1}, {"a": True}, False),
    ({"a": 1}, {"a": 1.0}, False),
    (1, True, False),
    (0.0, -0.0, False),
    (1.5, 1.5, True),
    ("x", "x", True),
    (None, None, True),
    (float("nan"), float("nan"), False),
    ({"x": float("nan")}, {"x": None}, False),  # orjson writes both as null; the values differ
])
def test_same_json_text_is_equal_values_written_alike(a: object, b: object, same: bool) -> None:
    from fakekube.jsonvalues import same_json_text

    assert same_json_text(a, b) is same
    assert same_json_text(b, a) is same


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_same_json_text_agrees_with_comparing_both_texts(a: object, b: object) -> None:
    from fakekube.jsonvalues import json_text, same_json_text

    def text(value: object) -> str:
        return json.dumps(value, allow_nan=True)

    alike = a == b and text(a) == text(b)
    if same_json_text(a, b):
        assert alike
    elif alike:  # only where orjson cannot write the value (an integer beyond 64 bits, inside a container)
        assert json_text(a) is None
    assert same_json_text(a, a)  # the very same object
