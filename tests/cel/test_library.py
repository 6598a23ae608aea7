"""The Kubernetes CEL library functions (k8s.io/apiserver pkg/cel/library/lists.go and regex.go, v0.37.2;
the expected values are those of its lists_test.go and regex_test.go tables)."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakekube.cel.env import environment
from fakekube.cel.rules import issues_text

T = cel.Type


def _eval(expression: str) -> Any:
    result = environment({}).compile(expression).eval()
    if result.type() == T.ERROR:
        return ("error", issues_text(RuntimeError(str(result.value()))))
    return result.plain_value()


@pytest.mark.parametrize(("expression", "expected"), [
    ("[1, 2, 3].isSorted()", True), ("[3, 1].isSorted()", False), ("['a', 'b'].isSorted()", True),
    ("[].isSorted()", True), ("[1, 2, 3].sum()", 6), ("[1.5, 2.0].sum()", 3.5), ("[].sum()", 0),
    ("[1, 3, 2].max()", 3), ("[1, 3, 2].min()", 1), ("['b', 'a'].min()", "a"),
    ("[1, 2, 1].indexOf(1)", 0), ("[1, 2, 1].lastIndexOf(1)", 2), ("[1, 2].indexOf(5)", -1),
    ("'abc'.indexOf('c')", 2),  # the strings extension's indexOf still answers for strings
    ("[1, 2].includes(2)", True), ("[1, 2].includes(3)", False),
    ("'abc 123'.find('[0-9]+')", "123"), ("'abc'.find('[0-9]+')", ""),
    ("'a1b2c3'.findAll('[0-9]')", ["1", "2", "3"]), ("'a1b2c3'.findAll('[0-9]', 2)", ["1", "2"]),
    ("'a1b2c3'.findAll('[0-9]', 0)", []),
    # cel-go's sets extension and lists extension v3 (k8s.io/apiserver pkg/cel/environment/base.go).
    ("sets.contains([1, 2, 3], [2, 1])", True), ("sets.contains([1], [1.0])", True),
    ("sets.equivalent([1, 2], [2, 1, 1])", True), ("sets.intersects([1], [2])", False),
    ("lists.range(3)", [0, 1, 2]), ("[1, 2, 1].distinct()", [1, 2]), ("[[1], [2, [3]]].flatten()", [1, 2, [3]]),
    ("[[1], [2, [3]]].flatten(2)", [1, 2, 3]), ("[1, 2, 3].slice(1, 3)", [2, 3]), ("[3, 1, 2].sort()", [1, 2, 3]),
    ("[1, 2, 3].reverse()", [3, 2, 1]),
    ("[1, 2, 3].slice(2, 1)", ("error", "cannot slice(2, 1), start index must be less than or equal to end index")),
])
def test_library_functions(expression: str, expected: Any) -> None:
    assert _eval(expression) == expected


def test_empty_list_has_no_max() -> None:
    assert _eval("[].max()") == ("error", "max(list) argument must not be empty")


def test_regex_is_re2_backreferences_are_errors() -> None:
    # Go's regexp (RE2) has no backreferences: an error, never a backtracking match.
    assert _eval(r"'aa'.find('(a)\\1')") == ("error", r"Illegal regex: error parsing regexp: invalid escape "
                                                      r"sequence: `\1`")
    assert _eval(r"'aa'.matches('(a)\\1')")[0] == "error"


def test_list_functions_refuse_element_types_they_do_not_have() -> None:
    with pytest.raises(RuntimeError, match="found no matching overload for 'sum' applied to '\\(list\\(string\\)\\)'"):
        environment({}).compile("['a'].sum() == 'a'")
