"""discovery.k8s.io/v1 EndpointSlice (kubernetes ``pkg/registry/discovery/endpointslice/strategy.go``,
``pkg/apis/discovery/v1/defaults.go``, ``pkg/apis/discovery/validation/validation.go``; sources and commits in
docs/semantics.md). Generation moves on any change but metadata, and on label changes; ports default to TCP
with an empty name; ``addressType`` is immutable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError
from fakekube.kinds.checks import immutable, one_of, seq
from fakekube.strategies import ALL_BUT_METADATA, BuiltinStrategy, Strategy

ADDRESS_TYPES = ["IPv4", "IPv6", "FQDN"]


class EndpointSliceStrategy(BuiltinStrategy):
    generation_fields = (ALL_BUT_METADATA, "metadata.labels")

    def default(self, obj: dict[str, Any]) -> None:
        for port in seq(obj.get("ports")):
            if isinstance(port, dict):
                if port.get("name") is None:
                    port["name"] = ""
                if port.get("protocol") is None:
                    port["protocol"] = "TCP"

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return one_of(obj.get("addressType"), "addressType", ADDRESS_TYPES)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return self.validate(new) + immutable(new.get("addressType"), old.get("addressType"), "addressType")


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "EndpointSlice": EndpointSliceStrategy,
}
