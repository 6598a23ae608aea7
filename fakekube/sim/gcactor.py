"""The garbage collector as an actor in virtual time (kube-controller-manager's generic-garbage-collector).

The store notes what needs collecting on every commit (``store.gc.pending``); this actor runs a collection
pass some time later instead of synchronously, so cascades take virtual time and interleave with
controllers, as they do in a cluster (the real GC learns about changes through its own informers).

- event-driven (default): a pass ``delay`` after the first commit that left work pending;
- ``interval``: passes on a fixed period, only while there is work pending (so an idle run ends).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .lag import Lag

if TYPE_CHECKING:
    from .simulation import Simulation


class GarbageCollectorActor:
    def __init__(self, sim: Simulation, *, delay: Lag | float | None = None, interval: float | None = None) -> None:
        self.sim = sim
        self.delay = Lag.coerce(delay if delay is not None else 0.005)
        self.interval = interval
        self._rng = sim.rng("garbage-collector")
        self._scheduled = False
        self.passes = 0
        self.requests = 0
        self.enabled = True
        sim.store.commit_hooks.append(self._on_commit)
        if sim.store.gc.pending:
            self._schedule()

    def _on_commit(self, entry: Any, old: Any, new: Any) -> None:
        if self.enabled and not self._scheduled and self.sim.store.gc.pending:
            self._schedule()

    def _schedule(self) -> None:
        self._scheduled = True
        if self.interval:
            now = self.sim.now
            ticks = int(now / self.interval) + 1
            self.sim.scheduler.call_at(ticks * self.interval, self._run)
        else:
            self.sim.scheduler.call_later(self.delay.sample(self._rng), self._run)

    def _run(self) -> None:
        self._scheduled = False
        if not self.enabled:
            return
        self.passes += 1
        self.requests += self.sim.store.gc.run_once()
        if self.sim.store.gc.pending and not self._scheduled:
            self._schedule()

    def stop(self) -> None:
        self.enabled = False
