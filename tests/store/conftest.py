"""Shared objects for the store tests: a Widget CRD with status and scale subresources and a schema."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.store import Store

WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {
                    "status": {},
                    "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
                },
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "replicas": {"type": "integer", "minimum": 0},
                                    "color": {"type": "string", "enum": ["red", "green", "blue"]},
                                    "size": {"type": "string", "default": "medium"},
                                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                },
                            },
                            "status": {
                                "type": "object",
                                "properties": {
                                    "replicas": {"type": "integer"},
                                    "phase": {"type": "string"},
                                    "conditions": {"type": "array", "items": {
                                        "type": "object",
                                        "x-kubernetes-preserve-unknown-fields": True}},
                                },
                            },
                        },
                    }
                },
            }
        ],
    },
}


def widget(name: str = "w1", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
            "spec": {"replicas": 1, "color": "red", **spec}}


def pod(name: str = "p1", **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]}}


@pytest.fixture
def crd_kube(kube: Store) -> Store:
    kube.load_crds(WIDGET_CRD)
    return kube
