"""The kind of a decoded JSON value, and the three vocabularies that name it."""

from __future__ import annotations

import uuid

import pytest

from fakekube.patch.gofmt import go_type
from fakekube.patch.jsonutil import go_json_kind
from fakekube.schemavalues import json_kind, json_type


class _Text(str):
    pass


class _Flag(int):
    pass


@pytest.mark.parametrize(("value", "kind", "openapi", "go_json", "go_reflect"), [
    (None, "null", "null", "null", "<nil>"),
    (True, "bool", "boolean", "bool", "bool"),
    (3, "int", "integer", "number", "int64"),
    (2.5, "float", "number", "number", "float64"),
    ("x", "string", "string", "string", "string"),
    ([1], "array", "array", "array", "[]interface {}"),
    ({"a": 1}, "object", "object", "object", "map[string]interface {}"),
    (_Text("y"), "string", "string", "string", "string"),  # a subclass takes the isinstance path
    (_Flag(1), "int", "integer", "number", "int64"),
    ((1,), None, "", "null", "tuple"),  # not a JSON value
    (uuid.UUID(int=0), None, "", "null", "UUID"),
])
def test_each_vocabulary_names_the_kind(value: object, kind: str | None, openapi: str, go_json: str,
                                        go_reflect: str) -> None:
    assert json_kind(value) == kind
    assert json_type(value) == openapi
    assert go_json_kind(value) == go_json
    assert go_type(value) == go_reflect
