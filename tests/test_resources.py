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
     ("crd", "customresourcedefinitions", "apiextensions.k8s.io"),
     # Beyond the first thirteen: every GA kind, with kubectl's short names and group preferences.
     ("sts", "statefulsets", "apps"), ("ds", "daemonsets", "apps"), ("rs", "replicasets", "apps"),
     ("cj", "cronjobs", "batch"), ("Job", "jobs", "batch"), ("rc", "replicationcontrollers", ""),
     ("no", "nodes", ""), ("pv", "persistentvolumes", ""), ("sc", "storageclasses", "storage.k8s.io"),
     ("pdb", "poddisruptionbudgets", "policy"), ("ing", "ingresses", "networking.k8s.io"),
     ("csr", "certificatesigningrequests", "certificates.k8s.io"), ("pc", "priorityclasses", "scheduling.k8s.io"),
     ("Role", "roles", "rbac.authorization.k8s.io"), ("clusterrolebinding", "clusterrolebindings", "rbac.authorization.k8s.io"),
     ("apiservices", "apiservices", "apiregistration.k8s.io"), ("ev", "events", ""), ("Event", "events", ""),
     ("endpointslices", "endpointslices", "discovery.k8s.io"), ("ep", "endpoints", ""),
     ("hpa.autoscaling", "horizontalpodautoscalers", "autoscaling"), ("limits", "limitranges", ""),
     ("quota", "resourcequotas", ""), ("Event.events.k8s.io", "events", "events.k8s.io")],
)
def test_resolve_like_kubectl(name: str, plural: str, group: str) -> None:
    rt = builtin_registry().resolve(name)
    assert (rt.plural, rt.group) == (plural, group)


def test_preferred_version_and_explicit_versions() -> None:
    registry = builtin_registry()
    assert registry.resolve("hpa").version == "v2"  # autoscaling's preferred version
    assert registry.resolve("hpa.v1.autoscaling").version == "v1"
    assert registry.groups()["autoscaling"] == ["v2", "v1"]
    assert list(registry.groups())[:3] == ["", "apiregistration.k8s.io", "apps"]  # discovery order


def test_custom_resources_rank_after_builtins() -> None:
    registry = builtin_registry()
    registry.register_crd({"metadata": {"name": "events.example.com"}, "spec": {
        "group": "example.com", "scope": "Namespaced", "names": {"plural": "events", "kind": "Event"},
        "versions": [{"name": "v1", "served": True, "storage": True}]}})
    assert registry.resolve("events").group == ""
    assert registry.resolve("events.example.com").group == "example.com"
    assert builtin_registry().get("example.com", "v1", "events") is None  # registries share no CRDs


def test_version_emulation() -> None:
    old = builtin_registry("1.30")
    assert old.get("resource.k8s.io", "v1", "resourceclaims") is None
    assert old.get("networking.k8s.io", "v1", "servicecidrs") is None  # GA in 1.33
    assert old.get("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies") is not None
    with pytest.raises(errors.NotFound):
        old.resolve("resourceclaims")
    assert builtin_registry("1.34").get("resource.k8s.io", "v1", "resourceclaims") is not None
    assert builtin_registry("v1.33.2").get("networking.k8s.io", "v1", "servicecidrs") is not None
    with pytest.raises(ValueError, match="not emulated"):
        builtin_registry("1.20")


def test_builtin_types_are_shared_between_registries() -> None:
    assert builtin_registry().resolve("pods") is builtin_registry().resolve("pods")
    assert builtin_registry("1.30").resolve("pods") is not builtin_registry().resolve("pods")


def test_builtin_scopes_and_subresources() -> None:
    registry = builtin_registry()
    assert not registry.resolve("namespaces").namespaced
    assert registry.resolve("pods").subresources == {"status"}
    assert registry.resolve("deployments").subresources == {"status", "scale"}
    assert registry.resolve("configmaps").subresources == frozenset()
    assert registry.resolve("services").name_rule == "label"
    assert "spec.nodeName" in registry.resolve("pods").selectable_fields
    assert registry.for_kind("apps/v1", "Deployment").plural == "deployments"
    assert registry.groups()["apps"] == ["v1"]
    pods = registry.resolve("pods")
    listed = {s.name: s for s in pods.discovery_subresources}
    assert {"status", "binding", "eviction", "exec", "log", "ephemeralcontainers"} <= set(listed)
    assert listed["eviction"].kind == "Eviction" and listed["eviction"].group == "policy"
    assert registry.resolve("deployments").scale.selector_object_path == ".spec.selector"
    assert registry.resolve("rc").scale.map_selector
    assert registry.resolve("roles").name_rule == "path_segment"
    assert registry.resolve("namespaces").name_rule == "label"
    assert registry.resolve("componentstatuses").verbs == ("get", "list")
    assert "watch" in registry.resolve("statefulsets").verbs  # repaired capture
    assert "spec.unschedulable" in registry.resolve("nodes").selectable_fields
    assert registry.resolve("jobs").selectable_fields["status.successful"]({"metadata": {}}) == "0"


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


def test_remembered_names_follow_every_change_of_the_served_types() -> None:
    # Registry.resolve remembers what a name resolved to; a CRD registered, replaced or removed after a name was
    # resolved must change the answer as it would for a registry that never resolved it.
    registry = builtin_registry()
    crd = {"metadata": {"name": "widgets.example.com"}, "spec": {
        "group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [{"name": "v1", "served": True, "storage": True}]}}
    with pytest.raises(errors.NotFound):
        registry.resolve("widgets")
    registry.register_crd(crd)
    first = registry.resolve("widgets")
    assert registry.resolve("widgets") is first and first.version == "v1"
    registry.register_crd({**crd, "spec": {**crd["spec"], "versions": [{"name": "v2", "served": True,
                                                                        "storage": True}]}})
    assert registry.resolve("widgets").version == "v2"
    registry.unregister_crd("widgets.example.com")
    with pytest.raises(errors.NotFound):
        registry.resolve("widgets")
    registry.register(first)
    assert registry.resolve("widgets.example.com") is first
    registry.unregister(first)
    with pytest.raises(errors.NotFound):
        registry.resolve("widgets.example.com")
