"""An update's metadata errors, repeated as often as the real server's strategies run the metadata checks
(observed on kube-apiserver v1.37.2): built-in kinds once; a custom resource three passes (apiserver
``pkg/registry/rest/update.go`` validateCommonFields: the create then the update checks; apiextensions-apiserver
``pkg/registry/customresource/validator.go`` ValidateUpdate: the update checks again); an APIService four
(kube-aggregator ``pkg/apis/apiregistration/validation/validation.go`` ValidateAPIServiceUpdate adds the update
and then the create checks)."""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.store import Store
from fakekube.validation import object_meta_update_passes, validate_object_meta_update
from tests.store.conftest import WIDGET_CRD

MERGE = "application/merge-patch+json"
HOLD = "example.com/hold"


@pytest.fixture
def kube() -> Store:
    store = Store(seed=1)
    store.create("customresourcedefinitions", json.loads(json.dumps(WIDGET_CRD)))
    return store


def _causes(kube: Store, resource: str, name: str, patch: dict, namespace: str | None = None) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.patch(resource, name, patch, namespace, patch_type=MERGE)
    return [c["field"] for c in caught.value.status["details"]["causes"]]


def _widget(kube: Store) -> None:
    kube.create("widgets.example.com", {"apiVersion": "example.com/v1", "kind": "Widget",
                                        "metadata": {"name": "w", "finalizers": [HOLD]}}, "default")


def test_a_custom_resource_reports_a_new_finalizer_while_deleting_twice(kube: Store) -> None:
    _widget(kube)
    kube.delete("widgets.example.com", "w", "default")
    assert _causes(kube, "widgets.example.com", "w", {"metadata": {"finalizers": [HOLD, "example.com/late"]}},
                   "default") == ["metadata.finalizers", "metadata.finalizers"]


def test_a_custom_resource_reports_a_bad_label_three_times_and_a_finalizer_conflict_once(kube: Store) -> None:
    _widget(kube)
    assert _causes(kube, "widgets.example.com", "w", {"metadata": {"labels": {"a": "-bad-"}, "annotations": {
        "-x": "1"}}}, "default") == ["metadata.labels", "metadata.annotations"] * 3
    assert _causes(kube, "widgets.example.com", "w", {"metadata": {"finalizers": [
        "orphan", "foregroundDeletion"]}}, "default") == ["metadata.finalizers"]


def test_an_apiservice_reports_the_create_checks_twice_and_the_update_checks_twice(kube: Store) -> None:
    spec = {"group": "example.org", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}
    kube.create("apiservices", {"metadata": {"name": "v1.example.org", "finalizers": [HOLD]}, "spec": spec})
    assert _causes(kube, "apiservices", "v1.example.org", {"metadata": {"labels": {"a": "-bad-"}}}) == [
        "metadata.labels"] * 4
    assert _causes(kube, "apiservices", "v1.example.org", {"metadata": {"finalizers": [
        "orphan", "foregroundDeletion", HOLD]}}) == ["metadata.finalizers"] * 2
    kube.delete("apiservices", "v1.example.org")
    assert _causes(kube, "apiservices", "v1.example.org", {"metadata": {"finalizers": [HOLD, "example.com/late"]}}) == [
        "metadata.finalizers"] * 2


def test_a_built_in_kind_reports_each_metadata_error_once() -> None:
    kube = Store(seed=1)
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    assert _causes(kube, "configmaps", "c", {"metadata": {"labels": {"a": "-bad-"}}}, "default") == [
        "metadata.labels"]


def test_the_passes_split_the_merged_checks() -> None:
    old = {"name": "a", "deletionTimestamp": "t", "finalizers": [HOLD]}
    new = {"name": "a", "deletionTimestamp": "t", "finalizers": [HOLD, "x/y", "orphan", "foregroundDeletion"],
           "labels": {"a": "-"}}
    merged = validate_object_meta_update(new, old)
    assert [e.field for e in merged] == ["metadata.finalizers", "metadata.labels", "metadata.finalizers"]
    assert [e.field for e in object_meta_update_passes(new, old, ("create", "update"))] == [
        "metadata.labels", "metadata.finalizers", "metadata.finalizers", "metadata.labels"]
    assert object_meta_update_passes("x", old, ("create", "update")) == validate_object_meta_update("x", old) * 2


def test_a_custom_resource_drops_empty_metadata_fields_so_a_patch_to_null_changes_nothing(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2: apiextensions-apiserver pkg/apiserver/customresource_handler.go
    # (unstructuredSchemaCoercer.apply) writes the metadata back from metav1.ObjectMeta, omitempty fields and all
    created = kube.create("widgets.example.com", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {
        "name": "e", "labels": {}, "annotations": None, "finalizers": [], "deletionGracePeriodSeconds": 0}},
        "default")
    assert {"labels", "annotations", "finalizers"}.isdisjoint(created["metadata"])
    patched = kube.patch("widgets.example.com", "e", [{"op": "add", "path": "/metadata/labels"}], "default",
                         patch_type="application/json-patch+json")
    assert "labels" not in patched["metadata"]
    assert patched["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


GADGET_CRD = {"metadata": {"name": "gadgets.example.com"}, "spec": {
    "group": "example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
    "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}}, "schema": {
        "openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"}}},
            "status": {"type": "object", "properties": {"b": {"type": "string"}}}}}}}]}}


def test_a_status_of_the_wrong_type_leaves_the_managed_fields_as_they_were(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2: the field manager cannot type the object (apimachinery
    # managedfields/internal/fieldmanager.go UpdateNoErrors keeps the live entries), then the strategy drops
    # the status
    kube.create("customresourcedefinitions", json.loads(json.dumps(GADGET_CRD)))
    body = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": "x"}}
    created = kube.create("gadgets.example.com", {**body, "status": "x"}, "default")
    assert "managedFields" not in created["metadata"] and "status" not in created
    kube.create("gadgets.example.com", {**body, "metadata": {"name": "h"}}, "default", field_manager="first")
    patched = kube.patch("gadgets.example.com", "h", {"spec": {"a": "y"}, "status": {"b": 1}}, "default",
                         patch_type=MERGE, field_manager="second")
    assert patched["spec"] == {"a": "y"}
    assert [e["manager"] for e in patched["metadata"]["managedFields"]] == ["first"]
