"""The service-account controller as an actor in virtual time.

The store notes namespaces that need their ``default`` ServiceAccount (``store.service_accounts.pending``,
fakekube.serviceaccounts); under simulation the store does not create it inside the request, so this actor
does, at the next turn of the scheduler after the commit. Real clusters hide the controller's reaction time
from pods too: the ServiceAccount admission plugin retries a missing ``default`` account for a second or two
before it rejects the pod, so no delay is modelled here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakekube.serviceaccounts import ServiceAccountController

    from .simulation import Simulation


class ServiceAccountActor:
    def __init__(self, sim: Simulation, controller: ServiceAccountController) -> None:
        self.sim = sim
        self.controller = controller
        self._scheduled = False
        self.requests = 0
        sim.store.commit_hooks.append(self._on_commit)
        if controller.pending:
            self._schedule()

    def _on_commit(self, entry: Any, old: Any, new: Any) -> None:
        if not self._scheduled and self.controller.pending:
            self._schedule()

    def _schedule(self) -> None:
        self._scheduled = True
        self.sim.scheduler.call_later(0.0, self._run)

    def _run(self) -> None:
        self._scheduled = False
        self.requests += self.controller.run_once()
