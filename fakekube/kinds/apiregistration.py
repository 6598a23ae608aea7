"""apiregistration.k8s.io/v1 APIService and storagemigration.k8s.io/v1 StorageVersionMigration (kube-aggregator
``pkg/registry/apiservice/strategy.go``, kubernetes ``pkg/registry/storagemigration/storagemigration/
strategy.go``; sources and commits in docs/semantics.md): status starts empty, status writes keep the stored
metadata."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy


class APIServiceStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS


class StorageVersionMigrationStrategy(APIServiceStrategy):
    pass


STRATEGIES: dict[str, Callable[[], Strategy]] = {"APIService": APIServiceStrategy}
MIGRATION_STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "StorageVersionMigration": StorageVersionMigrationStrategy,
}
