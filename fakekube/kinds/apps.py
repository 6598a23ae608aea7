"""apps/v1 kinds (kubernetes ``pkg/registry/apps/<resource>/strategy.go``)."""

from __future__ import annotations

from collections.abc import Callable

from fakekube.strategies import DeploymentStrategy, StatusStrategy, Strategy


class WorkloadStrategy(StatusStrategy):
    """ReplicaSet, StatefulSet, DaemonSet (``pkg/registry/apps/<kind>/strategy.go``) and Job, CronJob
    (``pkg/registry/batch/<kind>/strategy.go``): generation 1 on create, + 1 when the spec changes; main
    writes keep the stored status. ``kubectl rollout status`` waits for ``status.observedGeneration``."""

    tracks_generation = True


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Deployment": DeploymentStrategy,
    "ReplicaSet": WorkloadStrategy,
    "StatefulSet": WorkloadStrategy,
    "DaemonSet": WorkloadStrategy,
}
