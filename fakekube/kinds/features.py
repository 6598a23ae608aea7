"""The feature gates whose defaults change what a built-in kind's registry does, by the release that turned
each on by default (kubernetes v1.37.2 ``pkg/features/kube_features.go``, apiserver v0.37.2
``pkg/features/kube_features.go``). A strategy reads ``Strategy.features``: the gates on in the emulated
release (every gate below when a strategy is built outside a registry).

``deprecation_warning`` is the other release-dependent fact: a kind whose version is deprecated in the emulated
release gets a warning on every request to its routes (apiserver v0.37.2 ``pkg/endpoints/installer.go``,
``AddWarningsHandler`` with ``pkg/endpoints/deprecation/deprecation.go`` ``WarningMessage``)."""

from __future__ import annotations

from typing import Any

ON_BY_DEFAULT_SINCE: dict[str, tuple[int, int]] = {
    "HPAGeneration": (1, 37),  # HorizontalPodAutoscaler tracks metadata.generation
    "MaxUnavailableStatefulSet": (1, 37),  # StatefulSet rollingUpdate.maxUnavailable defaults to 1
    "VolumeLimitScaling": (1, 37),  # CSIDriver spec.preventPodSchedulingIfMissing defaults to false
}
ALL = frozenset(ON_BY_DEFAULT_SINCE)


def enabled(version: Any) -> frozenset[str]:
    """The gates on by default in ``version`` (a KubernetesVersion; None: the latest)."""
    if version is None:
        return ALL
    return frozenset(name for name, since in ON_BY_DEFAULT_SINCE.items() if (version.major, version.minor) >= since)


def deprecation_warning(group: str, kind: str, strategy: Any, version: Any) -> str | None:
    """``<group/version> <Kind> is deprecated in v<major>.<minor>+[; use <group/version> <Kind>]`` when the
    strategy's kind is deprecated in ``version`` (None: the latest), else None. Only GA kinds are served, whose
    version is always v1."""
    since = strategy.deprecated_since
    if since is None or (version is not None and (version.major, version.minor) < since):
        return None
    text = f"{group + '/' if group else ''}v1 {kind} is deprecated in v{since[0]}.{since[1]}+"
    return f"{text}; use {strategy.replacement}" if strategy.replacement else text
