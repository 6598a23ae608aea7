"""flowcontrol.apiserver.k8s.io/v1 kinds (kubernetes ``pkg/registry/flowcontrol/<resource>/strategy.go``;
sources and commits in docs/semantics.md). Status starts empty, generation moves on spec changes, status writes
keep the stored metadata (``ResetObjectMetaForStatus``). Their defaulting is not emulated (see
docs/not-emulated.md)."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy


class FlowSchemaStrategy(BuiltinStrategy):
    initial_status = {}
    generation_fields = ("spec",)
    status_keeps = RESET_META_FOR_STATUS


class PriorityLevelConfigurationStrategy(FlowSchemaStrategy):
    pass


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "FlowSchema": FlowSchemaStrategy,
    "PriorityLevelConfiguration": PriorityLevelConfigurationStrategy,
}
