"""RFC 7386 vectors (rfc7386-cases.json), read at test time."""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.patch import MERGE_PATCH, apply_patch, merge_patch

from .conformance_support import load, params

DATA = load("json-merge-patch-rfc7386/rfc7386-cases.json")
CASES = DATA["cases"] if DATA else None


@pytest.mark.parametrize("case", params(CASES, lambda i, c: str(c["id"])))
def test_rfc7386_case(case: dict) -> None:
    target, patch = case["target"], case["patch"]
    before = json_copy(target)
    assert merge_patch(target, patch, rfc=True) == case["result"]
    assert target == before


@pytest.mark.parametrize("case", params(CASES, lambda i, c: str(c["id"])))
def test_rfc7386_case_as_the_api_server(case: dict) -> None:
    target, patch = case["target"], case["patch"]
    if not isinstance(target, dict):
        pytest.skip("Kubernetes objects are JSON objects")
    before = json_copy(target)
    body = json.dumps(patch)
    if patch is None or not isinstance(patch, dict | list):
        # evanphx v4 rejects a null or scalar merge patch: 400 "Invalid JSON Patch" (RFC: replaces).
        with pytest.raises(errors.ApiError) as info:
            apply_patch(target, body, MERGE_PATCH)
        assert info.value.status == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Invalid JSON Patch", "reason": "BadRequest", "code": 400,
        }
    elif isinstance(case["result"], dict):
        assert apply_patch(target, body, MERGE_PATCH) == case["result"]
    else:
        # An array patch replaces the object with an array, which cannot be decoded: 422 on "patch".
        with pytest.raises(errors.ApiError) as info:
            apply_patch(target, body, MERGE_PATCH)
        assert info.value.code == 422
    assert target == before
