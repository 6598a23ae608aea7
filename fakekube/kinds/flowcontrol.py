"""flowcontrol.apiserver.k8s.io/v1 kinds (kubernetes ``pkg/registry/flowcontrol/<resource>/strategy.go``;
sources and commits in docs/semantics.md). Status starts empty, generation moves on spec changes, status writes
keep the stored metadata (``ResetObjectMetaForStatus``). Defaults: ``pkg/apis/flowcontrol/v1/defaults.go`` through
``zz_generated.defaults.go`` (a part is defaulted only when the request has it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.kinds.checks import mapping
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy

MATCHING_PRECEDENCE = 1000
NOMINAL_CONCURRENCY_SHARES = 30
QUEUING = (("handSize", 8), ("queues", 64), ("queueLengthLimit", 50))


class FlowSchemaStrategy(BuiltinStrategy):
    initial_status = {}
    generation_fields = ("spec",)
    status_keeps = RESET_META_FOR_STATUS

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if spec is None:
            spec = obj["spec"] = {}  # a non-pointer struct, defaulted even when absent
        if isinstance(spec, dict) and not spec.get("matchingPrecedence"):
            spec["matchingPrecedence"] = MATCHING_PRECEDENCE


class PriorityLevelConfigurationStrategy(FlowSchemaStrategy):
    def default(self, obj: dict[str, Any]) -> None:
        spec = mapping(obj.get("spec"))
        limited, exempt = spec.get("limited"), spec.get("exempt")
        if isinstance(limited, dict):
            if limited.get("nominalConcurrencyShares") is None:
                limited["nominalConcurrencyShares"] = NOMINAL_CONCURRENCY_SHARES
            if limited.get("lendablePercent") is None:
                limited["lendablePercent"] = 0
            queuing = mapping(limited.get("limitResponse")).get("queuing")
            if isinstance(queuing, dict):
                for key, value in QUEUING:
                    if not queuing.get(key):
                        queuing[key] = value
        if isinstance(exempt, dict):
            for key in ("nominalConcurrencyShares", "lendablePercent"):
                if exempt.get(key) is None:
                    exempt[key] = 0


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "FlowSchema": FlowSchemaStrategy,
    "PriorityLevelConfiguration": PriorityLevelConfigurationStrategy,
}
