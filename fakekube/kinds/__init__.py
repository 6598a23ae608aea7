"""Per-kind behaviour of built-in resources: which write strategy each kind's registry uses.

``strategy_for`` is what the registry asks when it builds a ResourceType: a kind with its own upstream
strategy (``pkg/registry/<group>/<resource>/strategy.go``) gets that; any other kind gets the generic rule
of its shape — a status subresource means main writes keep the stored status (``StatusStrategy``), no status
subresource means the whole object is ordinary content (``Strategy``). Kinds are grouped by API group, one
module per group; each module's ``STRATEGIES`` maps a Kind to a factory. A kind whose objects have a
subresource answered on create (``serviceaccounts/token``) gets those strategies in ``create_subresources``.
"""

from __future__ import annotations

from collections.abc import Callable

from fakekube.kinds import apiextensions, apps, authentication, authorization, batch, core, networking
from fakekube.strategies import StatusStrategy, Strategy

_BY_GROUP: dict[str, dict[str, Callable[[], Strategy]]] = {
    "": core.STRATEGIES,
    "apps": apps.STRATEGIES,
    "batch": batch.STRATEGIES,
    "networking.k8s.io": networking.STRATEGIES,
    "apiextensions.k8s.io": apiextensions.STRATEGIES,
    authentication.GROUP: authentication.STRATEGIES,
    authorization.GROUP: authorization.STRATEGIES,
}
_SUBRESOURCES: dict[tuple[str, str], dict[str, Callable[[], Strategy]]] = authentication.SUBRESOURCE_STRATEGIES


def strategy_for(group: str, kind: str, *, has_status: bool) -> Strategy:
    """A fresh strategy for the built-in ``kind`` of ``group`` (``""`` is the core group)."""
    factory = _BY_GROUP.get(group, {}).get(kind)
    strategy = factory() if factory is not None else StatusStrategy() if has_status else Strategy()
    subresources = _SUBRESOURCES.get((group, kind))
    if subresources:
        strategy.create_subresources = {name: make() for name, make in subresources.items()}
    return strategy
