"""The feature gates whose defaults change what a built-in kind's registry does, by the release that turned
each on by default (kubernetes v1.37.2 ``pkg/features/kube_features.go``, apiserver v0.37.2
``pkg/features/kube_features.go``). A strategy reads ``Strategy.features``: the gates on in the emulated
release (every gate below when a strategy is built outside a registry)."""

from __future__ import annotations

from typing import Any

ON_BY_DEFAULT_SINCE: dict[str, tuple[int, int]] = {
    "HPAGeneration": (1, 37),  # HorizontalPodAutoscaler tracks metadata.generation
    "MaxUnavailableStatefulSet": (1, 37),  # StatefulSet rollingUpdate.maxUnavailable defaults to 1
}
ALL = frozenset(ON_BY_DEFAULT_SINCE)


def enabled(version: Any) -> frozenset[str]:
    """The gates on by default in ``version`` (a KubernetesVersion; None: the latest)."""
    if version is None:
        return ALL
    return frozenset(name for name, since in ON_BY_DEFAULT_SINCE.items() if (version.major, version.minor) >= since)
