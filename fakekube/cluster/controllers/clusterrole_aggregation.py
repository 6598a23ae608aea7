"""``clusterrole-aggregation-controller`` (kubernetes ``pkg/controller/clusterroleaggregation/
clusterroleaggregation_controller.go``): a ClusterRole with an ``aggregationRule`` gets the rules of every
other ClusterRole its ``clusterRoleSelectors`` match.

Per selector, the matching ClusterRoles in name order contribute their rules, each rule once (an equal rule
already taken is skipped). When the result differs from the role's rules, the controller server-side applies
``{rules: [...]}`` with field manager ``clusterrole-aggregation-controller`` and ``force`` (so the rules are its
own, whoever wrote them before). Any ClusterRole change requeues every aggregated role, as upstream does —
that is how ``admin`` picks up ``edit``, which picks up ``view``.
"""

from __future__ import annotations

from typing import Any

from fakekube.patch import APPLY_PATCH
from fakekube.selectors import LabelSelector
from fakekube.sim.controller import Request

from .. import identity
from .common import KcmController

Obj = dict[str, Any]
CLUSTER_ROLES = "clusterroles.rbac.authorization.k8s.io"


def aggregated_rules(role: Obj, roles: list[Obj]) -> list[Obj]:
    """The rules ``role``'s aggregation rule collects from ``roles``."""
    rules: list[Obj] = []
    others = sorted((r for r in roles if r["metadata"]["name"] != role["metadata"]["name"]),
                    key=lambda r: r["metadata"]["name"])
    for selector in (role.get("aggregationRule") or {}).get("clusterRoleSelectors") or ():
        match = LabelSelector.from_dict(selector)
        for other in others:
            if not match.matches(other["metadata"].get("labels") or {}):
                continue
            for rule in other.get("rules") or ():
                if rule not in rules:
                    rules.append(rule)
    return rules


class ClusterRoleAggregationController(KcmController):
    identity = identity.CLUSTERROLE_AGGREGATION
    workers = 5  # kube-controller-manager starts it with five workers

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.roles = self.manager.informer(CLUSTER_ROLES)
        self.controller.watches(CLUSTER_ROLES, self._aggregated_roles)

    def _aggregated_roles(self, _changed: Obj) -> list[Request]:
        return [Request.of(r) for r in self.roles.list_raw() if r.get("aggregationRule") is not None]

    async def sync(self, req: Request) -> None:
        role = await self.writer.get(CLUSTER_ROLES, req.name)
        if role is None or role.get("aggregationRule") is None:
            return
        rules = aggregated_rules(role, await self.writer.list(CLUSTER_ROLES))
        if rules == (role.get("rules") or []):
            return
        body = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": req.name}, "rules": rules}
        await self.writer.patch(CLUSTER_ROLES, req.name, None, body, patch_type=APPLY_PATCH, force=True,
                                based_on=role["metadata"].get("resourceVersion"))
