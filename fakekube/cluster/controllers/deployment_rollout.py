"""The Deployment controller's two rollout strategies (kubernetes ``pkg/controller/deployment/rolling.go`` and
``recreate.go``), a mixin of ``DeploymentController``.

``RollingUpdate`` first grows the new ReplicaSet toward ``replicas + maxSurge``, then scales old ones down
while ``replicas - maxUnavailable`` pods stay available, unhealthy old pods first. ``Recreate`` scales
every old ReplicaSet to zero, waits until their pods are gone, then scales the new one up. Both end in the
rollout status sync and, once the Deployment is complete, the history clean-up. The steps they share with
a sync (``_new_and_old``, ``_scale``, ``_sync_rollout_status``, ``_cleanup``) are the controller's own.
"""

from __future__ import annotations

from typing import Any

from ..objects import TERMINAL_PHASES, controller_ref
from . import deployment_util as du

Obj = dict[str, Any]


class RolloutStrategies:
    """``rolloutRolling`` and ``rolloutRecreate`` with their helpers; the host class supplies the rest."""

    manager: Any

    # -- rolling update ------------------------------------------------------------------------------------------

    async def _rollout_rolling(self, d: Obj, rss: list[Obj]) -> None:
        d, new_rs, old_rss = await self._new_and_old(d, rss, create=True)
        assert new_rs is not None
        new_rs = self._current(rss, new_rs)
        if await self._reconcile_new(d, rss, new_rs):
            await self._sync_rollout_status(d, rss)
            return
        new_rs = self._current(rss, new_rs)
        old_rss = [self._current(rss, rs) for rs in old_rss]
        if await self._reconcile_old(d, rss, [rs for rs in old_rss if du.rs_replicas(rs) > 0], new_rs):
            await self._sync_rollout_status(d, rss)
            return
        status_now = du.calculate_status(d, rss, self._current(rss, new_rs), self.timestamp())
        if du.deployment_complete(d, status_now):
            await self._cleanup(d, [self._current(rss, rs) for rs in old_rss])
        await self._sync_rollout_status(d, rss)

    def _current(self, rss: list[Obj], rs: Obj) -> Obj:
        name = rs["metadata"]["name"]
        return next((r for r in rss if r["metadata"]["name"] == name), rs)

    async def _reconcile_new(self, d: Obj, rss: list[Obj], new_rs: Obj) -> bool:
        want = du.replicas(d)
        have = du.rs_replicas(new_rs)
        if have == want:
            return False
        if have > want:
            scaled, _ = await self._scale(d, new_rs, want, rss)
            return scaled
        scaled, _ = await self._scale(d, new_rs, du.new_rs_replicas(d, rss, new_rs), rss)
        return scaled

    async def _reconcile_old(self, d: Obj, rss: list[Obj], old_rss: list[Obj], new_rs: Obj) -> bool:
        if du.total_replicas(old_rss) == 0:
            return False
        all_pods = du.total_replicas(rss)
        min_available = du.replicas(d) - du.max_unavailable(d)
        new_unavailable = du.rs_replicas(new_rs) - du.rs_status(new_rs, "availableReplicas")
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        cleaned = await self._cleanup_unhealthy(d, rss, old_rss, max_scaled_down)
        old_rss = [self._current(rss, rs) for rs in old_rss]
        scaled = await self._scale_down_old(d, rss, old_rss)
        return cleaned + scaled > 0

    async def _cleanup_unhealthy(self, d: Obj, rss: list[Obj], old_rss: list[Obj], max_cleanup: int) -> int:
        total = 0
        for rs in du.by_creation(old_rss):
            if total >= max_cleanup:
                break
            size, available = du.rs_replicas(rs), du.rs_status(rs, "availableReplicas")
            if size == 0 or size == available:
                continue
            count = min(max_cleanup - total, size - available)
            await self._scale(d, rs, size - count, rss)
            total += count
        return total

    async def _scale_down_old(self, d: Obj, rss: list[Obj], old_rss: list[Obj]) -> int:
        min_available = du.replicas(d) - du.max_unavailable(d)
        available = du.sum_status(rss, "availableReplicas")
        if available <= min_available:
            return 0
        target = available - min_available
        total = 0
        for rs in du.by_creation(old_rss):
            if total >= target:
                break
            size = du.rs_replicas(rs)
            if size == 0:
                continue
            count = min(size, target - total)
            await self._scale(d, rs, size - count, rss)
            total += count
        return total

    # -- recreate ------------------------------------------------------------------------------------------------

    async def _rollout_recreate(self, d: Obj, rss: list[Obj]) -> None:
        d, new_rs, old_rss = await self._new_and_old(d, rss, create=False)
        scaled = False
        for rs in [r for r in old_rss if du.rs_replicas(r) > 0]:
            changed, _ = await self._scale(d, rs, 0, rss)
            scaled = scaled or changed
        if scaled or self._old_pods_running([self._current(rss, rs) for rs in old_rss]):
            await self._sync_rollout_status(d, rss)
            return
        if new_rs is None:
            d, new_rs, old_rss = await self._new_and_old(d, rss, create=True)
        assert new_rs is not None
        await self._scale(d, self._current(rss, new_rs), du.replicas(d), rss)
        status_now = du.calculate_status(d, rss, self._current(rss, new_rs), self.timestamp())
        if du.deployment_complete(d, status_now):
            await self._cleanup(d, [self._current(rss, rs) for rs in old_rss])
        await self._sync_rollout_status(d, rss)

    def _old_pods_running(self, old_rss: list[Obj]) -> bool:
        if du.sum_status(old_rss, "replicas") > 0:
            return True
        uids = {rs["metadata"]["uid"] for rs in old_rss}
        for pod in self.manager.informer("pods").list_raw(old_rss[0]["metadata"].get("namespace") if old_rss else None):
            ref = controller_ref(pod)
            if ref is not None and ref.get("uid") in uids and \
                    (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES:
                return True
        return False
