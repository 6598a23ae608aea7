"""The merge metadata derived from kubernetes-validate's definitions, checked against Go struct tags.

``builtin-patch-metadata.json`` (shared conformance data, extracted from kubernetes/api and apimachinery
``types.go``) lists the patchStrategy / patchMergeKey / listType / listMapKey / mapType of every non-scalar
field of 223 struct types of core/v1, apps/v1, batch/v1 and meta/v1. Every one of those fields that the
emulated version's definitions also have must carry the same metadata in the derived PatchSchema.
"""

from __future__ import annotations

import pytest

from fakekube.apimodel.definitions import definitions
from fakekube.apimodel.patch_schemas import builtin_patch_schema, patch_schema
from fakekube.apimodel.versions import kubernetes_version
from fakekube.patch import STRATEGIC_MERGE_PATCH, apply_patch
from fakekube.patch.schema import PatchSchema

from .conformance_support import load

TABLE = load("strategic-merge-patch/builtin-patch-metadata.json")
_PACKAGES = {"core/v1": "io.k8s.api.core.v1", "apps/v1": "io.k8s.api.apps.v1", "batch/v1": "io.k8s.api.batch.v1",
             "meta/v1": "io.k8s.apimachinery.pkg.apis.meta.v1"}


# Fields whose shape changed between the table's kubernetes/api commit and the emulated release's definitions
# (an alpha field: a list of names became a list of structs).
_VERSION_SKEW = {"batch/v1.JobSchedulingConfiguration.resourceClaims"}


def _definition(go_type: str) -> str:
    package, _, name = go_type.rpartition(".")
    return f"{_PACKAGES[package]}.{name}"


def _short(go_type: str) -> str:
    return go_type.rpartition(".")[2]


def _mismatches(go_type: str, node: PatchSchema, table: dict) -> list[str]:
    problems = []
    for name, meta in table.items():
        if name.startswith("$"):
            continue
        child = node.fields.get(name)
        if child is None:
            continue  # counted by the coverage test
        where = f"{go_type}.{name}"
        if where in _VERSION_SKEW:
            continue
        if ",".join(child.strategies) != meta.get("patchStrategy", ""):
            problems.append(f"{where}: strategy {child.strategies} != {meta.get('patchStrategy')}")
        if "list" in meta:
            if child.kind != "list":
                problems.append(f"{where}: {child.kind}, not a list")
                continue
            if child.merge_key != meta.get("patchMergeKey"):
                problems.append(f"{where}: merge key {child.merge_key} != {meta.get('patchMergeKey')}")
            if child.ssa_list_type != meta.get("listType", "atomic"):
                problems.append(f"{where}: list type {child.ssa_list_type} != {meta.get('listType')}")
            if child.ssa_list_type == "map" and list(child.ssa_keys) != meta["listMapKeys"]:
                problems.append(f"{where}: list map keys {child.ssa_keys} != {meta['listMapKeys']}")
            item = child.item()
            expected_item = "scalar" if meta["list"] == "scalar" else _short(meta["list"])
            if (item.kind if expected_item == "scalar" else item.name) != expected_item:
                problems.append(f"{where}: items {item.kind}/{item.name} != {expected_item}")
        elif meta.get("map"):
            if child.kind != "map":
                problems.append(f"{where}: {child.kind}, not a map")
            elif (child.map_type or None) != meta.get("mapType"):
                problems.append(f"{where}: map type {child.map_type} != {meta.get('mapType')}")
        elif "type" in meta and (child.kind, child.name) != ("object", _short(meta["type"])):
            problems.append(f"{where}: {child.kind}/{child.name} != struct {_short(meta['type'])}")
    return problems


needs_table = pytest.mark.skipif(TABLE is None, reason="builtin-patch-metadata.json not available")


@needs_table
def test_every_listed_field_has_the_struct_tags_metadata() -> None:
    version = kubernetes_version()
    problems: list[str] = []
    checked = 0
    defs = definitions(version)
    for go_type, fields in TABLE["types"].items():
        if _definition(go_type) not in defs:
            continue  # Go-only types (no OpenAPI definition: never in a request body)
        node = patch_schema(version, _definition(go_type))
        if node.kind != "object":
            continue
        problems += _mismatches(go_type, node, fields)
        # Embedded structs (VolumeSource in Volume, ProbeHandler in Probe...): their fields are the node's.
        for inline in fields.get("$inline", ()):
            problems += _mismatches(inline, node, TABLE["types"].get(inline, {}))
        checked += 1
    assert checked > 180
    assert problems == []


@needs_table
def test_the_definitions_cover_the_tables_fields() -> None:
    """Both sources describe nearly the same Go types: fields missing on one side are version skew, and few."""
    version = kubernetes_version()
    listed = missing = 0
    defs = definitions(version)
    types = [t for t in TABLE["types"] if _definition(t) in defs]
    assert len(types) > 0.85 * len(TABLE["types"])  # the rest: embedded and options types
    for go_type in types:
        fields = TABLE["types"][go_type]
        node = patch_schema(version, _definition(go_type))
        for name in fields:
            if name.startswith("$"):
                continue
            listed += 1
            missing += name not in node.fields
    assert listed > 400
    assert missing / listed < 0.03, f"{missing} of {listed} fields are not in Kubernetes {version}'s definitions"


def test_unknown_kinds_have_no_schema() -> None:
    assert builtin_patch_schema("example.com", "Widget") is None
    assert builtin_patch_schema("resource.k8s.io", "ResourceClaim", "1.30") is None  # resource.k8s.io/v1 is 1.34+
    assert builtin_patch_schema("resource.k8s.io", "ResourceClaim", "1.34") is not None


def test_pod_containers_merge_by_name_and_new_ones_go_first() -> None:
    pod = {"spec": {"containers": [{"name": "app", "image": "app:1"}]}}
    patch = {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}, {"name": "app", "image": "app:2"}]}}
    out = apply_patch(pod, patch, STRATEGIC_MERGE_PATCH, schema=builtin_patch_schema("", "Pod"))
    assert out["spec"]["containers"] == [{"name": "sidecar", "image": "envoy"}, {"name": "app", "image": "app:2"}]


def test_finalizers_are_a_set_and_owner_references_merge_by_uid() -> None:
    live = {"metadata": {"finalizers": ["a"], "ownerReferences": [{"uid": "1", "name": "x"}]}}
    patch = {"metadata": {"finalizers": ["b", "a"], "ownerReferences": [{"uid": "2", "name": "y"}]}}
    out = apply_patch(live, patch, STRATEGIC_MERGE_PATCH, schema=builtin_patch_schema("", "ConfigMap"))
    assert out["metadata"]["finalizers"] == ["b", "a"]
    assert [r["uid"] for r in out["metadata"]["ownerReferences"]] == ["2", "1"]


def test_deployment_strategy_retain_keys() -> None:
    live = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    out = apply_patch(live, patch, STRATEGIC_MERGE_PATCH, schema=builtin_patch_schema("apps", "Deployment"))
    assert out["spec"]["strategy"] == {"type": "Recreate"}


def test_a_kind_beyond_the_hand_written_ones_merges_by_its_tags() -> None:
    """StatefulSet volumeClaimTemplates are atomic; a DaemonSet's pod template merges containers by name."""
    ds = builtin_patch_schema("apps", "DaemonSet")
    live = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "1"}]}}}}
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "2"}]}}}}
    out = apply_patch(live, patch, STRATEGIC_MERGE_PATCH, schema=ds)
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["b", "a"]
    sts = builtin_patch_schema("apps", "StatefulSet")
    assert sts.at(("spec", "volumeClaimTemplates")).ssa_list_type == "atomic"

