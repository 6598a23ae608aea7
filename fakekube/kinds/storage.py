"""storage.k8s.io/v1 kinds (kubernetes ``pkg/registry/storage/<resource>/strategy.go`` and
``storage/storage.go``, ``pkg/apis/storage/v1/defaults.go``, ``pkg/apis/storage/validation/validation.go``;
sources and commits in docs/semantics.md). Every registry here but CSIStorageCapacity's answers a DELETE with
the deleted object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, forbidden, invalid, not_supported, required, too_long
from fakekube.kinds.admission import storage_protection
from fakekube.kinds.checks import (
    dns_subdomain,
    go_label_selector,
    immutable,
    mapping,
    validate_label_selector,
)
from fakekube.kinds.context import WriteContext
from fakekube.namerules import is_dns1123_subdomain_caseless, is_qualified_name, name_is_dns_subdomain
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy
from fakekube.validation import FIELD_IMMUTABLE

RECLAIM_POLICIES = ["Delete", "Retain"]
BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]
_ONE_SOURCE = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
_MAX_ATTACHED_METADATA = 256 * 1024  # maxAttachedVolumeMetadataSize
_MAX_PARAMETERS = 512  # maxProvisionerParameterLen
_MAX_PARAMETERS_SIZE = 256 * 1024  # maxProvisionerParameterSize


class StorageClassStrategy(Strategy):
    returns_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        if not obj.get("reclaimPolicy"):
            obj["reclaimPolicy"] = "Delete"
        if not obj.get("volumeBindingMode"):
            obj["volumeBindingMode"] = "Immediate"

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errs: list[FieldError] = []
        if not obj.get("provisioner"):
            errs.append(required("provisioner", ""))
        if obj.get("reclaimPolicy") not in RECLAIM_POLICIES:
            errs.append(not_supported("reclaimPolicy", obj.get("reclaimPolicy"), RECLAIM_POLICIES))
        if obj.get("volumeBindingMode") not in BINDING_MODES:
            errs.append(not_supported("volumeBindingMode", obj.get("volumeBindingMode"), BINDING_MODES))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        errs = self.validate(new)
        for key in ("parameters", "provisioner", "reclaimPolicy"):
            if new.get(key) != old.get(key):
                errs.append(forbidden(key, f"updates to {key} are forbidden."))
        errs.extend(immutable(new.get("volumeBindingMode"), old.get("volumeBindingMode"), "volumeBindingMode"))
        return errs


class CSIDriverStrategy(Strategy):
    returns_deleted_object = True
    _DEFAULTS = (("attachRequired", True), ("podInfoOnMount", False), ("storageCapacity", False),
                 ("fsGroupPolicy", "ReadWriteOnceWithFSType"), ("requiresRepublish", False), ("seLinuxMount", False))

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        for key, value in self._DEFAULTS:
            if spec.get(key) is None:
                spec[key] = value
        if not spec.get("volumeLifecycleModes"):
            spec["volumeLifecycleModes"] = ["Persistent"]
        if "VolumeLimitScaling" in self.features and spec.get("preventPodSchedulingIfMissing") is None:
            spec["preventPodSchedulingIfMissing"] = False


class CSINodeStrategy(Strategy):
    returns_deleted_object = True


def _provisioner(name: Any, path: str) -> list[FieldError]:
    """``validateProvisioner``: required, then a qualified name once lowercased."""
    if not isinstance(name, str) or not name:
        return [required(path, "")]
    return [invalid(path, name.lower(), m) for m in is_qualified_name(name.lower())]


def _parameters(params: Any, path: str, *, allow_empty: bool) -> list[FieldError]:
    """``validateParameters``: at most 512 keys and 256 KiB, no empty key; some when not ``allow_empty``."""
    params = params if isinstance(params, dict) else {}
    if len(params) > _MAX_PARAMETERS:
        return [too_long(path, _MAX_PARAMETERS)]
    errs = [invalid(path, "", "field can not be empty.") for key in params if not key]
    if sum(len(k) + len(str(v)) for k, v in params.items()) > _MAX_PARAMETERS_SIZE:
        errs.append(too_long(path, _MAX_PARAMETERS_SIZE))
    if not allow_empty and not params:
        errs.append(required(path, "must contain at least one key/value pair"))
    return errs


class VolumeAttributesClassStrategy(Strategy):
    returns_deleted_object = True

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        storage_protection(obj, "VolumeAttributesClass", old, ctx)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # ValidateVolumeAttributesClass
        return [*_provisioner(obj.get("driverName"), "driverName"),
                *_parameters(obj.get("parameters"), "parameters", allow_empty=False)]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        # ValidateVolumeAttributesClassUpdate: the forbidden changes, then the object's own checks.
        errs = []
        for key in ("driverName", "parameters"):
            if new.get(key) != old.get(key):
                errs.append(forbidden(key, f"updates to {key} are forbidden."))
        return [*errs, *self.validate(new)]


class VolumeAttachmentStrategy(BuiltinStrategy):
    initial_status = {"attached": False}
    status_keeps = RESET_META_FOR_STATUS
    returns_deleted_object = True

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """``ValidateVolumeAttachment``: the source (exactly one of the two), the node name, the status' sizes;
        then the declarative checks of ``spec.attacher`` (required, a caseless subdomain, 63 bytes), which come
        after the handwritten ones."""
        spec = mapping(obj.get("spec"))
        source = mapping(spec.get("source"))
        pv_name, inline = source.get("persistentVolumeName"), source.get("inlineVolumeSpec")
        errs: list[FieldError] = []
        if inline is None and pv_name is None:
            errs.append(required("spec.source", _ONE_SOURCE))
        elif inline is not None and pv_name is not None:
            errs.append(forbidden("spec.source", _ONE_SOURCE))
        elif pv_name is not None and not pv_name:
            errs.append(required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
        node = spec.get("nodeName")
        errs.extend(dns_subdomain(node if isinstance(node, str) else "", "spec.nodeName"))
        metadata = mapping(mapping(obj.get("status")).get("attachmentMetadata"))
        if sum(len(k) + len(str(v)) for k, v in metadata.items()) > _MAX_ATTACHED_METADATA:
            errs.append(too_long("status.attachmentMetadata", _MAX_ATTACHED_METADATA))
        if isinstance(pv_name, str) and pv_name:
            errs.extend(invalid("spec.source.persistentVolumeName", pv_name, m)
                        for m in name_is_dns_subdomain(pv_name, False))
        attacher = spec.get("attacher")
        if not isinstance(attacher, str) or not attacher:
            errs.append(required("spec.attacher", ""))
        else:
            errs.extend(invalid("spec.attacher", attacher, m) for m in is_dns1123_subdomain_caseless(attacher))
            if len(attacher.encode()) > 63:
                errs.append(too_long("spec.attacher", 63))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        return [*self.validate(new), *immutable(new.get("spec"), old.get("spec"), "spec")]


class CSIStorageCapacityStrategy(Strategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # ValidateCSIStorageCapacity (the capacity quantity's sign is not checked here)
        errs = validate_label_selector(obj.get("nodeTopology"), "nodeTopology")
        name = obj.get("storageClassName")
        name = name if isinstance(name, str) else ""
        errs.extend(invalid("storageClassName", name, m) for m in name_is_dns_subdomain(name, False))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        # ValidateCSIStorageCapacityUpdate: only the metadata is checked again, the GetCapacity inputs are fixed.
        errs: list[FieldError] = []
        if new.get("nodeTopology") != old.get("nodeTopology"):
            errs.append(invalid("nodeTopology", go_label_selector(new.get("nodeTopology")), FIELD_IMMUTABLE))
        if new.get("storageClassName") != old.get("storageClassName"):
            errs.append(invalid("storageClassName", new.get("storageClassName") or "", FIELD_IMMUTABLE))
        return errs


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "CSIStorageCapacity": CSIStorageCapacityStrategy,
    "StorageClass": StorageClassStrategy,
    "CSIDriver": CSIDriverStrategy,
    "CSINode": CSINodeStrategy,
    "VolumeAttributesClass": VolumeAttributesClassStrategy,
    "VolumeAttachment": VolumeAttachmentStrategy,
}
