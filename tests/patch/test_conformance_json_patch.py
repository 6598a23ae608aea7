"""RFC 6902 vectors (json-patch-tests: tests.json, spec_tests.json), read at test time.

Vectors run through the RFC engine (``negative_indices=False``) and through ``apply_patch`` as the API
server applies them. The server differs from the RFC in exactly one vector family: evanphx v4 accepts
negative array indices, so ``add /bar/-1`` succeeds there (listed in SERVER_DEVIATIONS).
"""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.patch import JSON_PATCH, apply_patch
from fakekube.patch.json_patch import apply_json_patch, decode_json_patch

from .conformance_support import load, params

TESTS = load("json-patch-rfc6902/tests.json")
SPEC = load("json-patch-rfc6902/spec_tests.json")


def _id(prefix: str):
    return lambda i, r: f"{prefix}-{i:03d}"


def _rfc(record: dict) -> None:
    if record.get("disabled"):
        pytest.skip("vector is marked disabled upstream")
    doc = record["doc"]
    before = json_copy(doc)
    if "error" in record:
        with pytest.raises(errors.ApiError) as info:
            apply_json_patch(doc, decode_json_patch(json.dumps(record["patch"])), negative_indices=False)
        assert info.value.code in (400, 413, 422)
    else:
        out = apply_json_patch(doc, decode_json_patch(json.dumps(record["patch"])), negative_indices=False)
        if "expected" in record:
            assert out == record["expected"]
    assert doc == before


def _server_expectation(record: dict) -> tuple[str, object]:
    """What kube-apiserver (evanphx v4, negative indices on) does with this vector."""
    ops = record["patch"]
    negative = any(isinstance(op.get("path"), str) and "/-1" in op["path"] for op in ops)
    if negative and "error" in record:
        return "ok", None  # v4 resolves -1 instead of failing (SupportNegativeIndices)
    if "error" in record:
        return "error", None
    return "ok", record.get("expected")


@pytest.mark.parametrize("record", params(TESTS, _id("tests")))
def test_tests_json_rfc(record: dict) -> None:
    _rfc(record)


@pytest.mark.parametrize("record", params(SPEC, _id("spec")))
def test_spec_tests_json_rfc(record: dict) -> None:
    _rfc(record)


@pytest.mark.parametrize("record", params((TESTS or []) + (SPEC or []) if TESTS else None, _id("server")))
def test_vectors_as_the_api_server(record: dict) -> None:
    if record.get("disabled"):
        pytest.skip("vector is marked disabled upstream")
    if not isinstance(record["doc"], dict):
        pytest.skip("Kubernetes objects are JSON objects; array/scalar documents are RFC-only")
    outcome, expected = _server_expectation(record)
    body = json.dumps(record["patch"])
    before = json_copy(record["doc"])
    if outcome == "error":
        with pytest.raises(errors.ApiError) as info:
            apply_patch(record["doc"], body, JSON_PATCH)
        assert info.value.code in (400, 422)
    else:
        try:
            out = apply_patch(record["doc"], body, JSON_PATCH)
        except errors.ApiError as exc:
            # Only a non-object result may fail here: the object could not be decoded (422 on "patch").
            assert exc.code == 422 and not isinstance(expected, dict)
        else:
            if expected is not None:
                assert out == expected
    assert record["doc"] == before


def test_negative_index_deviation_is_v4_behaviour() -> None:
    out = apply_patch({"bar": [1, 2]}, '[{"op":"add","path":"/bar/-1","value":"5"}]', JSON_PATCH)
    assert out == {"bar": [1, 2, "5"]}
    out = apply_patch({"bar": [1, 2, 3]}, '[{"op":"remove","path":"/bar/-1"}]', JSON_PATCH)
    assert out == {"bar": [1, 2]}
    out = apply_patch({"bar": [1, 2, 3]}, '[{"op":"replace","path":"/bar/-3","value":0}]', JSON_PATCH)
    assert out == {"bar": [0, 2, 3]}
    with pytest.raises(errors.ApiError) as info:
        apply_patch({"bar": [1]}, '[{"op":"remove","path":"/bar/-2"}]', JSON_PATCH)
    assert info.value.code == 422
