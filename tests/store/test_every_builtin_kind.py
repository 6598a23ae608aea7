"""Every GA resource of the default Kubernetes version through the store: create, get, list, update, the four
patch types, watch and delete, with a minimal valid object (tests/builtin_objects.py)."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.apimodel.table import ApiResource, resources_in
from fakekube.store import Store
from tests.builtin_objects import CREATE_ONLY, minimal_object, round_trip_resources

RESOURCES = round_trip_resources()


def _id(resource: ApiResource) -> str:
    return f"{resource.plural}.{resource.group or 'core'}/{resource.version}"


def test_every_resource_of_the_version_is_covered() -> None:
    """Nothing is left out silently: every resource is round-tripped or is one of the create-only reviews."""
    served = {r.plural for r in resources_in("1.37")}
    assert served - {r.plural for r in RESOURCES} <= CREATE_ONLY | {"componentstatuses"}
    assert len(RESOURCES) > 60


@pytest.mark.parametrize("resource", RESOURCES, ids=_id)
def test_round_trip(kube: Store, resource: ApiResource) -> None:
    rt = kube.registry.get(resource.group, resource.version, resource.plural)
    assert rt is not None
    ns = "default" if rt.namespaced else None
    body = minimal_object(resource)
    # Strict: the test data itself has no field the schema does not know.
    created = kube.create(rt, body, ns, field_validation="Strict")
    name = created["metadata"]["name"]
    assert (created["apiVersion"], created["kind"]) == (rt.api_version, rt.kind)
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    got = kube.get(rt, name, ns)
    assert got["metadata"]["uid"] == created["metadata"]["uid"]
    listing = kube.list(rt, ns)
    assert listing["kind"] == f"{rt.kind}List"
    assert name in [item["metadata"]["name"] for item in listing["items"]]

    watch = kube.watch(rt, ns, resource_version=got["metadata"]["resourceVersion"])
    got["metadata"]["labels"] = {"step": "update"}
    updated = kube.update(rt, got, ns, field_validation="Strict")
    assert updated["metadata"]["labels"]["step"] == "update"

    merged = kube.patch(rt, name, {"metadata": {"labels": {"merge": "yes"}}}, ns)
    assert (merged["metadata"]["labels"]["step"], merged["metadata"]["labels"]["merge"]) == ("update", "yes")
    jsoned = kube.patch(rt, name, [{"op": "add", "path": "/metadata/annotations", "value": {"json": "yes"}}], ns,
                        patch_type="application/json-patch+json")
    # A DaemonSet's spec.templateGeneration is served as an annotation (pkg/apis/apps/v1/conversion.go), whatever
    # the patch did to the annotations.
    annotations = dict(jsoned["metadata"]["annotations"])
    if rt.kind == "DaemonSet":
        assert annotations.pop("deprecated.daemonset.template.generation") == "1"
    assert annotations == {"json": "yes"}
    strategic = kube.patch(rt, name, {"metadata": {"labels": {"strategic": "yes"}}}, ns,
                           patch_type="application/strategic-merge-patch+json")
    assert strategic["metadata"]["labels"]["strategic"] == "yes"
    applied = kube.patch(rt, name, {"apiVersion": rt.api_version, "kind": rt.kind,
                                    "metadata": {"name": name, "labels": {"applied": "yes"}}}, ns,
                         patch_type="application/apply-patch+yaml", field_manager="round-trip")
    assert applied["metadata"]["labels"]["applied"] == "yes"
    assert "round-trip" in {e["manager"] for e in applied["metadata"]["managedFields"]}

    events = watch.drain()
    watch.stop()
    assert [e.type for e in events] == ["MODIFIED"] * 5
    assert events[-1].object["metadata"]["labels"]["applied"] == "yes"

    kube.delete(rt, name, ns)
    try:
        remaining = kube.get(rt, name, ns)
    except errors.NotFound:
        return
    # Kinds that finalize (namespaces) are terminating until their controller is done.
    assert remaining["metadata"].get("deletionTimestamp")


def test_componentstatuses_are_read_only(kube: Store) -> None:
    assert kube.resolve("cs").verbs == ("get", "list")
    assert kube.list("componentstatuses")["kind"] == "ComponentStatusList"


@pytest.mark.parametrize("version", ["1.25", "1.30", "1.33", "1.34"])
def test_each_emulated_version_serves_exactly_its_kinds(version: str) -> None:
    store = Store(kubernetes_version=version)
    served = {(rt.group, rt.version, rt.kind) for rt in store.registry if not rt.custom}
    assert served == {(r.group, r.version, r.kind) for r in resources_in(version)}
    has_dra = ("resource.k8s.io", "v1", "ResourceClaim") in served
    assert has_dra == (version >= "1.34")
    if not has_dra:
        with pytest.raises(errors.NotFound):
            store.create("resourceclaims.resource.k8s.io", {"metadata": {"name": "c"}}, "default")
