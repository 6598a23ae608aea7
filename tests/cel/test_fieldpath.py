"""fakekube.cel.fieldpath after apiextensions-apiserver ``ValidFieldPath`` (pkg/apiserver/schema/cel/
validation.go, v0.37.2)."""

from __future__ import annotations

import pytest

from fakekube.cel.fieldpath import PathError, valid_field_path

SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "a": {"type": "string"}, "m": {"type": "object", "additionalProperties": {"type": "string"}}}}}}


@pytest.mark.parametrize(("path", "normal"), [
    (".spec.a", "spec.a"), (".spec['a']", "spec.a"), (".spec.m.k", "spec.m[k]"), (".spec.m['x.y']", "spec.m[x.y]"),
    ("", ""),
])
def test_valid_paths(path: str, normal: str) -> None:
    assert valid_field_path(path, SCHEMA)[0] == normal


@pytest.mark.parametrize(("path", "problem"), [
    (".spec.nope", "does not refer to a valid field"), ("spec", "expected [ or . but got: spec"),
    (".spec.", "unexpected end of JSON path"), (".spec[0]", "expected single quoted string but got 0"),
    (".spec.a.b", "does not refer to a valid field"), (".spec['a'", "unexpected end of JSON path"),
])
def test_invalid_paths(path: str, problem: str) -> None:
    with pytest.raises(PathError) as caught:
        valid_field_path(path, SCHEMA)
    assert str(caught.value) == problem


def test_array_notation_may_be_refused() -> None:
    with pytest.raises(PathError, match="array notation is not allowed"):
        valid_field_path(".spec['a']", SCHEMA, allow_array_notation=False)
