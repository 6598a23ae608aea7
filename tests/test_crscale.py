"""The scale subresource's checks on a custom resource (observed on kube-apiserver v1.37.2; apiextensions-apiserver
pkg/registry/customresource/validator.go ValidateScaleSpec/ValidateScaleStatus, apimachinery unstructured
helpers.go NestedInt64)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.crscale import scale_errors


def _causes(obj: dict[str, Any], status_write: bool = False) -> list[dict[str, str]]:
    return [e.cause() for e in scale_errors(obj, ".spec.replicas", ".status.replicas", None,
                                            status_write=status_write)]


@pytest.mark.parametrize(("spec", "message"), [
    ([], "Invalid value: 0: .spec.replicas accessor error: [] is of the type []interface {}, "
         "expected map[string]interface{}"),
    ("x", "Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected map[string]interface{}"),
    ({"replicas": "x"}, "Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64"),
    ({"replicas": 1.5}, "Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64"),
    ({"replicas": -1}, "Invalid value: -1: should be a non-negative integer"),
    ({"replicas": 2**31}, "Invalid value: 2147483648: should be less than or equal to 2147483647"),
])
def test_spec_replicas_refusals(spec: Any, message: str) -> None:
    assert _causes({"spec": spec}) == [{"reason": "FieldValueInvalid", "field": ".spec.replicas", "message": message}]


def test_absent_or_valid_counts_pass_and_a_status_write_checks_only_status() -> None:
    assert _causes({"spec": {"replicas": 3}}) == [] and _causes({}) == [] and _causes({"spec": None}) == []
    assert _causes({"spec": {"replicas": -1}}, status_write=True) == []
    assert _causes({"status": {"replicas": -2}}, status_write=True)[0]["field"] == ".status.replicas"
