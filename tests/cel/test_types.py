"""fakekube.cel.types: property names as CEL identifiers (k8s.io/apiserver pkg/cel/escaping.go, v0.37.2) and
values as CEL sees them (pkg/cel/common/schemas.go, values.go)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from fakekube.cel.types import cel_type, escape, to_cel


@pytest.mark.parametrize(("name", "escaped"), [
    ("spec", "spec"), ("foo-bar", "foo__dash__bar"), ("a.b", "a__dot__b"), ("a/b", "a__slash__b"),
    ("a__b", "a__underscores__b"), ("namespace", "__namespace__"), ("in", "__in__"),
    ("1st", None), ("", None), ("a b", None), ("ü", None),
])
def test_escape(name: str, escaped: str | None) -> None:
    assert escape(name) == escaped


def test_types_of_schema_nodes() -> None:
    assert cel_type({"type": "integer"}).name() == "INT"
    assert cel_type({"type": "number"}).name() == "DOUBLE"
    assert cel_type({"type": "string", "format": "date-time"}).name() == "TIMESTAMP"
    assert cel_type({"type": "array", "items": {"type": "string"}}).name() == "LIST<STRING>"
    assert cel_type({"type": "object", "additionalProperties": {"type": "integer"}}).name() == "MAP<STRING, INT>"
    assert cel_type({"type": "object", "properties": {"a": {"type": "string"}}}).name() == "MAP<STRING, DYN>"
    assert cel_type({"x-kubernetes-int-or-string": True}).name() == "DYN"
    assert cel_type({"type": "array"}) is None  # no items: not visible to rules


def test_values_hide_undeclared_members_escape_names_and_convert_formats() -> None:
    schema = {"type": "object", "properties": {
        "foo-bar": {"type": "string"}, "n": {"type": "number"}, "when": {"type": "string", "format": "date-time"},
        "raw": {"type": "string", "format": "byte"}}}
    value = {"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a", "labels": {"k": "v"}},
             "foo-bar": "x", "n": 2, "when": "2026-01-02T03:04:05Z", "raw": "aGk=", "extra": 1}
    # An object's members are dyn here: cel-expr-python takes timestamps only where the type is declared.
    assert to_cel(schema, value, root=True) == {
        "foo__dash__bar": "x", "n": 2.0, "when": "2026-01-02T03:04:05Z", "raw": b"hi", "apiVersion": "x/v1",
        "kind": "K", "metadata": {"name": "a"}}
    assert isinstance(to_cel(schema, value)["n"], float)
    assert "metadata" not in to_cel(schema, value)  # only a resource root shows metadata


def test_formats_where_the_type_is_declared() -> None:
    when = {"type": "string", "format": "date-time"}
    assert to_cel(when, "2026-01-02T03:04:05Z") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert to_cel({"type": "string", "format": "duration"}, "1h30m") == timedelta(hours=1, minutes=30)
    assert to_cel({"type": "array", "items": when}, ["2026-01-02T03:04:05Z"]) == [
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)]
