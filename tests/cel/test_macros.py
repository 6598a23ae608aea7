"""cel-go macros expanded before compiling (fakekube.cel.macros): ``sortBy``, with the cases of
github.com/google/cel-go v0.29.2 ext/lists_test.go (``TestLists``, the cost case ``list_sortBy``), and the
optional library's ``first()``/``last()`` (cel/cel_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakekube.cel import macros, rules
from tests.cel.test_cost import _estimate

T = cel.Type


def _eval(expression: str, data: dict[str, Any] | None = None) -> Any:
    variables = {name: T.DYN for name in (data or {})}
    result = rules._compile(expression, variables).eval(data=data or {})
    if result.type() == T.ERROR:
        return ("error", rules.issues_text(RuntimeError(str(result.value()))))
    return result.plain_value()


@pytest.mark.parametrize("expression", [
    "[].sortBy(e, e) == []",  # lists_test.go
    '["a"].sortBy(e, e) == ["a"]',
    "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]",
    "[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]",
    "lists.range(3).sortBy(e, -e) == [2, 1, 0]",
    '["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e) == ["first", "a", "b", "c"]',
    "[{'field': 'lo'}, {'field': 'hi'}].sortBy(m, m.field) == [{'field': 'hi'}, {'field': 'lo'}]",
    "[{'x':4}, {'x':3}].sortBy(m, m['x']) == [{'x':3}, {'x':4}]",
    "[1, 2, 3].last() == optional.of(3) && [].first() == optional.none()",  # cel_test.go
    "['a','b','c'].first() == optional.of('a')",
    "[3, 1, 2].sortBy(x, x).sortBy(y, -y).first().value() == 3",
])
def test_true(expression: str) -> None:
    assert _eval(expression) is True


def test_sort_by_variable() -> None:  # lists_test.go list_sortBy_var
    assert _eval("x.sortBy(m, m['x']) == [{'x':3}, {'x':4}]", {"x": [{"x": 4}, {"x": 3}]}) is True


def test_keys_of_two_types() -> None:  # sortListByAssociatedKeys's error
    assert _eval("x.sortBy(e, e)", {"x": [1, "a"]}) == ("error", "list elements must have the same type")


def test_estimated_cost() -> None:  # lists_test.go list_sortBy: FixedCostEstimate(211)
    assert _estimate({"type": "string"}, "[{'x':4}, {'x':3}].sortBy(m, m['x']) == [{'x':3}, {'x':4}]") == 211


def test_expansion_keeps_columns() -> None:
    source = "self.sortBy(x, x + 'a') == []"
    rewritten = macros.rewrite(source)
    assert rewritten is not None and rewritten.text.startswith("cel.bind(__sortBy_input__, self, ")
    with pytest.raises(Exception) as info:
        rules._compile(source, {"self": T.List(T.INT)})
    assert rules.issues_text(info.value) == (
        "ERROR: <input>:1:18: found no matching overload for '_+_' applied to '(int, string)'\n"
        " | self.sortBy(x, x + 'a') == []\n | .................^")


def test_refused_key() -> None:
    with pytest.raises(Exception) as info:
        rules._compile("[1, 2].sortBy(x, [x]).size() > 0", {})
    assert ("ERROR: <input>:1:14: found no matching overload for '@sortByAssociatedKeys' applied to "
            "'list(int).(list(list(int)))'") in rules.issues_text(info.value)


@pytest.mark.parametrize(("source", "receiver"), [
    ("a.b.c.sortBy(x, x)", "a.b.c"), ("f(a)[0].b.sortBy(x, x)", "f(a)[0].b"), ("!(a + b).sortBy(x, x)", "(a + b)"),
    ("x && [1, 2].sortBy(x, x)", "[1, 2]"), ("a.map(y, y).sortBy(x, x)", "a.map(y, y)"),
])
def test_receiver(source: str, receiver: str) -> None:
    rewritten = macros.rewrite(source)
    assert rewritten is not None
    assert f"cel.bind(__sortBy_input__, {receiver}, " in rewritten.text
