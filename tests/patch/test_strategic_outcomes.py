"""The strategic merge patch engine against the library kube-apiserver v1.37.2 runs
(k8s.io/apimachinery/pkg/util/strategicpatch v0.37.2): ``strategic_v1_37_cases.json`` holds the library's own
outcomes on generated patches of merging lists (``scripts/strategic_outcomes.py --record``) — the document,
the error text, or a panic (Go's ``==`` on two maps or lists, a map or list as a map key, the type of a
leading nil: the server closes the connection unanswered, observed on v1.37.2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakekube import errors
from fakekube.apimodel.patch_schemas import builtin_patch_schema
from fakekube.patch import STRATEGIC_MERGE_PATCH, apply_patch

CASES = json.loads((Path(__file__).parent / "strategic_v1_37_cases.json").read_text())["cases"]
GROUPS = {"Service": "", "Pod": "", "Deployment": "apps"}


def _floats(value: Any) -> Any:
    return json.loads(json.dumps(value), parse_int=float)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['kind']}-{i:03d}" for i, c in enumerate(CASES)])
def test_the_library_outcome(case: dict[str, Any]) -> None:
    schema = builtin_patch_schema(GROUPS[case["kind"]], case["kind"])
    body = json.dumps(case["patch"])
    if case["outcome"] == "panic":
        with pytest.raises(errors.HandlerPanic):
            apply_patch(case["original"], body, STRATEGIC_MERGE_PATCH, schema=schema)
    elif case["outcome"] == "error":
        with pytest.raises(errors.ApiError) as info:
            apply_patch(case["original"], body, STRATEGIC_MERGE_PATCH, schema=schema)
        assert not isinstance(info.value, errors.HandlerPanic)
        assert (getattr(info.value, "detail", None) or info.value.message) == case["error"]
    else:
        out = apply_patch(case["original"], body, STRATEGIC_MERGE_PATCH, schema=schema)
        assert _floats(out) == _floats(case["result"])
