"""The deprecation warning a deprecated kind's routes send on every request.

kube-apiserver registers each resource's routes with the warnings of its kind's API lifecycle: when the
served type says it is deprecated in a release at or before the running one, every request its handlers take
(errors included, but not what the filters refuse first, such as authorization) carries
``<group/version> <Kind> is deprecated in v<M>.<m>+`` and, when the type names them, ``, unavailable in
v<M>.<m>+`` and ``; use <group/version> <Kind>`` (apiserver v0.37.2 ``pkg/endpoints/installer.go``,
``pkg/endpoints/deprecation/deprecation.go``). Among the group versions fakekube serves only two core kinds
declare a lifecycle (api v0.37.2 ``core/v1/lifecycle.go``); the beta versions' generated lifecycles do not
apply, as fakekube serves none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakekube.resources import ResourceType


@dataclass(frozen=True, slots=True)
class Lifecycle:
    deprecated: tuple[int, int]
    replacement: str | None = None  # "<group/version> <Kind>"
    removed: tuple[int, int] | None = None


# (group, version, kind) → its lifecycle, from k8s.io/api v0.37.2 core/v1/lifecycle.go.
LIFECYCLES: dict[tuple[str, str, str], Lifecycle] = {
    ("", "v1", "ComponentStatus"): Lifecycle((1, 19)),
    ("", "v1", "Endpoints"): Lifecycle((1, 33), replacement="discovery.k8s.io/v1 EndpointSlice"),
}


def route_warnings(rt: ResourceType, kubernetes_version: Any) -> list[str]:
    """The warnings of ``rt``'s routes (a subresource's own kind is the one asked about) on the emulated
    ``kubernetes_version`` (``major``/``minor``; None: the newest, where every declared deprecation holds)."""
    lifecycle = LIFECYCLES.get((rt.group, rt.version, rt.kind))
    if lifecycle is None:
        return []
    if kubernetes_version is not None and (kubernetes_version.major, kubernetes_version.minor) < lifecycle.deprecated:
        return []
    group_version = f"{rt.group}/{rt.version}" if rt.group else rt.version
    text = f"{group_version} {rt.kind} is deprecated in v{lifecycle.deprecated[0]}.{lifecycle.deprecated[1]}+"
    if lifecycle.removed is not None:
        text += f", unavailable in v{lifecycle.removed[0]}.{lifecycle.removed[1]}+"
    if lifecycle.replacement is not None:
        text += f"; use {lifecycle.replacement}"
    return [text]
