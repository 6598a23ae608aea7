"""Estimated costs of rules using the format and semver libraries and the optional library's list
functions: each figure computed by upstream's estimator (k8s.io/apiextensions-apiserver v0.37.2 ``cel.Compile``
through oracle/cmd/celcost) on the same schema and rule. The format library's ``[?0]`` rewrite
(fakekube.cel.formatlib) must cost nothing."""

from __future__ import annotations

import pytest

from tests.cel.test_cost import _estimate

SCHEMA = {"type": "object", "properties": {
    "s": {"type": "string", "maxLength": 100}, "u": {"type": "string"},
    "l": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
    "ls": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20}},
    "m": {"type": "object", "maxProperties": 5, "additionalProperties": {"type": "string", "maxLength": 10}}}}

UPSTREAM_ESTIMATOR = [
    ("isSemver(self.s)", 42),
    ("semver(self.s).major() == 1", 44),
    ("semver(self.s, true).isGreaterThan(semver('1.0.0'))", 44),
    ("semver(self.s).compareTo(semver(self.u)) < 0", 314619),
    ("semver(self.s) == semver('1.2.3')", 44),
    ("!format.dns1123Label().validate(self.s).hasValue()", 1285),
    ("format.named('uri').hasValue()", 2),
    ("format.named(self.s).value().validate(self.u).hasValue()", 10066343),
    ("format.dns1123Label() == format.named(self.s).value()", 12),
    ("format.uuid().validate(self.s).orValue([]).size() == 0", 1296),
    ("self.l.first().orValue(0) == 1", 5),
    ("self.l.last().hasValue()", 4),
    ("self.ls.all(x, !format.dns1123Label().validate(x).hasValue())", 2633),
    ("format.dns1123Label().validate('abc') == optional.none()", 1844674407370955298),
    ("format.dns1123Label().validate(self.s).value().all(e, e.size() > 0)", 2**64 - 1),
    ("self.ls.map(x, semver(x, true)).exists(v, v.isLessThan(semver('2.0.0')))", 294),
    ("format.named(self.s).hasValue() && format.named(self.s).value().validate(self.ls[0]).orValue(['']).size() > 0",
     280),
    ("self.m.all(k, isSemver(self.m[k]))", 58),
]


@pytest.mark.parametrize(("rule", "expected"), UPSTREAM_ESTIMATOR, ids=[c[0][:60] for c in UPSTREAM_ESTIMATOR])
def test_estimated_cost(rule: str, expected: int) -> None:
    assert _estimate(SCHEMA, rule) == expected
