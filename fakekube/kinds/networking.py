"""networking.k8s.io/v1 kinds (kubernetes ``pkg/registry/networking/<resource>/strategy.go``)."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.strategies import GenerationStrategy, Strategy

STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "NetworkPolicy": GenerationStrategy,
}
