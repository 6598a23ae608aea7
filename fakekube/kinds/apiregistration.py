"""apiregistration.k8s.io/v1 APIService and storagemigration.k8s.io/v1 StorageVersionMigration (kube-aggregator
``pkg/registry/apiservice/strategy.go``, kubernetes ``pkg/registry/storagemigration/storagemigration/
strategy.go``; sources and commits in docs/semantics.md): status starts empty (a local APIService's with
``Available``), status writes keep the stored metadata."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.kinds.checks import mapping
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy

LOCAL_AVAILABLE = {"type": "Available", "status": "True", "reason": "Local",
                   "message": "Local APIServices are always available"}


class APIServiceStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        # kube-aggregator pkg/registry/apiservice/strategy.go: a local APIService (no spec.service) is available at
        # once, stamped now (the create's creationTimestamp, taken in the same second).
        if mapping(obj.get("spec")).get("service") is None:
            obj["status"] = {"conditions": [{"type": "Available", "status": "True",
                                             "lastTransitionTime": obj["metadata"].get("creationTimestamp"),
                                             "reason": "Local", "message": LOCAL_AVAILABLE["message"]}]}


class StorageVersionMigrationStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS


STRATEGIES: dict[str, Callable[[], Strategy]] = {"APIService": APIServiceStrategy}
MIGRATION_STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "StorageVersionMigration": StorageVersionMigrationStrategy,
}
