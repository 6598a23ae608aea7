"""Shared objects for the store tests: a Widget CRD with status and scale subresources and a schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube import errors
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


class StoredVersions:
    """Every version of one stored object the store held, each with its JSON from when it was first seen: for
    tests that a write never changes an earlier version (writes may share subtrees between versions)."""

    def __init__(self, store: Store, resource: str, namespace: str, name: str) -> None:
        self._bucket = store._bucket(store.resolve(resource))
        self._key = (namespace, name)
        self.held: list[tuple[dict[str, Any], str]] = []

    def remember(self) -> None:
        """Note the version stored now (if new), then check that no version noted so far has changed."""
        record = self._bucket.get(self._key)
        if record is not None and (not self.held or self.held[-1][0] is not record.obj):
            self.held.append((record.obj, json.dumps(record.obj)))
        self.check()

    def check(self) -> None:
        for obj, text in self.held:
            assert json.dumps(obj) == text

    def __len__(self) -> int:
        return len(self.held)


def outcome(fn: Any) -> Any:
    """``["ok", answer]`` or ``["error", status]``: a request's result, for comparing two runs of a script."""
    try:
        return ["ok", fn()]
    except errors.ApiError as exc:
        return ["error", exc.status]
