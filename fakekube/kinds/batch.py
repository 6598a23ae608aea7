"""batch/v1 kinds (kubernetes ``pkg/registry/batch/<resource>/strategy.go``)."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.kinds.apps import WorkloadStrategy
from fakekube.strategies import Strategy

STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Job": WorkloadStrategy,
    "CronJob": WorkloadStrategy,
}
