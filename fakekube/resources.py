"""Resource types and the registry that resolves names, kinds and URLs to them.

A ``ResourceType`` is everything the store needs to know about one served group/version/resource: scope,
names, subresources, write strategy, selectable fields, name rule and, for custom resources, the structural
schema. Custom resources come from apiextensions.k8s.io/v1 CustomResourceDefinition manifests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fakekube import errors
from fakekube.patch.builtin_schemas import custom_resource_schema
from fakekube.schema import StructuralSchema
from fakekube.strategies import CustomResourceStrategy, Strategy

FieldGetter = Callable[[dict[str, Any]], str]


def _meta_field(key: str) -> FieldGetter:
    return lambda obj: obj["metadata"].get(key) or ""


def path_getter(path: str) -> FieldGetter:
    """A getter for a dotted JSON path, rendered like ``fmt.Sprint`` (missing → "")."""
    parts = [p for p in path.lstrip(".").split(".") if p]

    def get(obj: dict[str, Any]) -> str:
        value: Any = obj
        for part in parts:
            if not isinstance(value, dict) or part not in value:
                return ""
            value = value[part]
        if isinstance(value, bool):
            return "true" if value else "false"
        return "" if value is None else str(value)

    return get


@dataclass(frozen=True, slots=True)
class ScaleSpec:
    spec_replicas_path: str
    status_replicas_path: str
    label_selector_path: str | None = None


@dataclass(eq=False)
class ResourceType:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    strategy: Strategy = field(default_factory=Strategy)
    singular: str = ""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: frozenset[str] = frozenset()
    selectable_fields: dict[str, FieldGetter] = field(default_factory=dict)
    name_rule: str = "subdomain"
    schema: Any = None  # fakekube.schema.StructuralSchema for custom resources
    patch_schema: Any = None  # fakekube.patch.schema.PatchSchema when known
    custom: bool = False
    scale: ScaleSpec | None = None
    storage: str = ""  # resources sharing a storage key are one set of objects served under two groups
    to_storage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    from_storage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    verbs: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

    def __post_init__(self) -> None:
        if not self.singular:
            self.singular = self.kind.lower()
        if not self.storage:
            self.storage = f"{self.group}/{self.plural}"
        base: dict[str, FieldGetter] = {"metadata.name": _meta_field("name")}
        if self.namespaced:
            base["metadata.namespace"] = _meta_field("namespace")
        self.selectable_fields = {**base, **self.selectable_fields}

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``GroupResource.String()``: used in NotFound/Conflict messages."""
        return errors.qualified(self.plural, self.group)

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    def has_subresource(self, name: str) -> bool:
        return name in self.subresources

    def __repr__(self) -> str:
        return f"<ResourceType {self.plural}.{self.group or 'core'}/{self.version}>"


class Registry:
    """Served resources, looked up by URL parts, by kind, or by a kubectl-style name."""

    def __init__(self) -> None:
        self._by_gvr: dict[tuple[str, str, str], ResourceType] = {}
        self._lock = threading.Lock()
        self._crds: dict[str, list[ResourceType]] = {}
        self.generation = 0  # bumped on every change, so discovery caches can tell

    def register(self, rt: ResourceType) -> ResourceType:
        with self._lock:
            self._by_gvr[(rt.group, rt.version, rt.plural)] = rt
            self.generation += 1
        return rt

    def unregister(self, rt: ResourceType) -> None:
        with self._lock:
            self._by_gvr.pop((rt.group, rt.version, rt.plural), None)
            self.generation += 1

    def __iter__(self) -> Iterator[ResourceType]:
        return iter(list(self._by_gvr.values()))

    def get(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_gvr.get((group, version, plural))

    def groups(self) -> dict[str, list[str]]:
        """group → served versions, preferred (first registered) first."""
        result: dict[str, list[str]] = {}
        for group, version, _ in self._by_gvr:
            versions = result.setdefault(group, [])
            if version not in versions:
                versions.append(version)
        return result

    def for_kind(self, api_version: str, kind: str) -> ResourceType:
        group, _, version = api_version.rpartition("/")
        for rt in self._by_gvr.values():
            if rt.group == group and rt.version == version and rt.kind == kind:
                return rt
        raise errors.NotFound(
            kind, group, "", message=f'no matches for kind "{kind}" in version "{api_version}"'
        )

    def resolve(self, name: str | ResourceType) -> ResourceType:
        """Accepts a ResourceType, ``plural``, ``plural.group``, ``plural.version.group``, a Kind,
        ``Kind.group``, a singular or a short name (the way kubectl resolves them)."""
        if isinstance(name, ResourceType):
            return name
        head, _, rest = name.partition(".")
        candidates = []
        for rt in self._by_gvr.values():
            names = (rt.plural, rt.singular, rt.kind.lower(), *rt.short_names)
            if head.lower() not in names and head != rt.kind:
                continue
            if rest and rest not in (rt.group, f"{rt.version}.{rt.group}"):
                continue
            candidates.append(rt)
        if not candidates:
            raise errors.NotFound(name, "", "", message=f'the server doesn\'t have a resource type "{name}"')
        # Prefer the core group, then the first-registered (preferred) version.
        candidates.sort(key=lambda rt: (rt.group != "", rt.plural != head))
        return candidates[0]

    # -- custom resources ---------------------------------------------------------------------------

    def register_crd(self, crd: dict[str, Any]) -> list[ResourceType]:
        """Register every served version of a CustomResourceDefinition; replaces an earlier one."""
        types = crd_resource_types(crd)
        name = crd["metadata"]["name"]
        with self._lock:
            for old in self._crds.pop(name, []):
                self._by_gvr.pop((old.group, old.version, old.plural), None)
            self._crds[name] = types
            for rt in types:
                self._by_gvr[(rt.group, rt.version, rt.plural)] = rt
            self.generation += 1
        return types

    def unregister_crd(self, name: str) -> None:
        with self._lock:
            for old in self._crds.pop(name, []):
                self._by_gvr.pop((old.group, old.version, old.plural), None)
            self.generation += 1

    def load_crds(self, source: str | Path | dict[str, Any]) -> list[ResourceType]:
        """Register CRDs from a manifest dict, a YAML string, or a YAML file (multi-document)."""
        registered: list[ResourceType] = []
        for doc in load_manifests(source):
            if doc.get("kind") == "CustomResourceDefinition":
                registered.extend(self.register_crd(doc))
        return registered


def load_manifests(source: str | Path | dict[str, Any] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Documents from a dict, a list, a YAML/JSON string or a path; ``List`` kinds are flattened."""
    if isinstance(source, dict):
        docs: list[Any] = [source]
    elif isinstance(source, list):
        docs = source
    else:
        text = source.read_text() if isinstance(source, Path) else source
        if isinstance(source, str) and "\n" not in source and (
            Path(source).is_file() or source.endswith((".yaml", ".yml", ".json"))
        ):
            # One line naming a file is a path; a mistyped one is a FileNotFoundError, not "bad YAML".
            text = Path(source).read_text()
        try:
            docs = list(yaml.safe_load_all(text))
        except yaml.YAMLError as exc:
            raise errors.BadRequest(f"error parsing YAML: {exc}") from None
    flat: list[dict[str, Any]] = []
    for doc in docs:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise errors.BadRequest("a manifest must be an object")
        if doc.get("kind", "").endswith("List") and isinstance(doc.get("items"), list):
            flat.extend(doc["items"])
        else:
            flat.append(doc)
    return flat


def crd_resource_types(crd: dict[str, Any]) -> list[ResourceType]:
    """The served versions of an apiextensions.k8s.io/v1 CustomResourceDefinition as ResourceTypes."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    plural = names.get("plural", "")
    kind = names.get("kind", "")
    if not (group and plural and kind):
        raise errors.Invalid(
            "CustomResourceDefinition",
            "apiextensions.k8s.io",
            (crd.get("metadata") or {}).get("name", ""),
            [errors.required("spec.names.plural" if not plural else "spec.group" if not group else "spec.names.kind")],
        )
    types = []
    for version in spec.get("versions") or []:
        if not version.get("served", True):
            continue
        subresources = version.get("subresources") or {}
        openapi = (version.get("schema") or {}).get("openAPIV3Schema") or {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
        }
        scale = subresources.get("scale")
        types.append(
            ResourceType(
                group=group,
                version=version["name"],
                kind=kind,
                plural=plural,
                singular=names.get("singular", kind.lower()),
                short_names=tuple(names.get("shortNames") or ()),
                categories=tuple(names.get("categories") or ()),
                namespaced=spec.get("scope", "Namespaced") == "Namespaced",
                strategy=CustomResourceStrategy(status_subresource="status" in subresources),
                subresources=frozenset(k for k in ("status", "scale") if k in subresources),
                selectable_fields={
                    f["jsonPath"].lstrip("."): path_getter(f["jsonPath"])
                    for f in version.get("selectableFields") or []
                },
                schema=StructuralSchema(openapi),
                patch_schema=custom_resource_schema(openapi),
                custom=True,
                scale=ScaleSpec(
                    scale.get("specReplicasPath", ".spec.replicas"),
                    scale.get("statusReplicasPath", ".status.replicas"),
                    scale.get("labelSelectorPath"),
                )
                if scale is not None
                else None,
                storage=f"{group}/{plural}",
            )
        )
    # The storage version is served first so that it is the preferred version.
    types.sort(key=lambda rt: not any(v.get("storage") and v["name"] == rt.version for v in spec["versions"]))
    return types
