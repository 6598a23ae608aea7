"""Check the hand-written built-in merge metadata against the shared table (test input only)."""

from __future__ import annotations

import pytest

from fakekube.patch import STRATEGIC_MERGE_PATCH, apply_patch
from fakekube.patch.builtin_schemas import builtin_kinds, builtin_schema
from fakekube.patch.schema import PatchSchema

from .conformance_support import load

TABLE = load("strategic-merge-patch/builtin-patch-metadata.json")

# (our kind, path of struct fields, Go type name in the table)
CHECKS = [
    (("", "Pod"), ("spec",), "core/v1.PodSpec"),
    (("", "Pod"), ("spec", "containers"), "core/v1.Container"),
    (("", "Pod"), ("status",), "core/v1.PodStatus"),
    (("", "Pod"), ("metadata",), "meta/v1.ObjectMeta"),
    (("", "Service"), ("spec",), "core/v1.ServiceSpec"),
    (("", "ServiceAccount"), (), "core/v1.ServiceAccount"),
    (("", "Namespace"), ("spec",), "core/v1.NamespaceSpec"),
    (("apps", "Deployment"), ("spec",), "apps/v1.DeploymentSpec"),
]


def _declared(node: PatchSchema) -> dict[str, PatchSchema]:
    return {name: child for name, child in node.fields.items() if child.kind in ("list", "map") or child.strategies}


@pytest.mark.skipif(TABLE is None, reason="builtin-patch-metadata.json not available")
@pytest.mark.parametrize("kind,path,go_type", CHECKS, ids=[c[2] for c in CHECKS])
def test_declared_fields_match_the_struct_tags(kind: tuple[str, str], path: tuple[str, ...], go_type: str) -> None:
    node = builtin_schema(*kind).at(path)
    assert node is not None
    table = TABLE["types"][go_type]
    for name, child in _declared(node).items():
        meta = table.get(name)
        assert meta is not None, f"{go_type}.{name} is not in the table"
        assert ",".join(child.strategies) == meta.get("patchStrategy", ""), name
        assert child.merge_key == meta.get("patchMergeKey"), name
        if child.kind == "list":
            assert child.ssa_list_type == meta.get("listType", "atomic"), name
            if child.ssa_list_type == "map":
                assert list(child.ssa_keys) == meta["listMapKeys"], name
        if child.kind == "map":
            assert (child.map_type or None) == meta.get("mapType"), name


@pytest.mark.skipif(TABLE is None, reason="builtin-patch-metadata.json not available")
def test_every_merging_list_of_pod_spec_is_declared() -> None:
    spec = builtin_schema("", "Pod").at(("spec",))
    for name, meta in TABLE["types"]["core/v1.PodSpec"].items():
        if isinstance(meta, dict) and meta.get("patchStrategy") and name != "evictionResponders":
            assert name in spec.fields, name


def test_registered_kinds() -> None:
    assert ("", "Pod") in builtin_kinds()
    assert builtin_schema("example.com", "Widget") is None


def test_pod_containers_merge_by_name_and_new_ones_go_first() -> None:
    pod = {"spec": {"containers": [{"name": "app", "image": "app:1"}]}}
    patch = {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}, {"name": "app", "image": "app:2"}]}}
    out = apply_patch(pod, patch, STRATEGIC_MERGE_PATCH, schema=builtin_schema("", "Pod"))
    assert out["spec"]["containers"] == [{"name": "sidecar", "image": "envoy"}, {"name": "app", "image": "app:2"}]


def test_finalizers_are_a_set_and_owner_references_merge_by_uid() -> None:
    live = {"metadata": {"finalizers": ["a"], "ownerReferences": [{"uid": "1", "name": "x"}]}}
    patch = {"metadata": {"finalizers": ["b", "a"], "ownerReferences": [{"uid": "2", "name": "y"}]}}
    out = apply_patch(live, patch, STRATEGIC_MERGE_PATCH, schema=builtin_schema("", "ConfigMap"))
    assert out["metadata"]["finalizers"] == ["b", "a"]
    assert [r["uid"] for r in out["metadata"]["ownerReferences"]] == ["2", "1"]


def test_deployment_strategy_retain_keys() -> None:
    live = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    out = apply_patch(live, patch, STRATEGIC_MERGE_PATCH, schema=builtin_schema("apps", "Deployment"))
    assert out["spec"]["strategy"] == {"type": "Recreate"}
