"""Compiling rules (fakekube.cel.rules, fakekube.cel.fields): each error text observed on kube-apiserver
v1.37.2 (tests/differential/corpus/crd-cel.yaml, crd-rules-refused) — apiextensions-apiserver
pkg/apiserver/schema/cel/compilation.go and cel-go's checker."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakekube.cel.rules import compile_rule

T = cel.Type
OBJ = {"type": "object", "properties": {"x": {"type": "object", "properties": {"y": {"type": "string"}}},
                                        "s": {"type": "string"}}}


@pytest.mark.parametrize(("rule", "schema", "error"), [
    ({"rule": "self <"}, {"type": "string"},
     "compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', "
     "'.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
     " | self <\n | ......^"),
    ({"rule": "self.size( > 1"}, {"type": "string"},
     "compilation failed: ERROR: <input>:1:12: Syntax error: extraneous input '>' expecting {'[', '{', '(', ')', "
     "'.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
     " | self.size( > 1\n | ...........^\nERROR: <input>:1:15: Syntax error: missing ')' at '<EOF>'\n"
     " | self.size( > 1\n | ..............^"),
    ({"rule": "self + 1 > 2"}, {"type": "string"},
     "compilation failed: ERROR: <input>:1:6: found no matching overload for '_+_' applied to '(string, int)'\n"
     " | self + 1 > 2\n | .....^"),
    ({"rule": "self"}, {"type": "string"}, "cel expression must evaluate to a bool"),
    ({"rule": "other == 1"}, {"type": "string"},
     "compilation failed: ERROR: <input>:1:1: undeclared reference to 'other' (in container '')\n"
     " | other == 1\n | ^"),
    ({"rule": "self.nope == 'a'"}, OBJ,
     "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 'a'\n | ....^"),
    ({"rule": "has(self.x.z)"}, OBJ,
     "compilation failed: ERROR: <input>:1:4: undefined field 'z'\n | has(self.x.z)\n | ...^"),
    ({"rule": r"self.matches('(a)\\1')"}, {"type": "string"},
     "compilation failed: ERROR: <input>:1:14: invalid matches argument\n"
     r" | self.matches('(a)\\1')" "\n | .............^"),
])
def test_compile_errors(rule: dict[str, Any], schema: dict[str, Any], error: str) -> None:
    from fakekube.cel.types import cel_type

    compiled = compile_rule(rule, cel_type(schema), schema)
    assert compiled.error == error
    assert compiled.program is None


@pytest.mark.parametrize(("expression", "error"), [
    ("'a' +", "messageExpression compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' "
              "expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
              "STRING, BYTES, IDENTIFIER}\n | 'a' +\n | .....^"),
    ("1", "messageExpression must evaluate to a string"),
])
def test_message_expression_errors(expression: str, error: str) -> None:
    compiled = compile_rule({"rule": "self != ''", "messageExpression": expression}, T.STRING, {"type": "string"})
    assert compiled.error == ""
    assert compiled.message_error == error


def test_fields_of_objects_and_maps_that_exist_compile() -> None:
    schema = {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}},
                                               "foo-bar": {"type": "integer"}}}
    for rule in ("self.m.anything == 'a'", "has(self.m.k)", "self.foo__dash__bar > 0", "self.m.size() < 3"):
        assert compile_rule({"rule": rule}, T.Map(T.STRING, T.DYN), schema).error == ""


def test_transition_rules_are_told_apart() -> None:
    assert compile_rule({"rule": "self == oldSelf"}, T.INT).uses_old_self
    assert not compile_rule({"rule": "self > 0"}, T.INT).uses_old_self


def test_optional_old_self_is_an_optional_and_errors_keep_their_columns() -> None:
    ok = compile_rule({"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "optionalOldSelf": True}, T.INT)
    assert ok.error == "" and ok.uses_old_self
    bad = compile_rule({"rule": "oldSelf + 1 < self", "optionalOldSelf": True}, T.INT)
    assert bad.error == ("compilation failed: ERROR: <input>:1:9: found no matching overload for '_+_' applied to "
                         "'(optional_type(int), int)'\n | oldSelf + 1 < self\n | ........^")


@pytest.mark.parametrize(("rule", "error"), [
    # cel.CrossTypeNumericComparisons(true) in the base environment: ordering across numeric types compiles.
    ("self.n > 1.5 && self.d <= 1 && 2 > 1.5", ""),
    ("self.n == 1.0", "compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to "
                      "'(int, double)'\n | self.n == 1.0\n | .......^"),
    # The types of an object's members, as cel-go's object types give them.
    ("self.s + 1 > 2", "compilation failed: ERROR: <input>:1:8: found no matching overload for '_+_' applied to "
                       "'(string, int)'\n | self.s + 1 > 2\n | .......^"),
    ("self.s", "cel expression must evaluate to a bool"),
    ("self.l.all(x, x > 1)", "compilation failed: ERROR: <input>:1:17: found no matching overload for '_>_' "
                             "applied to '(string, int)'\n | self.l.all(x, x > 1)\n | ................^"),
    ("self.n > 1.5 && self.s + 1 == 2", "compilation failed: ERROR: <input>:1:24: found no matching overload for "
                                        "'_+_' applied to '(string, int)'\n | self.n > 1.5 && self.s + 1 == 2\n"
                                        " | .......................^"),
])
def test_member_types_and_numeric_comparisons(rule: str, error: str) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "d": {"type": "number"},
                                               "s": {"type": "string"},
                                               "l": {"type": "array", "items": {"type": "string"}}}}
    assert compile_rule({"rule": rule}, T.Map(T.STRING, T.DYN), schema).error == error


def test_a_message_expression_of_a_member_that_is_not_a_string() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    compiled = compile_rule({"rule": "self.n > 0", "messageExpression": "self.n"}, T.Map(T.STRING, T.DYN), schema)
    assert compiled.message_error == "messageExpression must evaluate to a string"
