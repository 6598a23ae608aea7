"""The built-in kinds of an emulated Kubernetes version, as ResourceTypes the store serves.

Everything comes from data: names, scope, verbs and subresources from the generated table
(``fakekube/apimodel/api_resources.json``), schemas from kubernetes-validate's definitions (loaded on first
use), per-kind write rules from ``fakekube.kinds.strategy_for``, and the few facts discovery does not carry
(selectable fields, name rules, the scale subresource) from ``fakekube.apimodel.facts``. The types of one
version are built once per process and shared by every Store of that version; a Registry copies only its
lookup tables.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fakekube.apimodel import facts
from fakekube.apimodel.model import BuiltinModel
from fakekube.apimodel.table import ApiResource, resources_in
from fakekube.apimodel.versions import KubernetesVersion, kubernetes_version
from fakekube.kinds import strategy_for
from fakekube.resources import Registry, ResourceType, ScaleSpec, builtin_index, path_getter

# The subresources the store itself serves; the others are listed in discovery (as the real server lists
# them) but answer 404 here (see docs/not-emulated.md).
SERVED_SUBRESOURCES = frozenset({"status", "scale", "finalize", "approval"})

# core/v1 Event and events.k8s.io/v1 Event are one stored resource served in two shapes
# (kubernetes pkg/apis/events/v1/conversion.go).
EVENTS_STORAGE = "core/events"
_EVENTS_V1_RENAMES = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_EVENTS_CORE_RENAMES = {v: k for k, v in _EVENTS_V1_RENAMES.items()}


def _events_v1_to_core(obj: dict[str, Any]) -> dict[str, Any]:
    out = {_EVENTS_V1_RENAMES.get(k, k): v for k, v in obj.items()}
    out["apiVersion"] = "v1"
    out["kind"] = "Event"
    return out


def _core_to_events_v1(obj: dict[str, Any]) -> dict[str, Any]:
    out = {_EVENTS_CORE_RENAMES.get(k, k): v for k, v in obj.items()}
    out["apiVersion"] = "events.k8s.io/v1"
    out["kind"] = "Event"
    return out


def _field_getter(path: str, zero: str) -> Any:
    get = path_getter(path)
    if not zero:
        return get
    return lambda obj: get(obj) or zero


def _scale(resource: ApiResource) -> ScaleSpec | None:
    spec = facts.SCALE.get((resource.group, resource.kind))
    if spec is None or not any(s.name == "scale" for s in resource.subresources):
        return None
    return ScaleSpec(spec.spec_replicas_path, spec.status_replicas_path, None, spec.selector_path, spec.map_selector)


def _selectable_fields(resource: ApiResource) -> dict[str, Any]:
    fields = {label: _field_getter(path, zero)
              for label, (path, zero) in facts.SELECTABLE_FIELDS.get((resource.group, resource.kind), {}).items()}
    key = (resource.group, resource.kind)
    for alias, label in facts.FIELD_LABEL_ALIASES.get(key, {}).items():
        fields[alias] = fields[label]
    for label in facts.ALWAYS_EMPTY_FIELDS.get(key, ()):
        fields[label] = _empty
    own_conversion = (resource.group, resource.version, resource.kind) in facts.FIELD_LABEL_ERRORS
    if not resource.namespaced and not own_conversion:
        # DefaultMetaV1FieldSelectorConversion accepts it everywhere; a cluster-scoped object's is "".
        fields["metadata.namespace"] = _empty
    if key in facts.NO_NAMESPACE_FIELD:
        fields["metadata.namespace"] = None  # ResourceType drops it (it adds the label to namespaced kinds)
    return fields


def _empty(obj: dict[str, Any]) -> str:
    return ""


def _resource_type(resource: ApiResource, version: KubernetesVersion) -> ResourceType:
    key = (resource.group, resource.kind)
    names = {s.name for s in resource.subresources}
    extra: dict[str, Any] = {}
    if key == ("", "Event"):
        extra["storage"] = EVENTS_STORAGE
    elif key == ("events.k8s.io", "Event"):
        extra.update(storage=EVENTS_STORAGE, to_storage=_events_v1_to_core, from_storage=_core_to_events_v1)
    model = BuiltinModel(version, resource.definition, resource.group, resource.version, resource.kind)
    return ResourceType(
        resource.group, resource.version, resource.kind, resource.plural, resource.namespaced,
        strategy=strategy_for(resource.group, resource.kind, has_status="status" in names, version=version),
        singular=resource.singular,
        short_names=resource.short_names,
        categories=resource.categories,
        subresources=frozenset(names & SERVED_SUBRESOURCES),
        discovery_subresources=resource.subresources,
        selectable_fields=_selectable_fields(resource),
        field_label_error=facts.FIELD_LABEL_ERRORS.get((resource.group, resource.version, resource.kind),
                                                      facts.DEFAULT_FIELD_LABEL_ERROR),
        name_rule=facts.NAME_RULES.get(key, "subdomain"),
        scale=_scale(resource),
        verbs=resource.verbs,
        schema_loader=model.patch_schema,
        model=model,
        **extra,
    )


@cache
def _builtins(version: KubernetesVersion) -> tuple[tuple[ResourceType, ...], Any]:
    types = tuple(_resource_type(r, version) for r in resources_in(str(version)))
    return types, builtin_index(list(types))


def builtin_types(kubernetes: str | KubernetesVersion | None = None) -> tuple[ResourceType, ...]:
    """Every built-in resource of the emulated Kubernetes version (default: the default version), in
    discovery order. The same objects for every call: do not change them."""
    return _builtins(kubernetes_version(kubernetes))[0]


def builtin_registry(kubernetes: str | KubernetesVersion | None = None) -> Registry:
    """A fresh Registry serving the built-ins of one Kubernetes version."""
    version = kubernetes_version(kubernetes)
    registry = Registry(_builtins(version)[1])
    registry.kubernetes_version = version
    return registry
