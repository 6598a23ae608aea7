"""The committed resource table: regenerated from the shared discovery captures, it must be unchanged; and it
must agree with what the captures say about each resource."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from fakekube.apimodel.table import all_resources, load_table, resources_in

REPO = Path(__file__).resolve().parents[2]
DISCOVERY = REPO.parent / "shared" / "reference" / "discovery"
needs_shared = pytest.mark.skipif(not DISCOVERY.is_dir(), reason="../shared/reference/discovery is absent")


def _generator():
    spec = importlib.util.spec_from_file_location("generate_api_resources", REPO / "scripts" / "generate_api_resources.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@needs_shared
def test_the_committed_table_is_what_the_generator_writes() -> None:
    generator = _generator()
    fresh = generator.render(generator.build_table(DISCOVERY, generator.schema_root()))
    committed = (REPO / "fakekube" / "apimodel" / "api_resources.json").read_text()
    assert fresh == committed, "run: python scripts/generate_api_resources.py"


@needs_shared
def test_every_ga_capture_entry_is_in_the_table() -> None:
    """Names, kind, scope, short names, categories and subresources are the captures' own, but where the real
    server with default feature gates (generators/_discovery.json) or CATEGORIES says otherwise."""
    generator = _generator()
    served = _served()
    table = {(r.group, r.version, r.plural): r for r in all_resources()}
    for path in sorted(DISCOVERY.glob("api*__*.json")):
        doc = json.loads(path.read_text())
        group, _, version = doc["groupVersion"].rpartition("/")
        for entry in doc["resources"]:
            plural, _, sub = entry["name"].partition("/")
            row = table[(group, version, plural)]
            if sub:
                if doc["groupVersion"] in served and entry["name"] not in served[doc["groupVersion"]]:
                    continue  # an alpha subresource (pods/checkpoint): the real server does not list it
                found = {s.name: s for s in row.subresources}[sub]
                assert sorted(found.verbs) == sorted(entry["verbs"]), entry["name"]
                assert found.kind == entry["kind"]
                continue
            assert (row.kind, row.namespaced, row.singular) == (entry["kind"], entry["namespaced"],
                                                                 entry["singularName"])
            assert list(row.short_names) == entry.get("shortNames", [])
            categories = generator.CATEGORIES.get((group, version, row.kind), entry.get("categories", []))
            assert list(row.categories) == categories
            assert set(entry["verbs"]) <= set(row.verbs)


def _served() -> dict[str, dict[str, dict]]:
    recorded = json.loads((REPO / "tests" / "differential" / "generators" / "_discovery.json").read_text())
    return {gv: {row["name"]: row for row in rows} for gv, rows in recorded["groupVersions"].items()}


def test_the_real_servers_discovery_is_the_tables() -> None:
    """Every resource and subresource the real server (v1.37.2, default feature gates) lists is in the table
    with its verbs, and no other subresource is (observed: no pods/checkpoint, a csinodes/status)."""
    table = {(r.group, r.version, r.plural): r for r in all_resources()}
    for group_version, rows in _served().items():
        group, _, version = group_version.rpartition("/")
        for name, entry in rows.items():
            plural, _, sub = name.partition("/")
            row = table.get((group, version, plural))
            if row is None:
                continue  # a group version fakekube's definitions do not have
            if sub:
                assert sorted({s.name: s for s in row.subresources}[sub].verbs) == sorted(entry["verbs"]), name
            else:
                assert sorted(row.verbs) == sorted(entry["verbs"]), name
                assert {f"{plural}/{s.name}" for s in row.subresources} <= set(rows), name


@needs_shared
def test_watch_is_served_wherever_the_aggregated_document_lists_it() -> None:
    """The repaired verbs (captures without any watch) agree with the aggregated capture, taken elsewhere."""
    aggregated = json.loads((DISCOVERY / "aggregated_v2.json").read_text())
    table = {(r.group, r.version, r.plural): r for r in all_resources()}
    compared = 0
    for item in aggregated["items"]:
        for version in item["versions"]:
            for entry in version["resources"]:
                row = table.get((item["metadata"].get("name", ""), version["version"], entry["resource"]))
                if row is not None:
                    assert ("watch" in row.verbs) == ("watch" in entry["verbs"]), row.plural
                    compared += 1
    assert compared > 40


def test_versions_and_groups() -> None:
    table = load_table()
    assert table["kubernetesVersions"][0] == "1.25" and "1.37" in table["kubernetesVersions"]
    assert table["groups"][0] == "" and "resource.k8s.io" in table["groups"]
    names = {(r.group, r.kind) for r in resources_in("1.30")}
    assert ("apps", "StatefulSet") in names and ("", "ReplicationController") in names
    assert ("resource.k8s.io", "ResourceClaim") not in names  # resource.k8s.io/v1 is GA in 1.34
    assert ("resource.k8s.io", "ResourceClaim") in {(r.group, r.kind) for r in resources_in("1.34")}
    assert ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") not in {
        (r.group, r.kind) for r in resources_in("1.29")}
    # Every GA group the issue lists is served by the default version.
    groups = {r.group for r in resources_in("1.37")}
    for group in ("", "apps", "batch", "rbac.authorization.k8s.io", "networking.k8s.io", "policy", "autoscaling",
                  "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "storage.k8s.io", "scheduling.k8s.io",
                  "node.k8s.io", "certificates.k8s.io", "admissionregistration.k8s.io", "flowcontrol.apiserver.k8s.io",
                  "apiextensions.k8s.io", "apiregistration.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
                  "resource.k8s.io", "storagemigration.k8s.io"):
        assert group in groups, group


def test_the_default_version_is_the_pinned_clients() -> None:
    kubernetes = pytest.importorskip("kubernetes")
    from fakekube.apimodel import DEFAULT_KUBERNETES_VERSION

    report = kubernetes.client.Configuration().to_debug_report()
    assert f"Version of the API: release-{DEFAULT_KUBERNETES_VERSION}" in report
