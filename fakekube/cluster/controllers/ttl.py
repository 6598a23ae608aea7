"""``ttl-after-finished-controller`` (kubernetes ``pkg/controller/ttlafterfinished/
ttlafterfinished_controller.go``): a Job with ``spec.ttlSecondsAfterFinished`` is deleted that many seconds
after it finished (the ``lastTransitionTime`` of its Complete or Failed condition).

Until then the Job is requeued for its expiry; at expiry the controller reads the Job again from the API
server (its cache may be stale: the TTL may have been changed or the Job restarted), checks once more, and
``DELETE``s it with ``propagationPolicy: Foreground`` and a uid precondition, so its pods go first.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta
from typing import Any

from fakekube import errors
from fakekube.clock import parse_rfc3339
from fakekube.sim import predicates
from fakekube.sim.controller import Request, Result

from .. import identity
from .common import KcmController

Obj = dict[str, Any]
JOBS = "jobs.batch"


def finish_time(job: Obj) -> str | None:
    """``jobFinishTime``: when the Job's Complete or Failed condition became True."""
    for cond in (job.get("status") or {}).get("conditions") or ():
        if cond.get("type") in ("Complete", "Failed") and cond.get("status") == "True":
            return cond.get("lastTransitionTime")
    return None


def needs_cleanup(job: Obj) -> bool:
    return (job.get("spec") or {}).get("ttlSecondsAfterFinished") is not None and finish_time(job) is not None \
        and not job["metadata"].get("deletionTimestamp")


class TTLAfterFinishedController(KcmController):
    identity = identity.TTL_AFTER_FINISHED

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.controller.for_(JOBS, predicates=[predicates.Funcs(
            create=needs_cleanup, update=lambda old, new: needs_cleanup(new), delete=lambda obj: False)])

    def _remaining(self, job: Obj) -> float | None:
        """Seconds until the Job expires (≤ 0: expired); None when it needs no clean-up."""
        if not needs_cleanup(job):
            return None
        finished = parse_rfc3339(str(finish_time(job)))
        expires = finished + timedelta(seconds=int(job["spec"]["ttlSecondsAfterFinished"]))
        return (expires - self.now()).total_seconds()

    async def sync(self, req: Request) -> Result | None:
        job = await self.writer.get(JOBS, req.name, req.namespace)
        if job is None:
            return None
        remaining = self._remaining(job)
        if remaining is None:
            return None
        if remaining > 0:
            return Result(requeue_after=remaining)
        try:
            fresh = await self.writer.live_get(JOBS, req.name, req.namespace)
        except errors.NotFound:
            return None
        remaining = self._remaining(fresh)
        if remaining is None:
            return None
        if remaining > 0:
            return Result(requeue_after=remaining)
        with contextlib.suppress(errors.NotFound):
            await self.writer.delete(JOBS, req.name, req.namespace, propagation_policy="Foreground",
                                     preconditions={"uid": fresh["metadata"]["uid"]})
        return None
