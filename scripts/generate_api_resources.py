#!/usr/bin/env python3
"""Write ``fakekube/apimodel/api_resources.json``: every GA built-in resource with the Kubernetes versions
that serve it.

Two inputs, both data published upstream:

- kube-apiserver's discovery documents (``/api/v1``, ``/apis/<group>/<version>``, the aggregated
  ``apidiscovery.k8s.io/v2`` list and ``/apis``), as captured in kubernetes/kubernetes ``api/discovery/`` and
  copied to ``../shared/reference/discovery/``: names, kind, scope, short names, categories, verbs and
  subresources of each resource, and the order of the groups;
- kubernetes-validate's per-version OpenAPI definitions (``v1.X.0-local/_definitions.json``): which
  group/version/kinds exist in Kubernetes 1.X (each definition's ``x-kubernetes-group-version-kind``).

The captures are not one snapshot (see their README): files taken at commit 7c66d0f8 list no ``watch``
verb at all, although the generic registry serves watch for every resource it lists. A capture that lists
``watch`` for none of its resources is therefore repaired by adding ``watch`` wherever ``list`` is; a capture
that lists it for some resources is taken as it is (``componentstatuses`` really has no watch).

The captures are of kubernetes master at various commits, with alpha features on (``pods/checkpoint``, the
``podautoscalers`` category); the release fakekube emulates by default serves what the real server with its
default feature gates lists, recorded from the oracle in ``tests/differential/generators/_discovery.json``
(scripts/record-discovery). That record is the truth for what it says: a resource it lists takes its kind,
names, scope, verbs, short names and subresources (their names and verbs) from it; the captures still give
what it leaves out (categories, a subresource's group and version). Categories come from the captures but
for the rows of ``CATEGORIES`` (each cites the release's registry).

A GA kind that exists in a version's definitions but has no GA entry in the captures (it went GA after
they were taken) takes its names from the newest pre-GA entry of the aggregated document, or, when there
is none, from the small table ``SUPPLEMENT`` below (each row cites its upstream source).

    python scripts/generate_api_resources.py [--discovery DIR] [--schemas DIR] [--output FILE]

Run it again after updating the captures or kubernetes-validate; tests/apimodel/test_table.py checks that the
committed table is what this script produces.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DISCOVERY = REPO.parent / "shared" / "reference" / "discovery"
DEFAULT_OUTPUT = REPO / "fakekube" / "apimodel" / "api_resources.json"
DEFAULT_SERVED = REPO / "tests" / "differential" / "generators" / "_discovery.json"
GA_VERSIONS = ("v1", "v2")

# Kinds that are served only as a subresource's body or are not resources at all (meta types).
NOT_RESOURCES = frozenset({"APIGroup", "APIVersions", "DeleteOptions", "Eviction", "Scale", "Status",
                           "TokenRequest", "WatchEvent"})

# GA kinds newer than every capture and absent from the aggregated document's earlier versions.
SUPPLEMENT: dict[tuple[str, str, str], dict[str, Any]] = {
    # kubernetes/kubernetes pkg/registry/resource/devicetaintrule/storage/storage.go (a generic store with a
    # status store; cluster-scoped) and api/openapi-spec/v3/apis__resource.k8s.io__v1_openapi.json
    # (/apis/resource.k8s.io/v1/devicetaintrules/{name}/status: GET, PATCH, PUT).
    ("resource.k8s.io", "v1", "DeviceTaintRule"): {
        "plural": "devicetaintrules", "singular": "devicetaintrule", "namespaced": False,
        "subresources": {"status": {"verbs": ["get", "patch", "update"]}},
    },
}

# Categories of the emulated release where the captures (master, alpha features on) say otherwise.
CATEGORIES: dict[tuple[str, str, str], list[str]] = {
    # kubernetes v1.37.2 pkg/registry/autoscaling/horizontalpodautoscaler/storage/storage.go (Categories:
    # "all" only; the captures' "podautoscalers" is a later master's)
    ("autoscaling", "v2", "HorizontalPodAutoscaler"): ["all"],
}

STANDARD_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def schema_root() -> Path:
    """kubernetes-validate's data directory, found without importing the package (it imports jsonschema)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("kubernetes-validate is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"


def kubernetes_versions(schemas: Path) -> list[tuple[int, int]]:
    found = []
    for path in schemas.glob("v*.0-local"):
        match = re.fullmatch(r"v(\d+)\.(\d+)\.0-local", path.name)
        if match and (path / "_definitions.json").is_file():
            found.append((int(match[1]), int(match[2])))
    return sorted(found)


def version_kinds(schemas: Path, version: tuple[int, int]) -> dict[tuple[str, str, str], str]:
    """(group, version, kind) → definition name, for the GA kinds of one Kubernetes version."""
    path = schemas / f"v{version[0]}.{version[1]}.0-local" / "_definitions.json"
    definitions = json.loads(path.read_text())["$defs"]
    kinds = {}
    for name, definition in sorted(definitions.items()):
        for gvk in definition.get("x-kubernetes-group-version-kind") or ():
            key = (gvk["group"], gvk["version"], gvk["kind"])
            if key[1] in GA_VERSIONS and not key[2].endswith("List") and key[2] not in NOT_RESOURCES:
                kinds.setdefault(key, name)
    return kinds


def _subresource(entry: dict[str, Any], own_kind: str) -> dict[str, Any]:
    sub: dict[str, Any] = {"verbs": sorted(entry["verbs"])}
    if entry.get("kind") and entry["kind"] != own_kind:
        sub["kind"] = entry["kind"]
    if entry.get("group") or entry.get("version"):
        sub["group"] = entry.get("group", "")
        sub["version"] = entry.get("version", "")
    return sub


def legacy_resources(path: Path) -> list[dict[str, Any]]:
    """The resources of one ``APIResourceList`` capture, subresources folded into their resource."""
    doc = json.loads(path.read_text())
    group, _, version = doc["groupVersion"].rpartition("/")
    entries = doc["resources"]
    repair_watch = not any("watch" in e["verbs"] for e in entries)
    resources: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if "/" in entry["name"]:
            continue
        verbs = set(entry["verbs"])
        if repair_watch and "list" in verbs:
            verbs.add("watch")
        resources[entry["name"]] = {
            "group": group, "version": version, "kind": entry["kind"], "plural": entry["name"],
            "singular": entry.get("singularName") or entry["kind"].lower(), "namespaced": entry["namespaced"],
            "verbs": sorted(verbs), "shortNames": entry.get("shortNames") or [],
            "categories": entry.get("categories") or [], "subresources": {},
            "source": path.name,
        }
    for entry in entries:
        parent, _, sub = entry["name"].partition("/")
        if sub:
            resources[parent]["subresources"][sub] = _subresource(entry, resources[parent]["kind"])
    return list(resources.values())


def aggregated_entries(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(group, kind) → the resource entry of its newest listed version in the aggregated document."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for item in json.loads(path.read_text())["items"]:
        group = item["metadata"].get("name", "")
        for version in item["versions"]:  # newest (preferred) first
            for entry in version["resources"]:
                found.setdefault((group, entry["responseKind"]["kind"]), entry)
    return found


def _from_aggregated(group: str, version: str, kind: str, entry: dict[str, Any]) -> dict[str, Any]:
    subresources = {}
    for sub in entry.get("subresources") or ():
        body = {"verbs": sorted(sub["verbs"])}
        response = sub.get("responseKind") or {}
        if response.get("kind") and response["kind"] != kind:
            body["kind"] = response["kind"]
        if response.get("group") or response.get("version"):
            body["group"], body["version"] = response.get("group", ""), response.get("version", "")
        subresources[sub["subresource"]] = body
    return {
        "group": group, "version": version, "kind": kind, "plural": entry["resource"],
        "singular": entry.get("singularResource") or kind.lower(), "namespaced": entry["scope"] == "Namespaced",
        "verbs": sorted(entry["verbs"]), "shortNames": entry.get("shortNames") or [],
        "categories": entry.get("categories") or [], "subresources": subresources,
        "source": "aggregated_v2.json (an earlier version of the kind)",
    }


def _from_supplement(group: str, version: str, kind: str, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "group": group, "version": version, "kind": kind, "plural": row["plural"], "singular": row["singular"],
        "namespaced": row["namespaced"], "verbs": list(STANDARD_VERBS), "shortNames": row.get("shortNames", []),
        "categories": row.get("categories", []), "subresources": row.get("subresources", {}),
        "source": "SUPPLEMENT in scripts/generate_api_resources.py",
    }


def apply_served(resources: dict[tuple[str, str, str], dict[str, Any]], served: Path) -> None:
    """Make the resources the real server lists (``_discovery.json``) say what it says."""
    for group_version, rows in json.loads(served.read_text())["groupVersions"].items():
        group, _, version = group_version.rpartition("/")
        by_plural = {r["plural"]: r for (g, v, _), r in resources.items() if (g, v) == (group, version)}
        for row in rows:
            if "/" in row["name"]:
                continue
            resource = by_plural.get(row["name"])
            if resource is None:
                continue  # a group version fakekube's definitions do not have
            resource.update({
                "kind": row["kind"], "singular": row.get("singularName") or row["kind"].lower(),
                "namespaced": row["namespaced"], "verbs": sorted(row["verbs"]),
                "shortNames": row.get("shortNames") or [],
            })
            subresources = {}
            for sub_row in rows:
                parent, _, sub = sub_row["name"].partition("/")
                if parent != row["name"] or not sub:
                    continue
                body = {**resource["subresources"].get(sub, {}), "verbs": sorted(sub_row["verbs"])}
                if sub_row["kind"] != row["kind"]:
                    body["kind"] = sub_row["kind"]
                subresources[sub] = dict(sorted(body.items(), key=lambda kv: ("verbs", "kind", "group", "version").index(kv[0])))
            resource["subresources"] = subresources
            resource["source"] = f"{resource['source']}; {served.name} (the real server, default feature gates)"
    for key, categories in CATEGORIES.items():
        if key in resources:
            resources[key]["categories"] = categories


def group_order(discovery: Path) -> list[str]:
    return [""] + [g["name"] for g in json.loads((discovery / "apis.json").read_text())["groups"]]


def capture_commits(discovery: Path) -> dict[str, str]:
    readme = (discovery / "README.md").read_text()
    return dict(re.findall(r"^\| (\S+\.json) \| ([0-9a-f]{40}) \|$", readme, re.MULTILINE))


def build_table(discovery: Path, schemas: Path, served: Path | None = DEFAULT_SERVED) -> dict[str, Any]:
    versions = kubernetes_versions(schemas)
    kinds_by_version = {v: version_kinds(schemas, v) for v in versions}
    resources: dict[tuple[str, str, str], dict[str, Any]] = {}
    for path in sorted(discovery.glob("api*__*.json")):
        for resource in legacy_resources(path):
            resources[(resource["group"], resource["version"], resource["kind"])] = resource
    aggregated = aggregated_entries(discovery / "aggregated_v2.json")
    every_kind = sorted({k for kinds in kinds_by_version.values() for k in kinds})
    for group, version, kind in every_kind:
        key = (group, version, kind)
        if key in resources:
            continue
        if key in SUPPLEMENT:
            resources[key] = _from_supplement(group, version, kind, SUPPLEMENT[key])
        elif (group, kind) in aggregated:
            resources[key] = _from_aggregated(group, version, kind, aggregated[(group, kind)])
        else:
            raise SystemExit(f"{group or 'core'}/{version} {kind}: no discovery entry; add it to SUPPLEMENT")
    if served is not None:
        apply_served(resources, served)
    order = group_order(discovery)
    rows = []
    for key, resource in resources.items():
        minors = [f"{v[0]}.{v[1]}" for v in versions if key in kinds_by_version[v]]
        if not minors:
            continue  # a capture newer than kubernetes-validate, or a kind without published schemas
        definition = next(kinds_by_version[v][key] for v in reversed(versions) if key in kinds_by_version[v])
        rows.append({**resource, "definition": definition, "kubernetesVersions": minors})
    rows.sort(key=lambda r: (order.index(r["group"]) if r["group"] in order else len(order), r["group"],
                             GA_VERSIONS.index(r["version"]) if r["group"] != "autoscaling" else -int(r["version"][1:]),
                             r["plural"]))
    return {
        "generatedBy": "scripts/generate_api_resources.py",
        "discoveryCaptures": capture_commits(discovery),
        "kubernetesVersions": [f"{v[0]}.{v[1]}" for v in versions],
        "groups": [g for g in order if any(r["group"] == g for r in rows)],
        "resources": rows,
    }


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--discovery", type=Path, default=DEFAULT_DISCOVERY)
    parser.add_argument("--schemas", type=Path, default=None, help="kubernetes-validate's kubernetes-json-schema")
    parser.add_argument("--served", type=Path, default=DEFAULT_SERVED,
                        help="the real server's discovery (scripts/record-discovery)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    table = build_table(args.discovery, args.schemas or schema_root(), args.served)
    args.output.write_text(render(table))
    print(f"{len(table['resources'])} resources, Kubernetes {table['kubernetesVersions'][0]}-"
          f"{table['kubernetesVersions'][-1]} → {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
