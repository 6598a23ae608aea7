"""The GA kinds of the emulated release, read from upstream's discovery documents (``_discovery/``).

Independent of fakekube's model: the corpus must say what the real server serves, so a kind fakekube lacks
shows up as a divergence instead of silently missing from the corpus.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DISCOVERY = Path(__file__).resolve().parent / "_discovery"

# Resources a client cannot round-trip as objects, and why:
# - bindings (v1): a deprecated twin of pods/binding, a subresource; it needs a pod and a node and changes
#   the pod, not a Binding object (nothing to get, list or delete).
# - componentstatuses (v1): deprecated since 1.19, read-only (get/list), and answers with the health of
#   components the oracle does not run the way a cluster does.
# The reviews (create only, nothing stored) are kept apart in ``review_kinds``.
EXCLUDED = {("", "bindings"), ("", "componentstatuses")}


@dataclass(frozen=True)
class Kind:
    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...]
    subresources: dict[str, tuple[str, ...]]  # name -> verbs, from the discovery rows "plural/sub"
    short_names: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def prefix(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    def collection(self, namespace: str = "{ns}") -> str:
        """The collection's path: in the case's namespace when the kind is namespaced."""
        if self.namespaced:
            return f"{self.prefix}/namespaces/{namespace}/{self.plural}"
        return f"{self.prefix}/{self.plural}"

    def item(self, name: str, subresource: str = "", namespace: str = "{ns}") -> str:
        path = f"{self.collection(namespace)}/{name}"
        return f"{path}/{subresource}" if subresource else path

    def has(self, subresource: str) -> bool:
        return subresource in self.subresources


@cache
def _documents() -> tuple[dict, ...]:
    found = []
    for path in sorted(DISCOVERY.glob("*.json")):
        if re.fullmatch(r"(api__v1|apis__.+__v\d+)\.json", path.name):
            found.append(json.loads(path.read_text()))
    return tuple(found)


@cache
def all_kinds() -> tuple[Kind, ...]:
    """Every top-level GA resource with its subresources, in discovery file order."""
    kinds: list[Kind] = []
    for document in _documents():
        group_version = document["groupVersion"]
        group, version = group_version.rsplit("/", 1) if "/" in group_version else ("", group_version)
        rows = document["resources"]
        subs: dict[str, dict[str, tuple[str, ...]]] = {}
        for row in rows:
            if "/" in row["name"]:
                parent, sub = row["name"].split("/", 1)
                subs.setdefault(parent, {})[sub] = tuple(row["verbs"])
        for row in rows:
            if "/" in row["name"]:
                continue
            kinds.append(Kind(group, version, row["kind"], row["name"], row["singularName"] or row["kind"].lower(),
                              row["namespaced"], tuple(row["verbs"]), subs.get(row["name"], {}),
                              tuple(row.get("shortNames") or ())))
    return tuple(kinds)


def object_kinds() -> list[Kind]:
    """The kinds a client creates, reads, writes and deletes (every verb but the reviews' create only)."""
    return [k for k in all_kinds() if (k.group, k.plural) not in EXCLUDED
            and {"create", "get", "delete"} <= set(k.verbs)]


def review_kinds() -> list[Kind]:
    """The create-only kinds (TokenReview, SubjectAccessReview...): answered, never stored."""
    return [k for k in all_kinds() if (k.group, k.plural) not in EXCLUDED and k.verbs == ("create",)]


def key(kind: Kind) -> str:
    """The kind's part of a case name: ``configmap``, ``deployment.apps``, and the version where a group
    serves a kind in two GA versions (``horizontalpodautoscaler.autoscaling.v2``)."""
    if not kind.group:
        return kind.singular
    twins = [k for k in all_kinds() if (k.group, k.plural) == (kind.group, kind.plural)]
    return f"{kind.singular}.{kind.group}" + (f".{kind.version}" if len(twins) > 1 else "")
