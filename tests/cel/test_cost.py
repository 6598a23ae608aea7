"""Estimated costs of CRD validation rules against upstream's own tables.

k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/celcoststability_test.go``
(``TestCelEstimatedCostStability``), v0.37.2: each rule's exact ``MaxCost`` at a schema of properties
``val1``, ``val2``, ... The other figures were computed by upstream's estimator itself
(``cel.Compile`` of k8s.io/apiextensions-apiserver v0.37.2, run on the same schema and rule; marked
``# upstream estimator``), for what the tables do not cover: bounded sizes, nested comprehensions, the
Kubernetes library, and cel-go's shared path slices.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.cel import checked, cost, declsize, rules
from fakekube.cel import types as celtypes


def _p(kind: str, fmt: str = "") -> dict[str, Any]:
    return {"type": kind, **({"format": fmt} if fmt else {})}


def _vals(*schemas: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {f"val{i + 1}": s for i, s in enumerate(schemas)}}


def _same(v1: str, v2: str, literal: str) -> str:  # ValsEqualThemselvesAndDataLiteral
    return f"{v1} == {literal} && {literal} == {v1} && {v1} == {v2}"


STRING, BYTES, BOOL, INT, NUMBER = _p("string"), _p("string", "byte"), _p("boolean"), _p("integer"), _p("number")
DURATION, DATE, DATETIME = _p("string", "duration"), _p("string", "date"), _p("string", "date-time")


def _list(items: dict[str, Any], kind: str = "atomic") -> dict[str, Any]:
    return {"type": "array", "x-kubernetes-list-type": kind, "items": items}


UPSTREAM_TABLE = [  # TestCelEstimatedCostStability
    (_vals(INT, INT), _same("self.val1", "self.val2", str(2**63 - 1)), 8),
    (_vals(INT, INT), "type(self.val1) == int", 4),
    (_vals(NUMBER, NUMBER, NUMBER, NUMBER, NUMBER, NUMBER, NUMBER), "self.val7 == 1.0", 2),
    (_vals(INT, NUMBER, NUMBER, NUMBER), "double(self.val1) < self.val4", 6),
    (_vals(INT), "double(5) < 10.0", 2),
    (_vals(STRING, STRING), _same("self.val1", "self.val2", "'Rook takes 👑'"), 314585),
    (_vals(STRING, STRING), "self.val1.startsWith('Rook')", 3),
    (_vals(STRING, STRING), "!self.val1.startsWith('knight')", 4),
    (_vals(STRING, STRING), "self.val1.matches('^[^0-9]*$')", 943721),
    (_vals(STRING, STRING), "!self.val1.matches('^[0-9]*$')", 629149),
    (_vals(STRING, STRING), "size(self.val1) == 12", 4),
    (_vals(STRING, STRING), "self.val1.charAt(3) == 'k'", 4),
    (_vals(STRING, STRING), "self.val1.indexOf('o') == 1", 314576),
    (_vals(STRING, STRING), "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", 629150),
    (_vals(STRING, STRING), "self.val1.split(' ') == ['Rook', 'takes', '👑']", 629159),
    (_vals(STRING, STRING), "self.val1.split(' ', 2) == ['Rook', 'takes 👑']", 629159),
    (_vals(STRING, STRING), "self.val1.substring(5) == 'takes 👑'", 314576),
    (_vals(STRING, STRING), "self.val1.substring(4, 10).trim() == 'takes'", 629149),
    (_vals(STRING, STRING), "self.val1.upperAscii() == 'ROOK TAKES 👑'", 314577),
    (_vals(STRING, STRING), "self.val1.lowerAscii() == self.val1.lowerAscii()", 943723),
    (_vals(STRING, STRING), _same("self.val1", "self.val2", "'l1\\nl2'"), 314583),
    (_vals(BYTES, BYTES), "self.val1 == self.val2", 314577),
    (_vals(BYTES, BYTES), "self.val1 == b'AB'", 3),
    (_vals(BOOL, BOOL, BOOL, BOOL), "self.val1 != self.val4", 4),
    (_vals(DURATION, DURATION), _same("self.val1", "self.val2", "duration('1h2m3s4ms')"), 16),
    (_vals(DURATION, DURATION), "self.val1 == duration('1h2m') + duration('3s4ms')", 6),
    (_vals(DATE, DATE), _same("self.val1", "self.val2", "timestamp('1997-07-16T00:00:00.000Z')"), 14),
    (_vals(DATETIME, DATETIME), "self.val1.getDate('01:00') == 18", 4),
    ({"type": "object", "properties": {"enumStr": {"type": "string", "enum": [
        "Pending", "Available", "Bound", "Released", "Failed"]}}}, "self.enumStr in ['Pending', 'Available']", 14),
    (_vals(INT, NUMBER, NUMBER, NUMBER, BOOL, STRING, BYTES), "bytes(self.val6) == self.val7", 629150),
    (_vals(INT, NUMBER, NUMBER, NUMBER, BOOL, STRING, BYTES), "string(self.val1) == self.val6", 314578),
    (_vals(INT, NUMBER, NUMBER, NUMBER, BOOL, STRING, BYTES), "string(self.val7) == self.val6", 629150),
    (_vals(_list(INT), _list(INT)), _same("self.val1", "self.val2", "[1, 2, 3]"), 157317),
    (_vals(_list(INT), _list(INT)), "1 in self.val1", 1572865),
    (_vals(_list(INT), _list(INT)), "self.val2[0] in self.val1", 1572868),
    (_vals(_list(INT), _list(INT)), "self.val1 + [4, 5] == [1, 2, 3, 4, 5]", 24),
    (_vals(_list(INT), _list(INT)), "has(self.val1) && has(self.val2)", 2),
    (_vals(_list(INT), _list(INT)), "self.val1.all(k, size(self.val1) > 0)", 11010044),
    (_vals(_list(INT), _list(INT)), "self.val1.exists_one(k, self.val1 == [2])", 23592949),
    (_vals(_list(INT), _list(INT)), "size(self.val1.filter(k, size(self.val1) > 1)) == 1", 26738686),
    (_vals(_list(STRING, "set"), _list(STRING, "set")), "self.val1 == self.val2", 104862),
    (_vals(_list(STRING, "set"), _list(STRING, "set")), "!self.val1.exists_one(k, size(self.val1) > 0)", 6291455),
]

_ITEM = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "maxLength": 63}, "port": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}}}}
_BOUNDED = {"type": "object", "properties": {
    "l": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
    "lsm": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 8}},
    "s": {"type": "string", "maxLength": 20}, "q": {"type": "string", "maxLength": 30},
    "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": _ITEM},
    "m": {"type": "object", "additionalProperties": {"type": "string"}},
}}
UPSTREAM_ESTIMATOR = [  # upstream estimator
    (_BOUNDED, "self.s.split(',').join('-') != ''", 1844674407370955282),
    (_BOUNDED, "self.s.lowerAscii() == 'a'", 11),
    (_BOUNDED, "self.lsm.all(x, x.matches('a+'))", 43),
    (_BOUNDED, "self.l.sum() > 0 && self.l.max() < 10 && self.l.min() >= 0 && self.l.indexOf(1) >= 0 && "
               "self.l.isSorted()", 64),
    (_BOUNDED, "self.s.find('[a-z]+') != ''", 20),
    (_BOUNDED, "self.m.all(k, self.m[k] != '')", 2752508),
    (_BOUNDED, "quantity(self.q).isLessThan(quantity('1Gi'))", 16),
    (_BOUNDED, "cidr(self.s).containsIP(self.s)", 24),
    (_BOUNDED, "url(self.s) == url('https://a')", 12),
    (_BOUNDED, "self.items.all(i, i.tags.all(t, t != ''))", 1014929777271),
    # cel-go's paths share a backing array: i.port rewrites the inner range's path to a scalar's
    (_BOUNDED, "self.items.all(i, i.tags.all(t, i.port == 1))", 1451871),
    (_BOUNDED, "self.items.all(i, i.tags.all(t, t != i.name))", 1952762463),
    (_BOUNDED, "self.items.filter(i, i.port > 0).all(n, n.name != '')", 5081552),
    ({"type": "array", "items": {"type": "string"}}, "self.all(t, t.matches('^[a-z]+$'))", 659710961252),
]


def _estimate(schema: dict[str, Any], rule: str) -> int:
    compiled = rules.compile_rule({"rule": rule}, celtypes.cel_type(schema), schema)
    assert compiled.program is not None, compiled.error
    node = declsize.decl(schema)
    assert node is not None
    return cost.estimate(checked.of(compiled.program), declsize.SchemaModel(node)).max


@pytest.mark.parametrize(("schema", "rule", "expected"), UPSTREAM_TABLE + UPSTREAM_ESTIMATOR,
                         ids=[c[1][:60] for c in UPSTREAM_TABLE + UPSTREAM_ESTIMATOR])
def test_estimated_cost(schema: dict[str, Any], rule: str, expected: int) -> None:
    assert _estimate(schema, rule) == expected


def test_sizes_saturate() -> None:
    r = cost.Range(0, cost.MAX).add(cost.fixed(5)).mul(cost.fixed(3))
    assert r == cost.Range(15, cost.MAX)
    assert cost.Range(0, cost.MAX).factor(0.1).max == 1844674407370955264


def test_message_expression_cost() -> None:  # upstream estimator: MessageExpressionMaxCost 400102
    schema = {"type": "object", "properties": {"big": {"type": "array", "maxItems": 1000, "items": {
        "type": "string", "maxLength": 1000}}}}
    compiled = rules.compile_rule({"rule": "true", "messageExpression": "self.big.join(',')"},
                                  celtypes.cel_type(schema), schema)
    node = declsize.decl(schema)
    assert compiled.message_program is not None and node is not None
    assert cost.estimate(checked.of(compiled.message_program), declsize.SchemaModel(node)).max == 400102


def test_unchecked_expression() -> None:
    # Comparisons across numeric types compile unchecked (fakekube.cel.rules); upstream estimates 7.
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "d": {"type": "number"}}}
    assert _estimate(schema, "self.n > 1.5 && self.d <= 1 && 2 > 1.5") == 7
