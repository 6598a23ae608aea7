"""One request as admission sees it (k8s.io/apiserver ``pkg/admission/attributes.go``), and the CEL
``request`` variable built from it (``pkg/admission/plugin/cel/condition.go`` CreateAdmissionRequest, v0.37.2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakekube.identity import UserInfo

# The options object each operation carries (admission.Attributes GetOperationOptions).
_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}


@dataclass
class Attributes:
    """One request as admission sees it (apiserver ``admission.Attributes``), for policies and webhooks alike.
    ``operation``: CREATE, UPDATE, DELETE or CONNECT; ``group``/``version``/``resource``/``kind``: the
    request's (what the client wrote to); ``obj``/``old``: JSON objects (None where the operation has none:
    DELETE has no object, CREATE no old one)."""

    operation: str
    group: str
    version: str
    resource: str
    kind: str
    subresource: str
    namespace: str
    name: str
    obj: dict[str, Any] | None
    old: dict[str, Any] | None
    user: UserInfo
    dry_run: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    namespaced: bool = True
    # The kind's group and version where they are not the resource's (a scale subresource is autoscaling/v1).
    kind_group_version: tuple[str, str] | None = None
    # What admission webhooks said beside their verdicts: warnings for the client, annotations for the audit
    # event (fakekube.webhooks).
    warnings: list[str] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)

    def object_name(self) -> str:
        """admission ``extractResourceName``: the name, else the object's name or generateName, else Unknown."""
        if self.name:
            return self.name
        meta = (self.obj or {}).get("metadata") or {}
        return str(meta.get("name") or meta.get("generateName") or "Unknown")


def request_value(a: Attributes, resource: tuple[str, str, str], kind: tuple[str, str, str]) -> dict[str, Any]:
    """``request``: admission/v1 AdmissionRequest as CEL sees it (omitempty fields absent), for the matched
    ``resource`` and ``kind`` (group, version, name); the request's own are ``requestResource``/``requestKind``."""
    out: dict[str, Any] = {
        "uid": "",
        "kind": {"group": kind[0], "version": kind[1], "kind": kind[2]},
        "resource": {"group": resource[0], "version": resource[1], "resource": resource[2]},
        "requestKind": {"group": (a.kind_group_version or (a.group, a.version))[0],
                        "version": (a.kind_group_version or (a.group, a.version))[1], "kind": a.kind},
        "requestResource": {"group": a.group, "version": a.version, "resource": a.resource},
    }
    if a.subresource:
        out["subResource"] = a.subresource
        out["requestSubResource"] = a.subresource
    if a.name:
        out["name"] = a.name
    if a.namespace:
        out["namespace"] = a.namespace
    out["operation"] = a.operation
    out["userInfo"] = a.user.to_json()
    out["dryRun"] = a.dry_run
    options = dict(a.options)
    if a.operation in _OPTIONS_KIND:
        options.setdefault("kind", _OPTIONS_KIND[a.operation])
        options.setdefault("apiVersion", "meta.k8s.io/v1")
    out["options"] = options
    return out


def namespace_value(ns: dict[str, Any] | None) -> dict[str, Any] | None:
    """``namespaceObject``: the namespace with only its spec, status and these metadata fields
    (condition.go CreateNamespaceObject)."""
    if ns is None:
        return None
    meta = ns.get("metadata") or {}
    kept = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
            "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers")
    out: dict[str, Any] = {"metadata": {k: meta[k] for k in kept if k in meta}}
    out["spec"] = ns.get("spec") or {}
    out["status"] = ns.get("status") or {}
    return out
