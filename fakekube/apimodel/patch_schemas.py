"""Strategic-merge and apply metadata of built-in kinds, derived from their OpenAPI definitions.

Each definition becomes one :class:`~fakekube.patch.schema.PatchSchema` node, built on first use and shared
by every field that refers to it (recursive types such as JSONSchemaProps are cycles, not copies). A field's
own extensions — ``x-kubernetes-patch-strategy``, ``x-kubernetes-patch-merge-key``,
``x-kubernetes-list-type`` / ``-list-map-keys``, ``x-kubernetes-map-type`` — sit on the property, so a field
with a strategy gets a node of its own that shares the definition's fields.

Structs (definitions with properties) are strict, like the Go types they describe: a strategic merge patch
that must look up metadata of a field the struct does not have fails as apimachinery's
``PatchMetaFromStruct`` does. Lists without ``x-kubernetes-list-type`` keep ``PatchSchema``'s built-in rule
(a merge key makes them ``map``, a merging scalar list a ``set``, anything else ``atomic``), which is how
kube-openapi's schema conversion treats built-in types.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fakekube.apimodel.definitions import Definitions, PerDefinition, definitions, schema_types
from fakekube.apimodel.table import resources_in
from fakekube.apimodel.versions import KubernetesVersion, kubernetes_version
from fakekube.patch.schema import UNTYPED, PatchSchema, scalar_type

_SCALARS = {kind: PatchSchema("scalar", scalar=kind) for kind in ("string", "numeric", "boolean", "untyped")}
# Values whose Go type decodes any JSON (RawExtension, apiextensions JSON, FieldsV1 is a map of its own).
_ATOMIC_MAP = PatchSchema("map", name="FieldsV1", map_type="atomic")
_SPECIAL = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": _ATOMIC_MAP,
    # A RawExtension (a ControllerRevision's data) is one field to the field manager, whatever it holds:
    # observed on kube-apiserver v1.37.2, ``f:data: {}`` without members.
    "io.k8s.apimachinery.pkg.runtime.RawExtension": PatchSchema("untyped", name="RawExtension", map_type="atomic",
                                                                scalar="map"),
}


# Defaults of list-map key fields (``+default`` markers the OpenAPI data at hand does not carry): kubernetes/api
# v1.37.2 core/v1/types.go — ContainerPort.Protocol and ServicePort.Protocol ``+default="TCP"``,
# LocalObjectReference.Name ``+default=""`` (imagePullSecrets).
_KEY_DEFAULTS = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.LocalObjectReference", "name"): "",
}



class _Builder(PerDefinition[PatchSchema]):
    def _build(self, name: str) -> PatchSchema:
        if name in _SPECIAL:
            self.nodes[name] = _SPECIAL[name]
            return _SPECIAL[name]
        schema = self.defs[name]
        short = name.rsplit(".", 1)[-1]
        props = schema.get("properties")
        if isinstance(props, dict):
            # Registered before its fields are built, so a field that refers back to it finds it.
            node = PatchSchema("object", name=short, map_type=schema.get("x-kubernetes-map-type"), strict=True)
            node.definition = name
            self.nodes[name] = node
            node.fields = {key: self.field(value, key) for key, value in props.items() if isinstance(value, dict)}
            return node
        node = self._shape(schema, short)
        self.nodes[name] = node
        return node

    def field(self, schema: dict[str, Any], name: str) -> PatchSchema:
        """The node of one property (or list item, or map value)."""
        strategy = schema.get("x-kubernetes-patch-strategy", "")
        ref = Definitions.ref_name(schema)
        if ref is not None:
            target = self.definition(ref)
            if not strategy and "x-kubernetes-map-type" not in schema:
                return target
            variant = PatchSchema(target.kind, name=target.name, strategy=strategy,
                                  map_type=schema.get("x-kubernetes-map-type", target.map_type),
                                  values=target.values, items=target.items, strict=target.strict)
            variant.fields = target.fields  # shared, also while a recursive definition is still being built
            variant.definition = target.definition
            return variant
        return self._shape(schema, name)

    def _key_defaults(self, items: dict[str, Any], keys: Any) -> dict[str, Any] | None:
        """The defaults of a list-map's key fields: the item definition's ``default``, else _KEY_DEFAULTS."""
        ref = Definitions.ref_name(items)
        props = self.defs[ref].get("properties") if ref is not None and ref in self.defs else items.get("properties")
        found: dict[str, Any] = {}
        for key in keys or ():
            prop = props.get(key) if isinstance(props, dict) else None
            if isinstance(prop, dict) and "default" in prop:
                found[key] = prop["default"]
            elif (ref, key) in _KEY_DEFAULTS:
                found[key] = _KEY_DEFAULTS[(ref, key)]
        return found or None

    def _shape(self, schema: dict[str, Any], name: str) -> PatchSchema:
        strategy = schema.get("x-kubernetes-patch-strategy", "")
        types = schema_types(schema)
        if "array" in types or "items" in schema:
            items = schema.get("items")
            item = self.field(items, name) if isinstance(items, dict) else None
            keys = schema.get("x-kubernetes-list-map-keys", ())
            return PatchSchema(
                "list", name=item.name if item is not None and item.kind == "object" else name, items=item,
                strategy=strategy, merge_key=schema.get("x-kubernetes-patch-merge-key"),
                list_type=schema.get("x-kubernetes-list-type"), list_map_keys=keys,
                key_defaults=self._key_defaults(items, keys) if isinstance(items, dict) else None,
            )
        additional = schema.get("additionalProperties")
        if isinstance(additional, dict):
            return PatchSchema("map", name=name, values=self.field(additional, name), strategy=strategy,
                               map_type=schema.get("x-kubernetes-map-type"))
        if "object" in types:
            return PatchSchema("untyped", name=name, strategy=strategy, map_type=schema.get("x-kubernetes-map-type"),
                               scalar="map" if types == {"object"} else "untyped")
        if types or "oneOf" in schema:  # scalars; IntOrString and Quantity are oneOf string/number
            scalar = scalar_type(types) if "oneOf" not in schema else "untyped"
            if strategy:
                return PatchSchema("scalar", name=name, strategy=strategy, scalar=scalar)
            return _SCALARS[scalar]
        return UNTYPED  # RawExtension, apiextensions JSON: any value


@cache
def _builder(version: KubernetesVersion) -> _Builder:
    return _Builder(definitions(version))


def patch_schema(version: KubernetesVersion, definition: str) -> PatchSchema:
    """The patch metadata of the built-in type ``definition`` (``io.k8s.api.apps.v1.Deployment``)."""
    return _builder(version).definition(definition)


def builtin_patch_schema(group: str, kind: str, kubernetes: str | KubernetesVersion | None = None,
                         *, api_version: str | None = None) -> PatchSchema | None:
    """The patch metadata of a built-in kind (``""`` is the core group) in its preferred version (or in
    ``api_version``), or None when the emulated Kubernetes version has no such kind."""
    version = kubernetes_version(kubernetes)
    for resource in resources_in(str(version)):
        if resource.group == group and resource.kind == kind and api_version in (None, resource.version):
            return patch_schema(version, resource.definition)
    return None
