"""The real server's discovery of its GA group versions, in the compact form the generators enumerate kinds
from (generators/_discovery.json, written by scripts/record-discovery, checked by the live run).

Per group version, its resources in the order the server lists them: ``name`` (``plural`` or
``plural/subresource``), ``kind``, ``singularName``, ``namespaced``, ``verbs`` and ``shortNames`` — what a
case needs to address a kind; storage hashes and categories are left out.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .client import Client, Request

RECORDED = Path(__file__).resolve().parent.parent / "generators" / "_discovery.json"
GA = re.compile(r"v\d+")
FIELDS = ("name", "kind", "singularName", "namespaced", "verbs", "shortNames")


def _get(client: Client, path: str) -> Any:
    answer = client.send(Request("GET", path))
    if answer.status != 200:
        raise RuntimeError(f"GET {path} answered {answer.status}: {answer.body[:200]!r}")
    return json.loads(answer.body)


def fetch(client: Client) -> dict[str, Any]:
    """``{"groupVersions": {"v1": [rows], "apps/v1": [rows], ...}}``: the core version, then every group's GA
    versions, sorted as ``apis/<group>/<version>`` paths are."""
    versions = [v for v in _get(client, "/api")["versions"] if GA.fullmatch(v)]
    # The server's own groups only, not those of the custom resources and aggregated APIs a case may have
    # registered meanwhile (or is deleting: a group can still be listed after its APIService is gone): its own
    # are those whose APIService the aggregator made at start ("onstart"), and apiregistration.k8s.io, which
    # has none.
    own = {s["spec"].get("group") for s in _get(client, "/apis/apiregistration.k8s.io/v1/apiservices")["items"]
           if (s["metadata"].get("labels") or {}).get("kube-aggregator.kubernetes.io/automanaged") == "onstart"}
    own.add("apiregistration.k8s.io")
    group_versions = sorted(gv["groupVersion"] for group in _get(client, "/apis")["groups"]
                            if group["name"] in own
                            for gv in group["versions"] if GA.fullmatch(gv["version"]))
    out: dict[str, list[dict[str, Any]]] = {}
    for group_version in [*versions, *group_versions]:
        prefix = "/api" if "/" not in group_version else "/apis"
        rows = _get(client, f"{prefix}/{group_version}")["resources"]
        out[group_version] = [{k: row[k] for k in FIELDS if row.get(k) not in (None, [])} for row in rows]
    return {"groupVersions": out}


def dumps(document: dict[str, Any]) -> str:
    """One line per resource: small diffs when a release adds one."""
    lines = ['{"groupVersions": {']
    items = list(document["groupVersions"].items())
    for index, (group_version, rows) in enumerate(items):
        lines.append(f"  {json.dumps(group_version)}: [")
        lines.extend(f"    {json.dumps(row, sort_keys=True)}{',' if i < len(rows) - 1 else ''}"
                     for i, row in enumerate(rows))
        lines.append("  ]" + ("," if index < len(items) - 1 else ""))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def load(path: Path = RECORDED) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))
