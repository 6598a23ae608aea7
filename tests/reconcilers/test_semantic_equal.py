"""``semantic_equal`` compares without building omit-empty copies: it must agree with the definition."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.agentsandbox.objects import semantic_equal


def omit_empty(value: Any) -> Any:
    """The definition: Go's ``omitempty`` drops zero scalars, empty lists and maps left empty, recursively."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = omit_empty(v)
            if v in (None, "", 0, False, {}, []):
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [omit_empty(v) for v in value]
    return value


scalars = st.sampled_from([None, "", "a", "b", 0, 1, 0.0, 2.5, False, True])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from("xyz"), inner, max_size=3), max_leaves=12)
objects = st.dictionaries(st.sampled_from("xyz"), values, max_size=4)


@settings(max_examples=400, deadline=None)
@given(objects, objects)
def test_agrees_with_the_omit_empty_definition(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert semantic_equal(a, b) == (omit_empty(a) == omit_empty(b))
    assert semantic_equal(b, a) == semantic_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(objects)
def test_adding_empty_fields_keeps_an_object_equal(a: dict[str, Any]) -> None:
    padded = {**a, "w": {"x": [], "y": {"z": ""}}, "v": None}
    assert semantic_equal(a, padded)


def test_cases_near_the_edges() -> None:
    assert semantic_equal(None, {"a": {"b": {}}})
    assert not semantic_equal({"a": [{}]}, {})  # an element of a list is never dropped
    assert semantic_equal({"a": [{"b": 0}]}, {"a": [{}]})
    assert not semantic_equal({"a": {"b": 1}}, {"a": [1]})
    assert not semantic_equal({"a": "x"}, {"a": {"x": 1}})
    assert semantic_equal({"a": 1}, {"a": True})  # as Python's == on the copies
