"""Server-side apply against structured-merge-diff's own test tables (restated in smd_tables.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.patch import typed
from fakekube.patch.apply import server_side_apply
from fakekube.patch.fieldpath import path_string
from fakekube.patch.managed_fields import decode_managed_fields, record_update
from tests.patch.smd_tables import APPLY_CASES, MERGE_CASES, SCHEMAS

NOW = "2026-11-29T15:56:38Z"


def _ordered(value: Any) -> str:
    """Lists keep their order, maps compare as maps (value.Equals)."""
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize(("schema", "lhs", "rhs", "out"), MERGE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MERGE_CASES)])
def test_merge_table(schema: str, lhs: Any, rhs: Any, out: Any) -> None:
    assert _ordered(typed.merge(lhs, rhs, SCHEMAS[schema])) == _ordered(out)


def _containers(value: Any) -> list[Any]:
    found = [value] if isinstance(value, dict | list) else []
    for child in (value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()):
        found += _containers(child)
    return found


@pytest.mark.parametrize(("schema", "lhs", "rhs", "out"), MERGE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MERGE_CASES)])
def test_merge_shares_nothing_with_its_inputs(schema: str, lhs: Any, rhs: Any, out: Any) -> None:
    # Members only one side has are copied in one batch: the result must still be the caller's own.
    lhs, rhs = {"wrap": lhs, "left": {"only": [{"a": 1}]}}, {"wrap": rhs, "right": {"only": [{"b": 2}]}}
    merged = typed.merge(lhs, rhs, typed.UNTYPED)
    inputs = {id(c) for c in _containers(lhs) + _containers(rhs)}
    assert merged["left"] == lhs["left"] and merged["right"] == rhs["right"]
    assert not inputs & {id(c) for c in _containers(merged)}


def _body(obj: dict) -> dict:
    body = json_copy(obj)
    body.pop("metadata", None)
    return body


def _run(schema_name: str, ops: list[tuple]) -> dict:
    schema = SCHEMAS[schema_name]
    live: dict | None = None
    for op in ops:
        verb, manager, obj = op[:3]
        config = json_copy(obj) if obj is not None else {}
        if verb == "update":
            old = live or {}
            new = {**config, "metadata": json_copy(old.get("metadata") or {})}
            record_update(old, new, manager=manager, api_version="v1", subresource=None, now=NOW, schema=schema)
            live = new
            continue
        kwargs = dict(manager=manager, schema=schema, api_version="v1", subresource=None, now=NOW, keep_nulls=True)
        if verb == "conflict":
            with pytest.raises(errors.ApplyConflict) as info:
                server_side_apply(live, config, force=False, **kwargs)
            fields = sorted(c["field"] for c in info.value.details["causes"])
            assert fields == sorted(path_string(p) for p in op[3])
            continue
        live = server_side_apply(live, config, force=verb == "force", **kwargs)
    return live or {}


@pytest.mark.parametrize("name", sorted(APPLY_CASES))
def test_apply_table(name: str) -> None:
    schema_name, ops, expected, managed = APPLY_CASES[name]
    live = _run(schema_name, ops)
    assert _ordered(_body(live)) == _ordered(expected or {})
    if managed is not None:
        got = {entry.manager: entry.fields for entry in decode_managed_fields(live).values()}
        assert got == managed
