"""The runtime cost of CRD rules (fakekube.cel.runtimecost, fakekube.cel.budget) against upstream's.

runtime_cost_cases.json holds what k8s.io/apiextensions-apiserver v0.37.2's ``Validator.Validate`` (cel-go
v0.29.2) answered for each case of runtime_cost_cases.py: the budget it spent (None when a limit stopped the rules)
and its errors, recorded by scripts/record-cel-runtime-cost through ``oracle/cmd/celcost``. The cases that take
seconds here (large strings and lists) are marked slow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakekube.cel import validator
from tests.cel.runtime_cost_cases import all_cases, expand

_RECORDED = {c["name"]: c for c in json.loads((Path(__file__).parent / "runtime_cost_cases.json").read_text())}
_BUDGET = 10_000_000


def _params() -> list[Any]:
    out = []
    for case in all_cases():
        marks = [pytest.mark.slow] if case["large"] else []
        out.append(pytest.param(case, id=case["name"], marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_runtime_cost_as_upstream(case: dict[str, Any]) -> None:
    recorded = _RECORDED[case["name"]]
    budget = case.get("budget", _BUDGET)
    node = validator.build(case["schema"], root=False)
    costs = validator.Budget(budget)
    old = expand(case["old"]) if case.get("old") is not None else validator._NONE
    errs = validator.validate(node, "", expand(case["obj"]), old, False, None, [], costs)
    assert (budget - costs.remaining if costs.remaining >= 0 else None) == recorded["cost"]
    assert [str(e) for e in errs] == recorded["errors"]


def test_every_case_is_recorded() -> None:
    assert {c["name"] for c in all_cases()} == set(_RECORDED)


_LIST = {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 10}


@pytest.mark.parametrize(("schema", "track"), [
    # bounded: no rule can reach either limit, nothing is counted
    ({"type": "object", "properties": {"l": _LIST}, "x-kubernetes-validations": [
        {"rule": "self.l.all(x, x.matches('^[a-z]+$'))"}]}, False),
    # unbounded strings in an unbounded list: the estimates reach the limits
    ({"type": "object", "properties": {"l": {"type": "array", "items": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self.matches('^[a-z]+$')"}]}}}}, True),
    # one evaluation over the per-call limit is possible, the budget not
    ({"type": "object", "properties": {"s": {"type": "string", "maxLength": 1000000}}, "x-kubernetes-validations": [
        {"rule": "self.s.matches('^(a|b|c|d|e|f|g|h)+$')"}]}, True),
])
def test_counting_only_where_limits_can_be_reached(schema: dict[str, Any], track: bool) -> None:
    node = validator.build(schema, root=False)
    assert node is not None and node.track is track
