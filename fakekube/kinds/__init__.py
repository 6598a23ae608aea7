"""Per-kind behaviour of built-in resources: which write strategy each kind's registry uses.

``strategy_for`` is what the registry asks when it builds a ResourceType: a kind with its own upstream
strategy (``pkg/registry/<group>/<resource>/strategy.go``) gets that; any other kind gets the generic rule
of its shape — a status subresource means main writes keep the stored status (``StatusStrategy``), no status
subresource means the whole object is ordinary content (``Strategy``). Kinds are grouped by API group, one
module per group; each module's ``STRATEGIES`` maps a Kind to a factory. Strategies are stateless: one
instance may serve every Store. A kind whose objects have a subresource answered on create
(``serviceaccounts/token``) gets those strategies in ``create_subresources``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube import strategywarnings
from fakekube.kinds import (
    admissionregistration,
    apiextensions,
    apiregistration,
    apps,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    core,
    discovery,
    events,
    features,
    flowcontrol,
    networking,
    node,
    policy,
    rbac,
    resource,
    scheduling,
    storage,
    updaterules,
)
from fakekube.strategies import StatusStrategy, Strategy

_BY_GROUP: dict[str, dict[str, Callable[[], Strategy]]] = {
    "": core.STRATEGIES,
    "apps": apps.STRATEGIES,
    "batch": batch.STRATEGIES,
    "autoscaling": autoscaling.STRATEGIES,
    "policy": policy.STRATEGIES,
    "networking.k8s.io": networking.STRATEGIES,
    "node.k8s.io": node.STRATEGIES,
    "discovery.k8s.io": discovery.STRATEGIES,
    "events.k8s.io": events.STRATEGIES,
    "rbac.authorization.k8s.io": rbac.STRATEGIES,
    "storage.k8s.io": storage.STRATEGIES,
    "scheduling.k8s.io": scheduling.STRATEGIES,
    "admissionregistration.k8s.io": admissionregistration.STRATEGIES,
    "certificates.k8s.io": certificates.STRATEGIES,
    "flowcontrol.apiserver.k8s.io": flowcontrol.STRATEGIES,
    "resource.k8s.io": resource.STRATEGIES,
    "apiextensions.k8s.io": apiextensions.STRATEGIES,
    "apiregistration.k8s.io": apiregistration.STRATEGIES,
    "storagemigration.k8s.io": apiregistration.MIGRATION_STRATEGIES,
    authentication.GROUP: authentication.STRATEGIES,
    authorization.GROUP: authorization.STRATEGIES,
}
_SUBRESOURCES: dict[tuple[str, str], dict[str, Callable[[], Strategy]]] = authentication.SUBRESOURCE_STRATEGIES


def strategy_for(group: str, kind: str, *, has_status: bool, version: Any = None) -> Strategy:
    """A fresh strategy for the built-in ``kind`` of ``group`` (``""`` is the core group), following the
    feature gates of ``version`` (a KubernetesVersion; None: the latest)."""
    factory = _BY_GROUP.get(group, {}).get(kind)
    strategy = factory() if factory is not None else StatusStrategy() if has_status else Strategy()
    strategy.features = features.enabled(version)
    strategy.allow_create_on_update = updaterules.allows_create_on_update(group, kind)
    if updaterules.conditional_update_only(group, kind):
        strategy.allow_unconditional_update = False
    prefix = strategywarnings.NAME_WARNINGS.get((group, kind))
    if prefix is not None:
        strategy.create_warnings = strategywarnings.name_warning(prefix)
    strategy.delete_warning = strategywarnings.DELETE_WARNINGS.get((group, kind))
    strategy.deprecation = features.deprecation_warning(group, kind, strategy, version)
    subresources = _SUBRESOURCES.get((group, kind))
    if subresources:
        strategy.create_subresources = {name: make() for name, make in subresources.items()}
    return strategy


def known_kinds() -> dict[str, tuple[str, ...]]:
    """group → the kinds that have a strategy of their own (for docs and tests)."""
    return {group: tuple(kinds) for group, kinds in _BY_GROUP.items()}
