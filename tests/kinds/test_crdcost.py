"""The estimated cost limits of CRD rules (fakekube.kinds.crdcost) against upstream's tables:
k8s.io/apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation_test.go`` (``TestCostInfo``,
``TestPerCRDEstimatedCost``), v0.37.2."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube.kinds import crdcost
from fakekube.kinds.crdvalidation import validate_crd

MAX = 2**64 - 1
_OBJ: dict[str, Any] = {"type": "object"}
_ARR: dict[str, Any] = {"type": "array"}
_MAP: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}


def _with(s: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {**s, **kw}


@pytest.mark.parametrize(("chain", "expected"), [
    ([_OBJ], 1), ([_with(_ARR, maxItems=5)], 5), ([_ARR], None), ([_with(_MAP, maxProperties=10)], 10),
    ([_MAP], None), ([_with(_MAP, maxProperties=5), _with(_ARR, maxItems=5)], 25),
    ([_with(_MAP, maxProperties=5), _ARR], None), ([_with(_ARR, maxItems=3), _OBJ], 3),
    ([_with(_ARR, maxItems=2), _OBJ, _with(_MAP, maxProperties=4)], 8),
    ([_with(_ARR, maxItems=2**63 - 1), _with(_ARR, maxItems=100)], MAX),
])
def test_cardinality(chain: list[dict[str, Any]], expected: int | None) -> None:  # TestCostInfo
    cardinality: int | None = 1
    for parent in chain:  # the leaf's cardinality: each schema in turn is the parent
        cardinality = crdcost.child_cardinality(cardinality, parent)
    assert cardinality == expected


@pytest.mark.parametrize(("costs", "expensive", "total"), [
    ([], [], 0), ([1000000], [1000000], 1000000), ([900000], [], 900000),
    ([5000000, 25000000], [25000000, 5000000], 30000000),
    ([5000000, 25000000, 900000], [25000000, 5000000], 30900000),
    ([16000000, 50000000, 34000000, 50000000], [50000000, 50000000, 34000000, 16000000], 150000000),
    ([16000000, 50000000, 900000, 34000000, 50000000, 50000001], [50000001, 50000000, 50000000, 34000000],
     200900001),
    ([MAX // 2, MAX // 2, 1, 10, 100, 1000], [MAX // 2, MAX // 2], MAX),
])
def test_total(costs: list[int], expensive: list[int], total: int) -> None:  # TestPerCRDEstimatedCost
    totals = crdcost.TotalCost()
    for c in costs:
        totals.observe("p", c)
    assert [c for _, c in totals.expensive] == expensive
    assert totals.total == total


def test_factor_wording() -> None:
    assert "factor of 1.006634x" in crdcost.cost_message("estimated rule cost", 10066338, crdcost.RULE_LIMIT)
    assert "factor of 3.1x" in crdcost.cost_message("estimated rule cost", 31457302, crdcost.RULE_LIMIT)
    assert "factor of more than 100x" in crdcost.cost_message("x", 10**10, crdcost.RULE_LIMIT)


def _crd(rule: str, max_length: int | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "string", "x-kubernetes-validations": [{"rule": rule}]}
    if max_length is not None:
        s["maxLength"] = max_length
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "costs.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "costs", "singular": "cost", "kind": "Cost", "listKind": "CostList"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"s": s}}}}]},
            "status": {"storedVersions": ["v1"]}}


def _cost_errors(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [f"{e.field}: {e}" for e in validate_crd(obj, old) if "estimated" in str(e)]


def test_per_rule_limit_and_unchanged_schema_on_update() -> None:
    over = _crd("self.matches('^" + "a" * 126 + "$')")
    errs = _cost_errors(over)
    assert len(errs) == 1 and "factor of 1.006634x" in errs[0]
    assert not _cost_errors(_crd("self.matches('^" + "a" * 126 + "$')", max_length=1000))
    # An update that leaves the version's schema as it was is not held to the per-rule limit again
    # (validation.go suppressExpressionCostForUnchangedSchema); one that changes it is.
    changed = copy.deepcopy(over)
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["t"] = {"type": "string"}
    assert not _cost_errors(copy.deepcopy(over), over)
    assert _cost_errors(changed, over)
