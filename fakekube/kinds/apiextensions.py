"""apiextensions.k8s.io/v1 kinds (apiextensions-apiserver ``pkg/registry/customresourcedefinition``)."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.strategies import StatusStrategy, Strategy


class CrdStrategy(StatusStrategy):
    """``strategy.go``: generation on spec changes and, like custom resources, no update without a
    resourceVersion."""

    tracks_generation = True
    allow_unconditional_update = False


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "CustomResourceDefinition": CrdStrategy,
}
