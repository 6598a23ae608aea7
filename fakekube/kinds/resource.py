"""resource.k8s.io/v1 kinds, dynamic resource allocation (kubernetes ``pkg/registry/resource/<resource>/
storage/storage.go`` and ``strategy.go``, ``pkg/apis/resource/v1/defaults.go``; sources and commits in
docs/semantics.md). Every registry answers a DELETE with the deleted object; an exact device request counts one
device unless it says otherwise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError
from fakekube.kinds.checks import mapping, seq
from fakekube.kinds.context import WriteContext
from fakekube.kinds.resourcevalidation import validate_device_taint, validate_resource_slice
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy


def _default_request(request: Any) -> None:
    if not isinstance(request, dict):
        return
    exact = request.get("exactly")
    for part in [exact, *(seq(request.get("firstAvailable")))]:
        if isinstance(part, dict):
            part.setdefault("allocationMode", "ExactCount")
            if part["allocationMode"] == "ExactCount" and not part.get("count"):
                part["count"] = 1
            for toleration in seq(part.get("tolerations")):
                if isinstance(toleration, dict) and not toleration.get("operator"):
                    toleration["operator"] = "Equal"


def default_claim_spec(spec: Any) -> None:
    for request in seq(mapping(mapping(spec).get("devices")).get("requests")):
        _default_request(request)


class DeviceClassStrategy(BuiltinStrategy):
    generation_fields = ("spec",)
    returns_deleted_object = True


class ResourceClaimStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS
    returns_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        default_claim_spec(obj.get("spec"))


class ResourceClaimTemplateStrategy(Strategy):
    returns_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        default_claim_spec(mapping(obj.get("spec")).get("spec"))


class ResourceSliceStrategy(BuiltinStrategy):
    generation_fields = ("spec",)
    returns_deleted_object = True

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_resource_slice(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return validate_resource_slice(new, old)


class DeviceTaintRuleStrategy(BuiltinStrategy):
    """devicetaintrule/strategy.go: generation 1, +1 on a spec change; ``SetDefaults_DeviceTaint`` stamps
    ``spec.taint.timeAdded`` with the time of decoding, and an update that changes the effect but keeps the old
    time gets a new one. The v1 storage answers a DELETE with a Status (only the older versions' return the
    object)."""

    initial_status = {}
    generation_fields = ("spec",)
    status_keeps = RESET_META_FOR_STATUS
    allow_unconditional_update = False

    def default(self, obj: dict[str, Any]) -> None:
        # A create is decoded in the same second the store stamps creationTimestamp (already set when the create
        # defaults its body), so that is the decoding time; an update's comes from the clock in ``admit``.
        created = mapping(obj.get("metadata")).get("creationTimestamp")
        taint = mapping(mapping(obj.get("spec")).get("taint"))
        if created and isinstance(mapping(obj.get("spec")).get("taint"), dict) and taint.get("timeAdded") is None:
            taint["timeAdded"] = created

    def default_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        pass

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_device_taint(mapping(obj.get("spec")).get("taint"), None, "spec.taint")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        return validate_device_taint(mapping(new.get("spec")).get("taint"),
                                     mapping(old.get("spec")).get("taint"), "spec.taint")

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        taint = mapping(obj.get("spec")).get("taint")
        if old is None or ctx.subresource is not None or not isinstance(taint, dict):
            return
        old_taint = mapping(mapping(old.get("spec")).get("taint"))
        if taint.get("timeAdded") is None or (taint.get("effect") != old_taint.get("effect")
                                              and taint.get("timeAdded") == old_taint.get("timeAdded")):
            taint["timeAdded"] = ctx.now()


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "DeviceTaintRule": DeviceTaintRuleStrategy,
    "DeviceClass": DeviceClassStrategy,
    "ResourceClaim": ResourceClaimStrategy,
    "ResourceClaimTemplate": ResourceClaimTemplateStrategy,
    "ResourceSlice": ResourceSliceStrategy,
}
