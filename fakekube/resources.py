"""Resource types and the registry that resolves names, kinds and URLs to them.

A ``ResourceType`` is everything the store needs to know about one served group/version/resource: scope,
names, subresources, write strategy, selectable fields, name rule and, for custom resources, the structural
schema. Custom resources come from apiextensions.k8s.io/v1 CustomResourceDefinition manifests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import yaml

from fakekube import errors, yamldocs
from fakekube.apimodel.table import Subresource
from fakekube.patch.custom_resources import custom_resource_schema
from fakekube.patch.schema import PatchSchema
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
    label_selector_path: str | None = None  # custom resources: a string-valued selector at this path
    selector_object_path: str | None = None  # built-ins: a metav1.LabelSelector (or, map_selector, a label map)
    map_selector: bool = False


@dataclass(eq=False)
class ResourceType:
    """One served group/version/resource. Built-in ones are shared by every Store of a Kubernetes version
    (strategies are stateless), so nothing may change a ResourceType once it is registered."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    strategy: Strategy = field(default_factory=Strategy)
    singular: str = ""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: frozenset[str] = frozenset()  # the subresources the store serves (status, scale, finalize)
    selectable_fields: dict[str, FieldGetter] = field(default_factory=dict)
    # The 400's message for any other label ({label}; {quoted}: Go's %q of it). Custom resources' is
    # apiextensions-apiserver's (pkg/apiserver/conversion/converter.go ConvertFieldLabel).
    field_label_error: str = "field label not supported: {label}"
    name_rule: str = "subdomain"
    schema: Any = None  # fakekube.schema.StructuralSchema for custom resources
    schema_loader: Callable[[], PatchSchema | None] | None = field(default=None, repr=False)
    custom: bool = False
    scale: ScaleSpec | None = None
    storage: str = ""  # resources sharing a storage key are one set of objects served under two groups
    to_storage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    from_storage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    verbs: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
    # Subresources as discovery lists them (name, body kind, verbs), served or not; built from `subresources`
    # when not given.
    discovery_subresources: tuple[Subresource, ...] = ()
    model: Any = None  # fakekube.apimodel.model.BuiltinModel: schemas of a built-in kind, loaded on first use
    # fakekube.webhooks.conversion.Webhook of a CRD whose versions convert by webhook (None: apiVersion rewrite)
    conversion: Any = None

    def __post_init__(self) -> None:
        if not self.singular:
            self.singular = self.kind.lower()
        if not self.storage:
            self.storage = f"{self.group}/{self.plural}"
        base: dict[str, FieldGetter] = {"metadata.name": _meta_field("name")}
        if self.namespaced:
            base["metadata.namespace"] = _meta_field("namespace")
        # A None getter takes a base label away (a kind whose field selector refuses metadata.namespace).
        self.selectable_fields = {label: get for label, get in {**base, **self.selectable_fields}.items()
                                  if get is not None}
        if not self.discovery_subresources:
            self.discovery_subresources = tuple(_default_subresource(self, name) for name in sorted(self.subresources))

    @cached_property
    def patch_schema(self) -> PatchSchema | None:
        """Merge metadata for patches and managedFields, built on first use."""
        return self.schema_loader() if self.schema_loader is not None else None

    @cached_property
    def api_version(self) -> str:
        # Read several times by every request; group and version never change once the type is built.
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


def _default_subresource(rt: ResourceType, name: str) -> Subresource:
    if name == "scale":
        return Subresource("scale", "Scale", ("get", "patch", "update"), "autoscaling", "v1")
    if name == "finalize":
        return Subresource("finalize", rt.kind, ("update",))
    return Subresource(name, rt.kind, ("get", "patch", "update"))


class _Index:
    """The lookup tables of a set of resource types. A Registry starts from a copy of its Kubernetes
    version's built-in index (dict copies: the types themselves are shared) and adds CRDs to its own."""

    def __init__(self) -> None:
        self.by_gvr: dict[tuple[str, str, str], ResourceType] = {}
        self.by_name: dict[str, tuple[ResourceType, ...]] = {}  # every lower-cased name → candidates, best first
        self.by_kind: dict[tuple[str, str], ResourceType] = {}  # (apiVersion, Kind)
        self.by_storage: dict[str, ResourceType] = {}  # storage key → the type objects are stored as
        # Resolution order of each registered type, by identity (the index holds every type it ranks):
        # kubectl's priority — built-in groups in discovery order and their versions in preference order,
        # then custom resources in registration order.
        self.rank: dict[int, tuple[int, int]] = {}

    def copy(self) -> _Index:
        other = _Index()
        other.by_gvr = dict(self.by_gvr)
        other.by_name = dict(self.by_name)
        other.by_kind = dict(self.by_kind)
        other.by_storage = dict(self.by_storage)
        other.rank = dict(self.rank)
        return other

    def ordered(self) -> list[ResourceType]:
        return sorted(self.by_gvr.values(), key=lambda t: self.rank[id(t)])

    def add(self, rt: ResourceType, rank: tuple[int, int]) -> None:
        self.rank[id(rt)] = rank
        self.by_gvr[(rt.group, rt.version, rt.plural)] = rt
        self.by_kind.setdefault((rt.api_version, rt.kind), rt)
        if rt.from_storage is None:
            self.by_storage.setdefault(rt.storage, rt)
        names = {rt.plural, rt.singular, rt.kind.lower(), *(n.lower() for n in rt.short_names)}
        for name in names:
            # Tuples, replaced rather than changed, so a copied index never sees another registry's CRDs.
            candidates = [*self.by_name.get(name, ()), rt]
            candidates.sort(key=lambda t: self.rank[id(t)])
            self.by_name[name] = tuple(candidates)

    def remove(self, rt: ResourceType) -> None:
        key = (rt.group, rt.version, rt.plural)
        if self.by_gvr.get(key) is not rt:
            return
        del self.by_gvr[key]
        del self.rank[id(rt)]
        if self.by_kind.get((rt.api_version, rt.kind)) is rt:
            del self.by_kind[(rt.api_version, rt.kind)]
            for other in self.by_gvr.values():
                if (other.api_version, other.kind) == (rt.api_version, rt.kind):
                    self.by_kind[(rt.api_version, rt.kind)] = other
                    break
        if self.by_storage.get(rt.storage) is rt:
            del self.by_storage[rt.storage]
            for other in self.by_gvr.values():
                if other.storage == rt.storage and other.from_storage is None:
                    self.by_storage[rt.storage] = other
                    break
        for name, candidates in list(self.by_name.items()):
            if rt in candidates:
                rest = tuple(t for t in candidates if t is not rt)
                if rest:
                    self.by_name[name] = rest
                else:
                    del self.by_name[name]


_CUSTOM_RANK = 1 << 20


class Registry:
    """Served resources, looked up by URL parts, by kind, or by a kubectl-style name."""

    def __init__(self, builtins: _Index | None = None) -> None:
        self._index = builtins.copy() if builtins is not None else _Index()
        # Held while the index changes and while it is walked: a CRD registered by one request while another
        # lists the served types would otherwise change the dicts under the walk (a KeyError, a 500).
        self._lock = threading.RLock()
        self._crds: dict[str, list[ResourceType]] = {}
        self._added = 0  # types registered through register() and CRDs, ranked after the built-ins
        self.generation = 0  # bumped on every change, so discovery caches can tell
        self.kubernetes_version: Any = None  # the emulated version of the built-ins (KubernetesVersion)
        # name -> (generation, type): every request resolves its resource, mostly by the same few names. Only
        # names that resolved are kept, so the table is bounded by the names the served types answer to.
        self._resolved: dict[str, tuple[int, ResourceType]] = {}

    def register(self, rt: ResourceType) -> ResourceType:
        with self._lock:
            self._add(rt)
            self.generation += 1
        return rt

    def _add(self, rt: ResourceType) -> None:
        old = self._index.by_gvr.get((rt.group, rt.version, rt.plural))
        if old is not None:
            self._index.remove(old)
        self._added += 1
        self._index.add(rt, (_CUSTOM_RANK, self._added))

    def unregister(self, rt: ResourceType) -> None:
        with self._lock:
            self._index.remove(rt)
            self.generation += 1

    def __iter__(self) -> Iterator[ResourceType]:
        """Every served type, in discovery order."""
        with self._lock:
            return iter(self._index.ordered())

    def __len__(self) -> int:
        return len(self._index.by_gvr)

    def get(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._index.by_gvr.get((group, version, plural))

    def groups(self) -> dict[str, list[str]]:
        """group → served versions, preferred first, groups in discovery order (built-ins by priority, then
        custom resource groups in the order their CRDs came)."""
        result: dict[str, list[str]] = {}
        with self._lock:
            ordered = self._index.ordered()
        for rt in ordered:
            versions = result.setdefault(rt.group, [])
            if rt.version not in versions:
                versions.append(rt.version)
        return result

    def storage_type(self, storage: str) -> ResourceType:
        """The type objects of ``storage`` are kept as (core/v1 Event for both Event resources)."""
        return self._index.by_storage[storage]

    def for_kind(self, api_version: str, kind: str) -> ResourceType:
        rt = self._index.by_kind.get((api_version, kind))
        if rt is None:
            group = api_version.rpartition("/")[0]
            raise errors.NotFound(
                kind, group, "", message=f'no matches for kind "{kind}" in version "{api_version}"'
            )
        return rt

    def resolve(self, name: str | ResourceType) -> ResourceType:
        """Accepts a ResourceType, ``plural``, ``plural.group``, ``plural.version.group``, a Kind,
        ``Kind.group``, a singular or a short name, as kubectl resolves them: when several resources answer
        to a name (``events``, ``hpa``), the core group wins, then the groups in discovery order, then the
        preferred version; custom resources come after every built-in."""
        if isinstance(name, ResourceType):
            return name
        known = self._resolved.get(name)
        if known is not None and known[0] == self.generation:
            return known[1]
        generation = self.generation
        head, _, rest = name.partition(".")
        for rt in self._index.by_name.get(head.lower(), ()):
            if not rest or rest in (rt.group, f"{rt.version}.{rt.group}"):
                self._resolved[name] = (generation, rt)
                return rt
        raise errors.NotFound(name, "", "", message=f'the server doesn\'t have a resource type "{name}"')

    # -- custom resources ---------------------------------------------------------------------------

    def register_crd(self, crd: dict[str, Any]) -> list[ResourceType]:
        """Register every served version of a CustomResourceDefinition; replaces an earlier one."""
        types = crd_resource_types(crd)
        name = crd["metadata"]["name"]
        with self._lock:
            for old in self._crds.pop(name, []):
                self._index.remove(old)
            self._crds[name] = types
            for rt in types:
                self._add(rt)
            self.generation += 1
        return types

    def unregister_crd(self, name: str) -> None:
        with self._lock:
            for old in self._crds.pop(name, []):
                self._index.remove(old)
            self.generation += 1

    def load_crds(self, source: str | Path | dict[str, Any]) -> list[ResourceType]:
        """Register CRDs from a manifest dict, a YAML string, or a YAML file (multi-document)."""
        registered: list[ResourceType] = []
        for doc in load_manifests(source):
            if doc.get("kind") == "CustomResourceDefinition":
                registered.extend(self.register_crd(doc))
        return registered


def builtin_index(types: list[ResourceType]) -> _Index:
    """The lookup tables of one version's built-in types, ranked in the order given (discovery order)."""
    index = _Index()
    for position, rt in enumerate(types):
        index.add(rt, (0, position))
    return index


def load_manifests(source: str | Path | dict[str, Any] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Documents from a dict, a list, a YAML/JSON string or a path; ``List`` kinds are flattened."""
    if isinstance(source, dict):
        docs: list[Any] = [source]
    elif isinstance(source, list):
        docs = source
    else:
        path = source if isinstance(source, Path) else None
        if isinstance(source, str) and "\n" not in source and (
            Path(source).is_file() or source.endswith((".yaml", ".yml", ".json"))
        ):
            # One line naming a file is a path; a mistyped one is a FileNotFoundError, not "bad YAML".
            path = Path(source)
        try:
            docs = yamldocs.load_file(path) if path is not None else yamldocs.load_all(source)
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
    from fakekube.webhooks.conversion import Webhook

    hook = Webhook.of(spec) if len(spec.get("versions") or []) > 1 else None
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
                schema_loader=partial(custom_resource_schema, openapi),
                custom=True,
                scale=ScaleSpec(
                    scale.get("specReplicasPath", ".spec.replicas"),
                    scale.get("statusReplicasPath", ".status.replicas"),
                    scale.get("labelSelectorPath"),
                )
                if scale is not None
                else None,
                storage=f"{group}/{plural}",
                conversion=hook,
            )
        )
    # The storage version is served first so that it is the preferred version.
    types.sort(key=lambda rt: not any(v.get("storage") and v["name"] == rt.version for v in spec["versions"]))
    return types
