"""Test-side helpers: find the shared conformance folder and adapt its SMP ``schema.json`` to PatchSchema.

The vectors are read at test time from ``../shared/conformance`` (next to the repository) or from
``$FAKEKUBE_CONFORMANCE_DIR``; nothing from that folder is copied into the repository.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fakekube.patch.schema import PatchSchema


def _repo_root() -> Path:
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").exists():
            return parent
    return here.parents[2]


def conformance_dir() -> Path | None:
    env = os.environ.get("FAKEKUBE_CONFORMANCE_DIR")
    candidate = Path(env) if env else _repo_root().parent / "shared" / "conformance"
    return candidate if candidate.is_dir() else None


SKIP_REASON = (
    "conformance vectors not found: set FAKEKUBE_CONFORMANCE_DIR or place shared/conformance next to the repo"
)


def load(relative: str) -> Any:
    base = conformance_dir()
    if base is None or not (base / relative).exists():
        return None
    with open(base / relative, encoding="utf-8") as fh:
        return json.load(fh)


def params(records: list[Any] | None, id_of: Any) -> list[Any]:
    """pytest params for records, or a single skipped param when the data is absent."""
    if records is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-conformance-data")]
    return [pytest.param(r, id=id_of(i, r)) for i, r in enumerate(records)]


@cache
def smp_schemas() -> dict[str, PatchSchema]:
    """Translate ``schema.json`` (field → kind/strategy/mergeKey) into strict PatchSchema trees."""
    data = load("strategic-merge-patch/schema.json")
    if data is None:
        return {}
    raw = data["schemas"]
    built: dict[str, PatchSchema] = {}
    # Create the nodes first so recursive references (mergeItem → mergeItem) resolve.
    for name in raw:
        built[name] = PatchSchema("object", name=name, strict=True)
    for name, fields in raw.items():
        built[name].fields.update({field: _field(spec, built, field) for field, spec in fields.items()})
    return built


def _field(spec: dict[str, Any], built: dict[str, PatchSchema], field: str) -> PatchSchema:
    kind = spec["kind"]
    strategy = "" if spec.get("strategy") in (None, "replace") and kind == "list" else spec.get("strategy", "")
    if kind == "scalar":
        return PatchSchema("scalar", name=field)
    if kind == "map":
        return PatchSchema("map", name=field, values=PatchSchema("scalar"))
    if kind == "list":
        items = spec.get("items")
        item = PatchSchema("scalar") if items == "scalar" else built[items]
        return PatchSchema("list", name=field, items=item, strategy=strategy, merge_key=spec.get("mergeKey"))
    schema = spec.get("schema")
    if schema in ("rawExtension", "untyped"):
        return PatchSchema("untyped", name=field, strict=True, strategy=spec.get("strategy", ""))
    base = built[schema]
    # A struct-valued field carries its own strategy (e.g. retainKeys) on a node sharing the fields.
    node = PatchSchema("object", name=base.name, strict=True, strategy=spec.get("strategy", ""))
    node.fields = base.fields
    return node
