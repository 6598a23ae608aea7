"""Patch metadata for one value of a document: what kind it is and how patches merge it.

A :class:`PatchSchema` is a node in a tree that mirrors the document. It answers two families of questions:

- strategic merge patch: the patch strategy of a field (``merge`` / ``replace`` / ``retainKeys``) and
  the ``patchMergeKey`` of a merging list (Go struct tags, published as ``x-kubernetes-patch-strategy`` /
  ``x-kubernetes-patch-merge-key``);
- server-side apply: list semantics (``x-kubernetes-list-type: atomic|set|map`` with
  ``x-kubernetes-list-map-keys``) and map semantics (``x-kubernetes-map-type: atomic|granular``).

Nodes are built once and shared; a lookup is a dict access, and :meth:`PatchSchema.at` memoises whole
paths, so nothing is rebuilt per patch call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

Kind = Literal["object", "map", "list", "scalar", "untyped"]

_UNSET: Any = object()


class PatchSchema:
    """Patch metadata of one value (the root of a kind, a field's value, a list item...)."""

    __slots__ = (
        "kind",
        "name",
        "fields",
        "values",
        "items",
        "strategies",
        "merge_key",
        "list_type",
        "list_map_keys",
        "key_defaults",
        "map_type",
        "strict",
        "deduced",
        "scalar",
        "definition",
        "_path_cache",
    )

    def __init__(
        self,
        kind: Kind,
        *,
        name: str = "",
        fields: Mapping[str, PatchSchema] | None = None,
        values: PatchSchema | None = None,
        items: PatchSchema | None = None,
        strategy: str | Iterable[str] = (),
        merge_key: str | None = None,
        list_type: str | None = None,
        list_map_keys: Iterable[str] = (),
        key_defaults: Mapping[str, Any] | None = None,
        map_type: str | None = None,
        strict: bool = False,
        deduced: bool = False,
        scalar: str = "untyped",
    ) -> None:
        self.kind: Kind = kind
        self.name = name or kind
        self.fields: dict[str, PatchSchema] = dict(fields or {})
        self.values = values
        self.items = items
        if isinstance(strategy, str):
            strategy = [s.strip() for s in strategy.split(",") if s.strip()]
        self.strategies: tuple[str, ...] = tuple(strategy)
        self.merge_key = merge_key
        self.list_type = list_type
        self.list_map_keys: tuple[str, ...] = tuple(list_map_keys)
        # The schema defaults of list-map keys: an item that leaves a key out is keyed by its default
        # (structured-merge-diff typed/helpers.go getAssociativeKeyDefault), as ports by protocol TCP.
        self.key_defaults: dict[str, Any] | None = dict(key_defaults) if key_defaults else None
        self.map_type = map_type
        # strict: a field that is not declared is "unknown" (SMP fails when it has to recurse into it),
        # like a Go struct. Lenient nodes hand out an untyped node instead (built-ins we only describe
        # partially, CRDs with preserve-unknown-fields).
        self.strict = strict
        # deduced: the keys this node does not declare are map keys, not struct fields, and their values
        # are deduced the same way (structured-merge-diff's ``__untyped_deduced_`` type, which the API
        # server gives a CR's x-kubernetes-preserve-unknown-fields values). Server-side apply makes such
        # keys members of a field set; a built-in's undescribed fields stay struct fields.
        self.deduced = deduced
        # scalar: what structured-merge-diff accepts for a scalar node: "string", "numeric" (an integer or a
        # number), "boolean", or "untyped" (any scalar: int-or-string, quantities, values we do not know); on
        # an untyped node, "map" when its schema declares an object (of members it does not describe).
        self.scalar = scalar
        # definition: the OpenAPI definition of a built-in struct (``io.k8s.api.discovery.v1.EndpointPort``);
        # ``name`` is its short name, which some structs of different field orders share.
        self.definition = ""
        self._path_cache: dict[tuple[str, ...], PatchSchema | None] = {}

    def __repr__(self) -> str:
        return f"PatchSchema({self.kind!r}, name={self.name!r}, strategies={self.strategies!r})"

    # -- strategic merge patch -------------------------------------------------------------------
    @property
    def smp_strategy(self) -> str:
        """The non-retainKeys part of the patch strategy: ``merge``, ``replace`` or ``""``."""
        for s in self.strategies:
            if s != "retainKeys":
                return s
        return ""

    @property
    def retain_keys(self) -> bool:
        return "retainKeys" in self.strategies

    def field(self, name: str) -> PatchSchema | None:
        """Schema of the value under ``name``; ``None`` when the field is unknown to a strict node."""
        if self.kind == "object":
            found = self.fields.get(name)
            if found is not None:
                return found
            return None if self.strict else DEDUCED if self.deduced else UNTYPED
        if self.kind == "map":
            return self.values if self.values is not None else UNTYPED
        if self.kind == "untyped" and not self.strict:
            return DEDUCED if self.deduced else UNTYPED
        return None

    def is_field(self, name: str) -> bool:
        """Whether ``name`` is a named (struct) field here rather than a map key (smd ``Map.FindField``)."""
        if self.kind == "object":
            return name in self.fields or not self.deduced
        return self.kind == "untyped" and not self.deduced

    def item(self) -> PatchSchema:
        """Schema of a list element (untyped when not declared)."""
        return self.items if self.items is not None else UNTYPED

    # -- server-side apply ----------------------------------------------------------------------
    @property
    def ssa_list_type(self) -> str:
        """``atomic``, ``set`` or ``map``; built-ins derive it from their patch strategy when unset."""
        if self.list_type:
            return self.list_type
        if self.smp_strategy == "merge":
            if self.merge_key:
                return "map"
            if self.items is None or self.items.kind in ("scalar",):
                return "set"
        return "atomic"

    @property
    def ssa_keys(self) -> tuple[str, ...]:
        if self.list_map_keys:
            return self.list_map_keys
        return (self.merge_key,) if self.merge_key else ()

    @property
    def atomic(self) -> bool:
        if self.kind == "list":
            return self.ssa_list_type == "atomic"
        if self.kind in ("map", "object"):
            return self.map_type == "atomic"
        return self.kind == "scalar"

    def at(self, path: Iterable[str]) -> PatchSchema | None:
        """Schema at a dotted field path (list items are traversed implicitly); memoised per path."""
        key = tuple(path)
        cached = self._path_cache.get(key, _UNSET)
        if cached is not _UNSET:
            return cached
        node: PatchSchema | None = self
        for part in key:
            while node is not None and node.kind == "list":
                node = node.item()
            if node is None:
                break
            node = node.field(part)
        self._path_cache[key] = node
        return node

    # -- constructors -----------------------------------------------------------------------------
    @classmethod
    def from_openapi(cls, schema: Mapping[str, Any], *, name: str = "root") -> PatchSchema:
        """Build from an OpenAPI v3 (structural CRD) schema. Lists default to atomic, as for CRs."""
        return _from_openapi(schema, name)


def _from_openapi(schema: Mapping[str, Any], name: str) -> PatchSchema:
    strategy = schema.get("x-kubernetes-patch-strategy", "")
    merge_key = schema.get("x-kubernetes-patch-merge-key")
    if schema.get("x-kubernetes-int-or-string"):
        return PatchSchema("scalar", name=name, strategy=strategy)  # untyped: a string or a number
    typ = schema.get("type")
    if typ == "array" or "items" in schema:
        items = schema.get("items")
        item_schema = _from_openapi(items, name + "[]") if isinstance(items, Mapping) else None
        return PatchSchema(
            "list",
            name=name,
            items=item_schema,
            strategy=strategy,
            merge_key=merge_key,
            # CR lists are atomic unless the schema says otherwise (structured-merge-diff default).
            list_type=schema.get("x-kubernetes-list-type", "atomic"),
            list_map_keys=schema.get("x-kubernetes-list-map-keys", ()),
            key_defaults=_key_defaults(schema),
        )
    props = schema.get("properties")
    addl = schema.get("additionalProperties")
    preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
    if typ == "object" or props is not None or addl is not None or preserve:
        if props is None and isinstance(addl, Mapping):
            return PatchSchema(
                "map",
                name=name,
                values=_from_openapi(addl, name + ".*"),
                strategy=strategy,
                map_type=schema.get("x-kubernetes-map-type"),
            )
        if props is None:
            # An object of free-form members: smd's map of deduced values, which still has to be a map.
            return PatchSchema("untyped", name=name, strategy=strategy, map_type=schema.get("x-kubernetes-map-type"),
                               deduced=True, scalar="map" if typ == "object" else "untyped")
        fields = {k: _from_openapi(v, k) for k, v in props.items() if isinstance(v, Mapping)}
        return PatchSchema(
            "object",
            name=name,
            fields=fields,
            strategy=strategy,
            map_type=schema.get("x-kubernetes-map-type"),
            # preserve-unknown-fields keeps undeclared fields: treat them as untyped, not unknown.
            strict=False,
            deduced=preserve,
        )
    if typ is None:
        return PatchSchema("untyped", name=name, strategy=strategy, deduced=True)
    return PatchSchema("scalar", name=name, strategy=strategy, scalar=scalar_type([typ]))


def scalar_type(types: Iterable[str]) -> str:
    """structured-merge-diff's scalar of OpenAPI types (kube-openapi ``schemaconv``): one type names it,
    several (or none) leave it untyped."""
    kinds = {"string": "string", "integer": "numeric", "number": "numeric", "boolean": "boolean"}
    found = {kinds.get(t, "untyped") for t in types}
    return found.pop() if len(found) == 1 else "untyped"


def _key_defaults(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    items = schema.get("items")
    props = items.get("properties") if isinstance(items, Mapping) else None
    keys = schema.get("x-kubernetes-list-map-keys") or ()
    if not isinstance(props, Mapping):
        return None
    found = {k: props[k]["default"] for k in keys
             if isinstance(props.get(k), Mapping) and "default" in props[k]}
    return found or None


UNTYPED = PatchSchema("untyped", name="untyped")
"""A value we know nothing about: maps merge key by key, lists are replaced (atomic)."""

DEDUCED = PatchSchema("untyped", name="deduced", deduced=True)
"""A custom resource's value kept by x-kubernetes-preserve-unknown-fields: like UNTYPED, but its keys are
map keys (structured-merge-diff's ``__untyped_deduced_``)."""


# Small builders used by the built-in schema module and tests ------------------------------------
def obj(name: str = "object", /, *, patch_strategy_: str = "", **fields: PatchSchema) -> PatchSchema:
    """A struct; keyword arguments are its fields (``patch_strategy_`` avoids clashing with a field name)."""
    return PatchSchema("object", name=name, fields=fields, strategy=patch_strategy_)


def string_map(name: str = "map") -> PatchSchema:
    return PatchSchema("map", name=name, values=PatchSchema("scalar"))


def merge_list(merge_key: str, item: PatchSchema | None = None, *, retain_keys: bool = False,
               list_map_keys: Iterable[str] = ()) -> PatchSchema:
    strategy = ("merge", "retainKeys") if retain_keys else ("merge",)
    return PatchSchema(
        "list", items=item or UNTYPED, strategy=strategy, merge_key=merge_key, list_map_keys=list_map_keys,
        name=(item.name if item else "list"),
    )


def set_list() -> PatchSchema:
    return PatchSchema("list", items=PatchSchema("scalar"), strategy="merge")


def atomic_list(item: PatchSchema | None = None) -> PatchSchema:
    return PatchSchema("list", items=item or UNTYPED, list_type="atomic")
