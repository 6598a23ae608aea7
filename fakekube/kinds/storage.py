"""storage.k8s.io/v1 kinds (kubernetes ``pkg/registry/storage/<resource>/strategy.go`` and
``storage/storage.go``, ``pkg/apis/storage/v1/defaults.go``, ``pkg/apis/storage/validation/validation.go``;
sources and commits in docs/semantics.md). Every registry here but CSIStorageCapacity's answers a DELETE with
the deleted object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, forbidden, not_supported, required
from fakekube.kinds.admission import storage_protection
from fakekube.kinds.checks import immutable
from fakekube.kinds.context import WriteContext
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy

RECLAIM_POLICIES = ["Delete", "Retain"]
BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]


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


class VolumeAttributesClassStrategy(Strategy):
    returns_deleted_object = True

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        storage_protection(obj, "VolumeAttributesClass", old, ctx)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        errs = []
        for key in ("driverName", "parameters"):
            if new.get(key) != old.get(key):
                errs.append(forbidden(key, "field is immutable"))
        return errs


class VolumeAttachmentStrategy(BuiltinStrategy):
    initial_status = {"attached": False}
    status_keeps = RESET_META_FOR_STATUS
    returns_deleted_object = True

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return immutable(new.get("spec"), old.get("spec"), "spec") if subresource != "status" else []


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "StorageClass": StorageClassStrategy,
    "CSIDriver": CSIDriverStrategy,
    "CSINode": CSINodeStrategy,
    "VolumeAttributesClass": VolumeAttributesClassStrategy,
    "VolumeAttachment": VolumeAttachmentStrategy,
}
