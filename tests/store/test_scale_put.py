"""PUT to ``/scale`` with a body that is not an autoscaling/v1 Scale, or with negative replicas, as observed on
kube-apiserver v1.37.2 (apiserver v0.37.2 pkg/endpoints/handlers/rest.go ``transformDecodeError``; kubernetes
v1.37.2 pkg/apis/autoscaling/validation ``ValidateScale``, called by pkg/registry/apps/*/storage's scale REST)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from tests.store.conftest import WIDGET_CRD

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "replicas": 2, "selector": {"matchLabels": {"a": "b"}},
    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def scale(api_version: str | None = "autoscaling/v1", kind: str | None = "Scale", replicas: int = 2) -> dict[str, Any]:
    body: dict[str, Any] = {"metadata": {"name": "web"}, "spec": {"replicas": replicas}}
    if api_version:
        body["apiVersion"] = api_version
    if kind:
        body["kind"] = kind
    return body


@pytest.fixture
def kube() -> Store:
    store = Store(seed=1)
    store.create("deployments", json.loads(json.dumps(DEPLOYMENT)), "default")
    return store


@pytest.mark.parametrize(("body", "message"), [
    (scale(kind="Foo"), 'Foo in version "v1" cannot be handled as a Scale: no kind "Foo" is registered for version '
                        '"autoscaling/v1" in scheme "pkg/runtime/scheme.go:111"'),
    (scale(api_version="v1"), 'Scale in version "v1" cannot be handled as a Scale: no kind "Scale" is registered for '
                              'version "v1" in scheme "pkg/runtime/scheme.go:111"'),
    (scale(kind="HorizontalPodAutoscaler"), 'HorizontalPodAutoscaler in version "v1" cannot be handled as a Scale: '
                                            "converting (v1.HorizontalPodAutoscaler) to (autoscaling.Scale): unknown conversion"),
    (scale(api_version="apps/v1", kind="Deployment"), 'Deployment in version "v1" cannot be handled as a Scale: '
                                                      "converting (v1.Deployment) to (autoscaling.Scale): unknown conversion"),
])
def test_a_body_of_another_kind_is_a_400(kube: Store, body: dict, message: str) -> None:
    with pytest.raises(errors.BadRequest) as caught:
        kube.update("deployments", body, "default", name="web", subresource="scale")
    assert caught.value.message == message
    assert kube.get("deployments", "web", "default")["spec"]["replicas"] == 2


def test_absent_type_meta_is_the_scales(kube: Store) -> None:
    answer = kube.update("deployments", scale(api_version=None, kind=None, replicas=3), "default", name="web",
                         subresource="scale")
    assert answer["spec"] == {"replicas": 3}


def test_negative_replicas_are_the_scales_422(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.update("deployments", scale(replicas=-1), "default", name="web", subresource="scale")
    assert caught.value.message == ('Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be '
                                    "greater than or equal to 0")


def test_a_custom_resource_scale_knows_no_other_type(kube: Store) -> None:
    kube.create("customresourcedefinitions", json.loads(json.dumps(WIDGET_CRD)))
    kube.create("widgets.example.com", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "web"},
                                        "spec": {"replicas": 1}}, "default")
    with pytest.raises(errors.BadRequest) as caught:
        kube.update("widgets.example.com", scale(kind="Widget"), "default", name="web", subresource="scale")
    assert caught.value.message == 'no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:111"'
