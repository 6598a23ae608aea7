"""Server-side apply of a ``/scale`` subresource (an autoscaling/v1 Scale), as kube-apiserver v1.37.2 answers it
(the oracle, same requests): the replicas change on the object, the applier owns them under the ``scale``
subresource, and a conflict is reported in the Scale's terms. controller-runtime's SubResourceClient applies
scale this way (``cl.SubResource("scale").Apply``)."""

from __future__ import annotations

import json

import pytest

from fakekube import errors
from fakekube.store import Store

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "replicas": 2, "selector": {"matchLabels": {"a": "b"}},
    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
SCALE = json.dumps({"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 3}})
APPLY = "application/apply-patch+yaml"


@pytest.fixture
def web(kube: Store) -> dict:
    return kube.create("deployments", json.loads(json.dumps(DEPLOYMENT)), "default", field_manager="creator")


def test_a_conflict_is_in_the_scales_terms_and_force_takes_the_replicas(kube: Store, web: dict) -> None:
    with pytest.raises(errors.ApplyConflict) as caught:
        kube.patch("deployments", "web", SCALE, "default", patch_type=APPLY, subresource="scale", field_manager="foo")
    assert caught.value.message == 'Apply failed with 1 conflict: conflict with "creator" using autoscaling/v1: .spec.replicas'
    assert caught.value.details["causes"] == [{"reason": "FieldManagerConflict", "field": ".spec.replicas",
                                               "message": 'conflict with "creator" using autoscaling/v1'}]
    scale = kube.patch("deployments", "web", SCALE, "default", patch_type=APPLY, subresource="scale",
                       field_manager="foo", force=True)
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 3} and scale["status"] == {"replicas": 0, "selector": "a=b"}
    assert scale["metadata"]["resourceVersion"] != web["metadata"]["resourceVersion"]
    stored = kube.get("deployments", "web", "default")
    assert stored["spec"]["replicas"] == 3 and stored["metadata"]["generation"] == 2
    (entry,) = [m for m in stored["metadata"]["managedFields"] if m["manager"] == "foo"]
    assert {k: entry[k] for k in ("operation", "subresource", "apiVersion", "fieldsV1")} == {
        "operation": "Apply", "subresource": "scale", "apiVersion": "apps/v1", "fieldsV1": {"f:spec": {"f:replicas": {}}}}


@pytest.mark.parametrize(("type_meta", "message"), [
    ({"apiVersion": "apps/v1", "kind": "Deployment"}, "invalid object type: apps/v1, Kind=Deployment"),
    ({"apiVersion": "autoscaling/v1", "kind": "Foo"}, "invalid object type: autoscaling/v1, Kind=Foo"),
    ({"kind": "Scale"}, "invalid object type: /, Kind=Scale"),
])
def test_the_body_must_be_a_scale_and_the_object_must_exist(kube: Store, web: dict, type_meta: dict, message: str) -> None:
    body = json.dumps({**type_meta, "spec": {"replicas": 3}})
    with pytest.raises(errors.BadRequest) as caught:
        kube.patch("deployments", "web", body, "default", patch_type=APPLY, subresource="scale", field_manager="f")
    assert caught.value.message == message
    with pytest.raises(errors.NotFound):  # the object is looked up first
        kube.patch("deployments", "nope", body, "default", patch_type=APPLY, subresource="scale", field_manager="f")
