from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.builtins import builtin_registry


@pytest.mark.parametrize(
    ("name", "plural", "group"),
    [("pods", "pods", ""), ("po", "pods", ""), ("Pod", "pods", ""), ("pod", "pods", ""),
     ("deployments.apps", "deployments", "apps"), ("deploy", "deployments", "apps"),
     ("events", "events", ""), ("events.events.k8s.io", "events", "events.k8s.io"),
     ("netpol", "networkpolicies", "networking.k8s.io"), ("leases", "leases", "coordination.k8s.io"),
     ("crd", "customresourcedefinitions", "apiextensions.k8s.io")],
)
def test_resolve_like_kubectl(name: str, plural: str, group: str) -> None:
    rt = builtin_registry().resolve(name)
    assert (rt.plural, rt.group) == (plural, group)


def test_builtin_scopes_and_subresources() -> None:
    registry = builtin_registry()
    assert not registry.resolve("namespaces").namespaced
    assert registry.resolve("pods").subresources == {"status"}
    assert registry.resolve("deployments").subresources == {"status", "scale"}
    assert registry.resolve("configmaps").subresources == frozenset()
    assert registry.resolve("services").name_rule == "dns1035"
    assert "spec.nodeName" in registry.resolve("pods").selectable_fields
    assert registry.for_kind("apps/v1", "Deployment").plural == "deployments"
    assert registry.groups()["apps"] == ["v1"]


def test_unknown_names() -> None:
    registry = builtin_registry()
    with pytest.raises(errors.NotFound):
        registry.resolve("gizmos")
    with pytest.raises(errors.NotFound):
        registry.for_kind("example.com/v1", "Gizmo")


def test_manifests_from_a_path_and_a_mistyped_path(tmp_path) -> None:
    from fakekube.resources import load_manifests

    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: v1\nkind: List\nitems:\n"
                    "- {apiVersion: v1, kind: Secret, metadata: {name: s}}\n")
    assert [d["kind"] for d in load_manifests(str(path))] == ["ConfigMap", "Secret"]
    assert [d["kind"] for d in load_manifests(path)] == ["ConfigMap", "Secret"]
    with pytest.raises(FileNotFoundError):
        load_manifests(str(tmp_path / "missing.yaml"))
    with pytest.raises(errors.BadRequest):
        load_manifests("- just\n- a list\n")
