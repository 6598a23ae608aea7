"""resource.k8s.io/v1 kinds, dynamic resource allocation (kubernetes ``pkg/registry/resource/<resource>/
storage/storage.go`` and ``strategy.go``, ``pkg/apis/resource/v1/defaults.go``; sources and commits in
docs/semantics.md). Every registry answers a DELETE with the deleted object; an exact device request counts one
device unless it says otherwise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.kinds.checks import mapping, seq
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


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "DeviceClass": DeviceClassStrategy,
    "ResourceClaim": ResourceClaimStrategy,
    "ResourceClaimTemplate": ResourceClaimTemplateStrategy,
    "ResourceSlice": ResourceSliceStrategy,
}
