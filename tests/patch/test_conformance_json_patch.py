"""RFC 6902 vectors (json-patch-tests: tests.json, spec_tests.json), read at test time.

Vectors run through the RFC engine (``negative_indices=False``) and through ``apply_patch`` as the API
server applies them. What the server does is not the RFC's expectation (evanphx v4 accepts negative array
indices, replaces missing members, tests missing members against null...): it is the library's own outcome,
recorded in ``evanphx_v4_vectors.json`` by ``scripts/evanphx_outcomes.py --vectors`` (keyed by a hash of each
vector, which stays in the shared folder).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

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


OUTCOMES = json.loads((Path(__file__).parent / "evanphx_v4_vectors.json").read_text())["outcomes"]


def _hash(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _server_expectation(record: dict) -> dict | None:
    """What gopkg.in/evanphx/json-patch.v4 v4.13.0 did with this vector (None: not recorded)."""
    return OUTCOMES.get(_hash([record["doc"], record["patch"]]))


def _result_hash(doc: object) -> str:
    return _hash(json.loads(json.dumps(doc), parse_int=float))


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
    expected = _server_expectation(record)
    if expected is None:
        pytest.skip("no recorded outcome (run scripts/evanphx_outcomes.py --vectors)")
    body = json.dumps(record["patch"])
    before = json_copy(record["doc"])
    if expected["outcome"] == "error":
        with pytest.raises(errors.ApiError) as info:
            apply_patch(record["doc"], body, JSON_PATCH)
        assert info.value.code == 422 and info.value.status["details"] == {}
    else:
        assert expected["outcome"] == "ok"
        out = apply_patch(record["doc"], body, JSON_PATCH)
        assert _result_hash(out) == expected["result"]
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
