"""Which container of a pod a ``log``, ``exec`` or ``attach`` request means: the pod strategy's
``validateContainer`` (k8s.io/kubernetes ``pkg/registry/core/pod/strategy.go``, v1.37.2), and whether the
kubelet would find it running."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakekube import errors


def _container_names(pod: Mapping[str, Any]) -> list[str]:
    spec = pod.get("spec") or {}
    # podutil.VisitContainers' order: init containers, containers, ephemeral containers
    return [c.get("name", "") for key in ("initContainers", "containers", "ephemeralContainers")
            for c in spec.get(key) or [] if isinstance(c, dict)]


def validate_container(container: str, pod: Mapping[str, Any]) -> str:
    """``validateContainer`` (strategy.go)."""
    name = pod["metadata"]["name"]
    if not container:
        containers = (pod.get("spec") or {}).get("containers") or []
        if len(containers) == 1:
            return str(containers[0].get("name", ""))
        if not containers:
            raise errors.BadRequest(f"a container name must be specified for pod {name}")
        raise errors.BadRequest(f"a container name must be specified for pod {name}, choose one of: "
                                f"[{' '.join(_container_names(pod))}]")
    if container not in _container_names(pod):
        raise errors.BadRequest(f"container {container} is not valid for pod {name}")
    return container


def container_running(pod: Mapping[str, Any], container: str) -> bool:
    """Whether the kubelet would find the container (its runtime lists it running); else the kubelet refuses an
    exec or attach with ``container not found ("c")``."""
    status = pod.get("status") or {}
    return any(cs.get("name") == container and "running" in (cs.get("state") or {})
               for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
               for cs in status.get(key) or [])
