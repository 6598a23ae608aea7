"""apps/v1 kinds (kubernetes ``pkg/registry/apps/<resource>/strategy.go``)."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.strategies import DeploymentStrategy, Strategy

STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Deployment": DeploymentStrategy,
}
