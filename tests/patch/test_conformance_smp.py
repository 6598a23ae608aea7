"""Strategic merge patch vectors from shared/conformance/strategic-merge-patch, read at test time."""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.patch import STRATEGIC_MERGE_PATCH, apply_patch

from .conformance_support import load, params, smp_schemas

_UPSTREAM = load("strategic-merge-patch/cases.json")
_SUPP = load("strategic-merge-patch/supplementary-cases.json")
CASES = (_UPSTREAM["cases"] if _UPSTREAM else None)
SUPP = (_SUPP["cases"] if _SUPP else None)


def _run(case: dict) -> None:
    schema = smp_schemas()[case["schema"]]
    original = case["original"]
    before = json_copy(original)
    if "expectedError" in case:
        with pytest.raises(errors.ApiError) as info:
            apply_patch(original, json.dumps(case["patch"]), STRATEGIC_MERGE_PATCH, schema=schema)
        assert case["expectedError"] in info.value.message
        assert info.value.code in (400, 422, 500)
    else:
        result = apply_patch(original, json.dumps(case["patch"]), STRATEGIC_MERGE_PATCH, schema=schema)
        accepted = [case["result"]]
        if "resultWithoutGoSliceAliasing" in case:
            # smp-0110 / smp-0112: the upstream order is a Go slice-aliasing artefact; either is fine.
            accepted.append(case["resultWithoutGoSliceAliasing"])
        assert result in accepted
        if "resultJSONExact" in case:
            assert json.dumps(result, sort_keys=True, separators=(",", ":")) == case["resultJSONExact"]
    assert original == before, "the live document must not be modified"


@pytest.mark.parametrize("case", params(CASES, lambda i, c: c["id"]))
def test_upstream_vector(case: dict) -> None:
    _run(case)


@pytest.mark.parametrize("case", params(SUPP, lambda i, c: c["id"]))
def test_supplementary_vector(case: dict) -> None:
    _run(case)
