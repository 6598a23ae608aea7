"""Pin why jsonmerge's strategies are not used for Kubernetes patches (docs/patches/merge-patch.md)."""

from __future__ import annotations

import jsonmerge

from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
from fakekube.patch import MERGE_PATCH, STRATEGIC_MERGE_PATCH, apply_patch


def test_jsonmerge_keeps_null_where_merge_patch_deletes() -> None:
    assert jsonmerge.merge({"a": 1, "b": 2}, {"a": None}) == {"a": None, "b": 2}
    assert apply_patch({"a": 1, "b": 2}, b'{"a": null}', MERGE_PATCH) == {"b": 2}


def test_array_merge_by_id_appends_where_smp_prepends() -> None:
    merger = jsonmerge.Merger({"properties": {"spec": {"properties": {"containers": {
        "mergeStrategy": "arrayMergeById", "mergeOptions": {"idRef": "name"}}}}}})
    live = {"spec": {"containers": [{"name": "app"}]}}
    patch = {"spec": {"containers": [{"name": "sidecar"}]}}
    assert [c["name"] for c in merger.merge(live, patch)["spec"]["containers"]] == ["app", "sidecar"]
    out = apply_patch(live, patch, STRATEGIC_MERGE_PATCH, schema=builtin_schema("", "Pod"))
    assert [c["name"] for c in out["spec"]["containers"]] == ["sidecar", "app"]
