"""The built-in kinds fakekube serves, each with its scope, names, subresources and write strategy.

Sources per kind are listed in docs/semantics.md (kubernetes/kubernetes ``pkg/registry/<group>/<kind>``).
"""

from __future__ import annotations

from typing import Any

from fakekube.kinds import strategy_for
from fakekube.patch.builtin_schemas import builtin_schema
from fakekube.resources import Registry, ResourceType, ScaleSpec, path_getter

# core/v1 Event and events.k8s.io/v1 Event are one stored resource served in two shapes.
_EVENTS_V1_RENAMES = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}


def _events_v1_to_core(obj: dict[str, Any]) -> dict[str, Any]:
    out = {_EVENTS_V1_RENAMES.get(k, k): v for k, v in obj.items()}
    out["apiVersion"] = "v1"
    out["kind"] = "Event"
    return out


def _core_to_events_v1(obj: dict[str, Any]) -> dict[str, Any]:
    reverse = {v: k for k, v in _EVENTS_V1_RENAMES.items()}
    out = {reverse.get(k, k): v for k, v in obj.items()}
    out["apiVersion"] = "events.k8s.io/v1"
    out["kind"] = "Event"
    return out


def builtin_types() -> list[ResourceType]:
    pod_fields = {
        name: path_getter(name)
        for name in (
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        )
    }
    event_fields = {
        name: path_getter(name)
        for name in (
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "type",
        )
    }
    event_fields["source"] = path_getter("source.component")
    return [
        ResourceType("", "v1", "Namespace", "namespaces", namespaced=False, strategy=strategy_for("", "Namespace", has_status=True),
                     short_names=("ns",), subresources=frozenset({"status", "finalize"}),
                     name_rule="label", selectable_fields={"status.phase": path_getter("status.phase")}),
        ResourceType("", "v1", "Pod", "pods", namespaced=True, strategy=strategy_for("", "Pod", has_status=True), short_names=("po",),
                     categories=("all",), subresources=frozenset({"status"}), selectable_fields=pod_fields),
        ResourceType("", "v1", "Service", "services", namespaced=True,
                     strategy=strategy_for("", "Service", has_status=True), short_names=("svc",), categories=("all",),
                     subresources=frozenset({"status"}), name_rule="dns1035"),
        ResourceType("", "v1", "ConfigMap", "configmaps", namespaced=True, short_names=("cm",)),
        ResourceType("", "v1", "Secret", "secrets", namespaced=True, strategy=strategy_for("", "Secret", has_status=False),
                     selectable_fields={"type": path_getter("type")}),
        ResourceType("", "v1", "ServiceAccount", "serviceaccounts", namespaced=True, short_names=("sa",),
                     strategy=strategy_for("", "ServiceAccount", has_status=False)),
        ResourceType("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", namespaced=True,
                     strategy=strategy_for("", "PersistentVolumeClaim", has_status=True), short_names=("pvc",),
                     subresources=frozenset({"status"})),
        ResourceType("", "v1", "Event", "events", namespaced=True, short_names=("ev",),
                     selectable_fields=event_fields, storage="core/events"),
        ResourceType("events.k8s.io", "v1", "Event", "events", namespaced=True, short_names=("ev",),
                     storage="core/events", to_storage=_events_v1_to_core, from_storage=_core_to_events_v1),
        ResourceType("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", namespaced=True,
                     strategy=strategy_for("networking.k8s.io", "NetworkPolicy", has_status=False), short_names=("netpol",)),
        ResourceType("coordination.k8s.io", "v1", "Lease", "leases", namespaced=True),
        ResourceType("apps", "v1", "Deployment", "deployments", namespaced=True, strategy=strategy_for("apps", "Deployment", has_status=True),
                     short_names=("deploy",), categories=("all",), subresources=frozenset({"status", "scale"}),
                     scale=ScaleSpec(".spec.replicas", ".status.replicas", None)),
        ResourceType("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
                     namespaced=False, strategy=strategy_for("apiextensions.k8s.io", "CustomResourceDefinition", has_status=True), short_names=("crd", "crds"),
                     subresources=frozenset({"status"})),
        *_review_types(),
    ]


def _review_types() -> list[ResourceType]:
    # TEMPORARY, superseded by the data-built registry (branch `registry`): the create-only review resources
    # of authentication.k8s.io/v1 and authorization.k8s.io/v1, with the names and scope discovery gives them
    # (shared/reference/discovery/apis__authentication.k8s.io__v1.json, apis__authorization.k8s.io__v1.json).
    reviews = (
        ("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", False),
        ("authentication.k8s.io", "TokenReview", "tokenreviews", False),
        ("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews", True),
        ("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews", False),
        ("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews", False),
        ("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews", False),
    )
    return [ResourceType(group, "v1", kind, plural, namespaced=namespaced, verbs=("create",),
                         strategy=strategy_for(group, kind, has_status=False))
            for group, kind, plural, namespaced in reviews]


def builtin_registry() -> Registry:
    registry = Registry()
    for rt in builtin_types():
        rt.patch_schema = builtin_schema(rt.group, rt.kind)
        registry.register(rt)
    return registry
