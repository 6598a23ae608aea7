"""A custom resource written through a version other than its storage one is stored in the storage version:
pruned by that version's schema, so a default only the request's version declares is gone, from the answer too
(observed on kube-apiserver v1.37.2; apiextensions-apiserver ``pkg/apiserver/customresource_handler.go``
schemaCoercingConverter)."""

from __future__ import annotations

from typing import Any

from fakekube.store import Store


def _version(name: str, storage: bool, **extra: Any) -> dict[str, Any]:
    props = {"dflt": {"type": "string", "default": "hello"}, **extra}
    return {"name": name, "served": True, "storage": storage, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": props}}}}}


def test_a_default_only_the_request_version_has_is_not_stored() -> None:
    kube = Store(seed=1)
    kube.create("customresourcedefinitions", {"metadata": {"name": "things.example.com"}, "spec": {
        "group": "example.com", "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
        "versions": [_version("v1", True), _version("v2", False, later={"type": "string", "default": "v2"})]}})
    created = kube.create("things.v2.example.com", {"apiVersion": "example.com/v2", "kind": "Thing",
                                                    "metadata": {"name": "t"}, "spec": {}}, "default")
    assert created["spec"] == {"dflt": "hello"}
    assert kube.get("things.v1.example.com", "t", "default")["spec"] == {"dflt": "hello"}
    # through the storage version nothing is pruned
    kube.create("things.v1.example.com", {"apiVersion": "example.com/v1", "kind": "Thing",
                                          "metadata": {"name": "u"}, "spec": {}}, "default")
    assert kube.get("things.v2.example.com", "u", "default")["spec"] == {"dflt": "hello"}
