"""Readiness bookkeeping for scenarios, fed by the store's commit hook (no API requests, no polling cost).

It records when each claim was created and first became Ready (simulated seconds), and which warm-pool
members are Ready right now: what ClusterLoader2's waits and the latency histograms look at.
"""

from __future__ import annotations

from typing import Any

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.objects import is_ready

_CLAIMS = "sandboxclaims"
_SANDBOXES = "sandboxes"


class ReadinessTracker:
    def __init__(self, sim: Any, namespace: str, pool_hash: str) -> None:
        self.sim = sim
        self.namespace = namespace
        self.pool_hash = pool_hash
        self.claim_created: dict[str, float] = {}
        self.claim_ready: dict[str, float] = {}
        self.pool_ready: dict[str, None] = {}  # insertion-ordered set of Ready pool members
        self.pool_members: dict[str, None] = {}
        self.sandboxes_created = 0
        sim.store.commit_hooks.append(self._on_commit)

    def _on_commit(self, entry: Any, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        resource = entry.resource
        if resource == _CLAIMS:
            if new is None:
                return
            name = new["metadata"]["name"]
            if old is None:
                self.claim_created[name] = self.sim.now
            if name not in self.claim_ready and is_ready(new):
                self.claim_ready[name] = self.sim.now
        elif resource == _SANDBOXES:
            obj = new if new is not None else old
            if obj is None:
                return
            name = obj["metadata"]["name"]
            if old is None and new is not None:
                self.sandboxes_created += 1
            member = (new is not None and not new["metadata"].get("deletionTimestamp")
                      and (new["metadata"].get("labels") or {}).get(keys.WARM_POOL_SANDBOX) == self.pool_hash)
            if member:
                self.pool_members[name] = None
                if is_ready(new):
                    self.pool_ready[name] = None
                else:
                    self.pool_ready.pop(name, None)
            else:
                self.pool_members.pop(name, None)
                self.pool_ready.pop(name, None)

    def latencies(self) -> list[float]:
        """Creation → first persisted Ready=True, in simulated seconds, in claim-creation order."""
        return [self.claim_ready[n] - t for n, t in self.claim_created.items() if n in self.claim_ready]
