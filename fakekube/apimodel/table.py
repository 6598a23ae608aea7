"""The committed table of built-in resources (``api_resources.json``), read once per process.

The table is written by ``scripts/generate_api_resources.py`` from kube-apiserver's discovery documents and
kubernetes-validate's per-version definitions; each row is one GA group/version/resource with the Kubernetes
versions that serve it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True, slots=True)
class Subresource:
    """A subresource as discovery lists it; ``kind`` is the body's kind (``Scale``, ``Eviction``...)."""

    name: str
    kind: str
    verbs: tuple[str, ...]
    group: str | None = None  # the body's group/version when it is not the parent's (Scale: autoscaling/v1)
    version: str | None = None


@dataclass(frozen=True, slots=True)
class ApiResource:
    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...]
    short_names: tuple[str, ...]
    categories: tuple[str, ...]
    subresources: tuple[Subresource, ...]
    definition: str  # the OpenAPI definition name, e.g. io.k8s.api.apps.v1.Deployment
    kubernetes_versions: frozenset[str]


@cache
def load_table() -> dict[str, Any]:
    text = resources.files("fakekube.apimodel").joinpath("api_resources.json").read_text()
    return json.loads(text)


def _row(row: dict[str, Any]) -> ApiResource:
    subresources = tuple(
        Subresource(name, body.get("kind", row["kind"]), tuple(body["verbs"]), body.get("group"), body.get("version"))
        for name, body in sorted(row["subresources"].items())
    )
    return ApiResource(
        group=row["group"], version=row["version"], kind=row["kind"], plural=row["plural"],
        singular=row["singular"], namespaced=row["namespaced"], verbs=tuple(row["verbs"]),
        short_names=tuple(row["shortNames"]), categories=tuple(row["categories"]), subresources=subresources,
        definition=row["definition"], kubernetes_versions=frozenset(row["kubernetesVersions"]),
    )


@cache
def all_resources() -> tuple[ApiResource, ...]:
    """Every row, in discovery order (groups by priority, then versions, then plural)."""
    return tuple(_row(r) for r in load_table()["resources"])


@cache
def resources_in(version: str) -> tuple[ApiResource, ...]:
    """The resources Kubernetes ``version`` (``"1.30"``) serves."""
    return tuple(r for r in all_resources() if version in r.kubernetes_versions)


def group_order() -> list[str]:
    """API groups in the order the real server lists them (its group priorities); "" is the core group."""
    return list(load_table()["groups"])
