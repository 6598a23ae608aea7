"""apiregistration.k8s.io/v1 APIService and storagemigration.k8s.io/v1 StorageVersionMigration (kube-aggregator
``pkg/registry/apiservice/strategy.go``, kubernetes ``pkg/registry/storagemigration/storagemigration/
strategy.go``; sources and commits in docs/semantics.md): status starts empty (a local APIService's with
``Available``), status writes keep the stored metadata."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, invalid, required
from fakekube.gotext import go_quote
from fakekube.kinds.checks import go_struct, immutable, is_int, mapping
from fakekube.namerules import is_dns1035_label, is_dns1123_subdomain, name_is_path_segment
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy

LOCAL_AVAILABLE = {"type": "Available", "status": "True", "reason": "Local",
                   "message": "Local APIServices are always available"}


def validate_api_service(obj: dict[str, Any]) -> list[FieldError]:
    """kube-aggregator ``ValidateAPIService``: the name is ``version.group``, group and version well formed, the
    priorities in range, a local service has no CA bundle or TLS skip, a remote one names its service."""
    spec = mapping(obj.get("spec"))
    group, version = _text(spec.get("group")), _text(spec.get("version"))
    name = _text(mapping(obj.get("metadata")).get("name"))
    wanted = f"{version}.{group}"
    errs: list[FieldError] = []
    if name and not name_is_path_segment(name, False) and name != wanted:
        errs.append(invalid("metadata.name", name, f'must be `spec.version+"."+spec.group`: {go_quote(wanted)}'))
    if not group and version != "v1":
        errs.append(required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group:
        errs.extend(invalid("spec.group", group, m) for m in is_dns1123_subdomain(group))
    errs.extend(invalid("spec.version", version, m) for m in is_dns1035_label(version))
    for key, top in (("groupPriorityMinimum", 20000), ("versionPriority", 1000)):
        value = spec.get(key) if is_int(spec.get(key)) else 0
        if not 0 < value <= top:
            errs.append(invalid(f"spec.{key}", value, f"must be positive and less than {top}"))
    service = spec.get("service")
    ca_bundle, skip = spec.get("caBundle"), spec.get("insecureSkipTLSVerify") is True
    if not isinstance(service, dict):
        if ca_bundle:
            errs.append(invalid("spec.caBundle", f"{len(base64_bytes(ca_bundle))} bytes",
                                "local APIServices may not have a caBundle"))
        if skip:
            errs.append(invalid("spec.insecureSkipTLSVerify", True, "local APIServices may not have "
                                                                    "insecureSkipTLSVerify"))
        return errs
    for key in ("namespace", "name"):
        if not service.get(key):
            errs.append(required(f"spec.service.{key}", ""))
    port = service.get("port")
    if is_int(port) and not 1 <= port <= 65535:
        errs.append(invalid("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    if skip and ca_bundle:
        errs.append(invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return errs


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def base64_bytes(value: Any) -> bytes:
    try:
        return base64.b64decode(value) if isinstance(value, str) else b""
    except ValueError:
        return b""


class APIServiceStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_api_service(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else validate_api_service(new)

    def meta_update_passes(self, subresource: str | None) -> tuple[str, ...] | None:
        # apiserver registry/rest/update.go validateCommonFields (create and update checks), then kube-aggregator
        # pkg/apis/apiregistration/validation/validation.go ValidateAPIServiceUpdate: the update checks, then
        # ValidateAPIService's create checks (ValidateAPIServiceStatusUpdate: the update checks only)
        return ("create", "update", "update") if subresource == "status" else ("create", "update", "update", "create")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        # kube-aggregator pkg/registry/apiservice/strategy.go: a local APIService (no spec.service) is available at
        # once, stamped now (the create's creationTimestamp, taken in the same second).
        if mapping(obj.get("spec")).get("service") is None:
            obj["status"] = {"conditions": [{"type": "Available", "status": "True",
                                             "lastTransitionTime": obj["metadata"].get("creationTimestamp"),
                                             "reason": "Local", "message": LOCAL_AVAILABLE["message"]}]}


def _group_resource(spec: dict[str, Any]) -> tuple[str, str]:
    resource = mapping(spec.get("resource"))
    return _text(resource.get("group")), _text(resource.get("resource"))


def validate_storage_version_migration(obj: dict[str, Any]) -> list[FieldError]:
    """storagemigration ``ValidateStorageVersionMigration``: the resource is required and a DNS-1035 label, a
    group given a subdomain (each one error, its messages joined by commas)."""
    group, resource = _group_resource(mapping(obj.get("spec")))
    errs: list[FieldError] = []
    if not resource:
        errs.append(required("spec.resource.resource", "resource is required to be set"))
    elif msgs := is_dns1035_label(resource):
        errs.append(invalid("spec.resource.resource", resource, ",".join(msgs)))
    if group and (msgs := is_dns1123_subdomain(group)):
        errs.append(invalid("spec.resource.group", group, ",".join(msgs)))
    return errs


class StorageVersionMigrationStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_storage_version_migration(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        # ValidateStorageVersionMigrationUpdate: the spec never changes; the internal spec struct has no json
        # tags, its metav1.GroupResource has.
        group, resource = _group_resource(mapping(new.get("spec")))
        shown = go_struct(("Resource", {"group": group, "resource": resource}))
        old_group, old_resource = _group_resource(mapping(old.get("spec")))
        return [*validate_storage_version_migration(new),
                *immutable((group, resource), (old_group, old_resource), "spec", shown)]


STRATEGIES: dict[str, Callable[[], Strategy]] = {"APIService": APIServiceStrategy}
MIGRATION_STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "StorageVersionMigration": StorageVersionMigrationStrategy,
}
