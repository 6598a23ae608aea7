"""``cronjob-controller`` (kubernetes ``pkg/controller/cronjob/cronjob_controllerv2.go`` and ``utils.go``).

A sync of one CronJob, on the store's clock (virtual in a simulation, the store's clock behind a server):

1. ``cleanupFinishedJobs``: beyond ``successfulJobsHistoryLimit`` (default 3) Complete and
   ``failedJobsHistoryLimit`` (default 1) Failed Jobs, the oldest by start time are deleted (background
   propagation);
2. ``syncCronJob``: finished Jobs leave ``status.active`` (``SawCompletedJob``) and a Complete one moves
   ``lastSuccessfulTime`` to its ``completionTime``; an active Job that no longer exists is dropped
   (``MissingJob``); a suspended, deleted or unparseable CronJob (robfig/cron semantics, ``fakekube.cluster.
   cron``; ``spec.timeZone`` as a ``TZ=`` prefix) starts nothing; otherwise the most recent unmet schedule
   time since ``lastScheduleTime`` (or creation) is found — too late for ``startingDeadlineSeconds`` is
   ``MissSchedule``, an already started one is skipped, ``Forbid`` skips while a Job is active
   (``JobAlreadyActive``), ``Replace`` deletes the active ones first — and a Job ``<cronjob>-<minutes since
   the epoch>`` is created from ``jobTemplate`` with the ``batch.kubernetes.io/cronjob-scheduled-timestamp``
   annotation (RFC 3339 in the CronJob's zone) and the CronJob as controller; it joins ``status.active`` and
   ``lastScheduleTime`` becomes its scheduled time;
3. one ``PUT cronjobs/<name>/status`` when anything changed, then a requeue 100 ms after the next schedule
   time (``nextScheduleTimeDuration``).

Events: SuccessfulCreate, SawCompletedJob, SuccessfulDelete, MissingJob, UnexpectedJob, MissSchedule,
JobAlreadyActive, UnparseableSchedule, InvalidSchedule, UnknownTimeZone, UnsupportedSchedule,
TooManyMissedTimes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fakekube import errors
from fakekube.clock import parse_rfc3339, rfc3339
from fakekube.cron import CronError, Schedule, parse_standard
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request, Result

from .. import identity
from ..objects import controller_ref
from .common import KcmController

Obj = dict[str, Any]
SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
NEXT_SCHEDULE_DELTA = 0.1  # nextScheduleDelta: requeue a little after the schedule, for clock skew
MANY_MISSED = 100


def finished_condition(job: Obj) -> str | None:
    """``getFinishedStatus``: ``Complete`` or ``Failed`` when that condition is True."""
    for cond in (job.get("status") or {}).get("conditions") or ():
        if cond.get("type") in ("Complete", "Failed") and cond.get("status") == "True":
            return str(cond["type"])
    return None


def start_order(job: Obj) -> tuple[bool, str, str]:
    """``byJobStartTime``: started Jobs first, oldest first, then by name."""
    start = (job.get("status") or {}).get("startTime")
    return (start is None, start or "", job["metadata"]["name"])


def job_name(cronjob: Obj, scheduled: datetime) -> str:
    """``getJobName``: ``<cronjob>-<scheduled time in minutes since the epoch>``."""
    return f"{cronjob['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def _zone(name: str | None) -> Any:
    if not name:
        return UTC
    try:
        return UTC if name == "UTC" else ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def most_recent(cronjob: Obj, now: datetime, schedule: Schedule, with_deadline: bool
                ) -> tuple[datetime, datetime | None, int]:
    """``mostRecentScheduleTime``: (earliest time considered, the most recent unmet schedule time or None,
    missed-schedule estimate); raises ``CronError`` for a schedule that never repeats sensibly."""
    status = cronjob.get("status") or {}
    earliest = parse_rfc3339(status.get("lastScheduleTime") or cronjob["metadata"]["creationTimestamp"])
    deadline = (cronjob.get("spec") or {}).get("startingDeadlineSeconds")
    if with_deadline and deadline is not None:
        earliest = max(earliest, now - timedelta(seconds=int(deadline)))
    t1 = schedule.next(earliest)
    t2 = schedule.next(t1) if t1 is not None else None
    if t1 is None or now < t1:
        return earliest, None, 0
    if t2 is None or now < t2:
        return earliest, t1, 0
    between = round((t2 - t1).total_seconds())
    if between < 1:
        raise CronError("time difference between two schedules is less than 1 second")
    missed = int((now - t1).total_seconds()) // between + 1
    latest = None
    t: datetime | None = schedule.next(t1 + timedelta(seconds=(missed - 2) * between))
    while t is not None and t <= now:
        latest = t
        t = schedule.next(t)
    return earliest, latest, missed


class CronJobController(KcmController):
    identity = identity.CRONJOB
    resource = "cronjobs.batch"

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.controller.for_(self.resource).owns("jobs.batch")

    async def sync(self, req: Request) -> Result | None:
        cached = await self.writer.get(self.resource, req.name, req.namespace)
        if cached is None:
            return None
        jobs = [j for j in await self.writer.list("jobs.batch", req.namespace)
                if (controller_ref(j) or {}).get("name") == req.name]
        cronjob = json_copy(cached)
        changed = await self._cleanup(cronjob, jobs)
        requeue, synced = await self._sync(cronjob, jobs)
        if changed or synced:
            await self.writer.update(self.resource, cronjob, subresource="status")
        if requeue is not None:
            return Result(requeue_after=max(requeue, 0.001))
        return None

    # -- cleanupFinishedJobs -------------------------------------------------------------------------------

    async def _cleanup(self, cronjob: Obj, jobs: list[Obj]) -> bool:
        spec = cronjob.get("spec") or {}
        changed = False
        for kind, field, default in (("Complete", "successfulJobsHistoryLimit", 3),
                                     ("Failed", "failedJobsHistoryLimit", 1)):
            limit = spec.get(field, default)
            finished = sorted((j for j in jobs if finished_condition(j) == kind), key=start_order)
            for job in finished[:max(len(finished) - int(limit), 0)]:
                changed |= await self._delete_job(cronjob, job)
        return changed

    async def _delete_job(self, cronjob: Obj, job: Obj) -> bool:
        meta = job["metadata"]
        try:
            await self.writer.delete("jobs.batch", meta["name"], meta.get("namespace"),
                                     propagation_policy="Background")
        except errors.ApiError as exc:
            self.recorder.event(cronjob, "Warning", "FailedDelete", f"Deleted job: {exc.message}")
            return False
        self._drop_active(cronjob, meta["uid"])
        self.recorder.event(cronjob, "Normal", "SuccessfulDelete", f"Deleted job {meta['name']}")
        return True

    # -- syncCronJob -----------------------------------------------------------------------------------------

    @staticmethod
    def _active(cronjob: Obj) -> list[Obj]:
        return list((cronjob.get("status") or {}).get("active") or [])

    def _drop_active(self, cronjob: Obj, uid: str) -> None:
        status = cronjob.setdefault("status", {})
        active = [ref for ref in status.get("active") or () if ref.get("uid") != uid]
        if active:
            status["active"] = active
        else:
            status.pop("active", None)  # omitempty

    async def _sync(self, cronjob: Obj, jobs: list[Obj]) -> tuple[float | None, bool]:
        now = self.now()
        changed = False
        status = cronjob.setdefault("status", {})
        children = set()
        for job in jobs:
            uid = job["metadata"]["uid"]
            children.add(uid)
            listed = any(ref.get("uid") == uid for ref in self._active(cronjob))
            finished = finished_condition(job)
            if not listed and finished is None:
                meta = cronjob["metadata"]
                fresh = await self.writer.live_get(self.resource, meta["name"], meta.get("namespace"))
                if any(ref.get("uid") == uid for ref in (fresh.get("status") or {}).get("active") or ()):
                    cronjob.clear()
                    cronjob.update(json_copy(fresh))
                    status = cronjob.setdefault("status", {})
                    continue
                self.recorder.event(cronjob, "Warning", "UnexpectedJob",
                                    f"Saw a job that the controller did not create or forgot: {job['metadata']['name']}")
            elif finished is not None:
                if listed:
                    self._drop_active(cronjob, uid)
                    self.recorder.event(cronjob, "Normal", "SawCompletedJob",
                                        f"Saw completed job: {job['metadata']['name']}, condition: {finished}")
                    changed = True
                completed = (job.get("status") or {}).get("completionTime")
                if finished == "Complete" and completed and (
                        not status.get("lastSuccessfulTime")
                        or parse_rfc3339(completed) > parse_rfc3339(status["lastSuccessfulTime"])):
                    status["lastSuccessfulTime"] = completed
                    changed = True
        for ref in self._active(cronjob):
            if ref.get("uid") in children:
                continue
            try:
                await self.writer.live_get("jobs.batch", ref.get("name", ""), ref.get("namespace"))
            except errors.NotFound:
                self.recorder.event(cronjob, "Normal", "MissingJob", f"Active job went missing: {ref.get('name')}")
                self._drop_active(cronjob, ref.get("uid", ""))
                changed = True
        if cronjob["metadata"].get("deletionTimestamp"):
            return None, changed
        spec = cronjob.get("spec") or {}
        zone_name = spec.get("timeZone")
        if zone_name is not None and _zone(zone_name) is None:
            self.recorder.event(cronjob, "Warning", "UnknownTimeZone",
                                f'invalid timeZone: "{zone_name}": unknown time zone {zone_name}')
            return None, changed
        if spec.get("suspend"):
            return None, changed
        try:
            schedule = parse_standard(self._format_schedule(cronjob))
        except CronError as exc:
            self.recorder.event(cronjob, "Warning", "UnparseableSchedule",
                                f'unparseable schedule: "{spec.get("schedule")}" : {exc}')
            return None, changed
        try:
            _, scheduled, missed = most_recent(cronjob, now, schedule, with_deadline=True)
        except CronError as exc:
            self.recorder.event(cronjob, "Warning", "InvalidSchedule",
                                f"invalid schedule: {spec.get('schedule')} : {exc}")
            return None, changed
        if scheduled is not None and missed > MANY_MISSED:
            self.recorder.event(cronjob, "Warning", "TooManyMissedTimes",
                                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or "
                                "check clock skew")
        if scheduled is None:
            return self._next_delay(cronjob, now, schedule), changed
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None and scheduled + timedelta(seconds=int(deadline)) < now:
            self.recorder.event(cronjob, "Warning", "MissSchedule", "Missed scheduled time to start a job: "
                                + scheduled.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000"))
            return self._next_delay(cronjob, now, schedule), changed
        name = job_name(cronjob, scheduled)
        last = status.get("lastScheduleTime")
        if any(ref.get("name") == name for ref in self._active(cronjob)) or \
                (last and parse_rfc3339(last) == scheduled):
            return self._next_delay(cronjob, now, schedule), changed
        policy = spec.get("concurrencyPolicy") or "Allow"
        if policy == "Forbid" and self._active(cronjob):
            self.recorder.event(cronjob, "Normal", "JobAlreadyActive",
                                "Not starting job because prior execution is running and concurrency policy is Forbid")
            return self._next_delay(cronjob, now, schedule), changed
        if policy == "Replace":
            for ref in self._active(cronjob):
                try:
                    job = await self.writer.live_get("jobs.batch", ref.get("name", ""), ref.get("namespace"))
                except errors.ApiError as exc:
                    self.recorder.event(cronjob, "Warning", "FailedGet", f"Get job: {exc.message}")
                    raise
                if not await self._delete_job(cronjob, job):
                    raise errors.ApiError(500, "InternalError", f"could not replace job {ref.get('namespace')}/"
                                                                f"{ref.get('name')}", {})
                changed = True
        made = await self._create_job(cronjob, scheduled, zone_name)
        if made is None:
            return None, changed
        meta = made["metadata"]
        status = cronjob.setdefault("status", {})
        status["active"] = [*self._active(cronjob), {
            "kind": "Job", "namespace": meta.get("namespace"), "name": meta["name"], "uid": meta["uid"],
            "apiVersion": "batch/v1", "resourceVersion": meta.get("resourceVersion")}]
        status["lastScheduleTime"] = rfc3339(scheduled)
        return self._next_delay(cronjob, now, schedule), True

    def _format_schedule(self, cronjob: Obj) -> str:
        spec = cronjob.get("spec") or {}
        schedule = str(spec.get("schedule") or "")
        if "TZ" in schedule:
            self.recorder.event(cronjob, "Warning", "UnsupportedSchedule",
                                f'CRON_TZ or TZ used in schedule "{schedule}" is not officially supported, see '
                                "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
            return schedule
        if spec.get("timeZone") and _zone(spec["timeZone"]) is not None:
            return f"TZ={spec['timeZone']} {schedule}"
        return schedule

    def _next_delay(self, cronjob: Obj, now: datetime, schedule: Schedule) -> float | None:
        """``nextScheduleTimeDuration``: seconds until 100 ms after the next schedule time."""
        try:
            earliest, latest, missed = most_recent(cronjob, now, schedule, with_deadline=False)
            base = latest or (earliest if missed == 0 else now)
        except CronError:
            base = now
        following = schedule.next(base)
        if following is None:
            return None
        return (following - now).total_seconds() + NEXT_SCHEDULE_DELTA

    async def _create_job(self, cronjob: Obj, scheduled: datetime, zone_name: str | None) -> Obj | None:
        """``getJobFromTemplate2`` and its ``POST jobs``; None when nothing more is to be done."""
        template = (cronjob.get("spec") or {}).get("jobTemplate") or {}
        tmeta = template.get("metadata") or {}
        meta = cronjob["metadata"]
        annotations = {**(tmeta.get("annotations") or {}),
                       SCHEDULED_TIMESTAMP: _rfc3339_in(scheduled, _zone(zone_name) or UTC)}
        job_meta: Obj = {"name": job_name(cronjob, scheduled), "namespace": meta.get("namespace")}
        if tmeta.get("labels"):
            job_meta["labels"] = dict(tmeta["labels"])
        job_meta["annotations"] = annotations
        job_meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "CronJob", "name": meta["name"],
                                        "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}]
        body = {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta,
                "spec": json_copy(template.get("spec") or {})}
        try:
            made = await self.writer.create("jobs.batch", body, meta.get("namespace"))
        except errors.AlreadyExists:
            existing = await self.writer.live_get("jobs.batch", job_meta["name"], meta.get("namespace"))
            if (controller_ref(existing) or {}).get("uid") != meta["uid"] or any(
                    ref.get("uid") == existing["metadata"]["uid"] for ref in self._active(cronjob)):
                return None
            return existing
        except errors.ApiError as exc:
            if not isinstance(exc, errors.Forbidden | errors.NotFound):
                self.recorder.event(cronjob, "Warning", "FailedCreate", f"Error creating job: {exc.message}")
            raise
        self.recorder.event(cronjob, "Normal", "SuccessfulCreate", f"Created job {made['metadata']['name']}")
        return made


def _rfc3339_in(moment: datetime, zone: Any) -> str:
    """Go's ``Format(time.RFC3339)`` in ``zone``: ``Z`` for a zero offset, else the numeric offset."""
    local = moment.astimezone(zone)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    offset = local.utcoffset() or timedelta(0)
    if offset == timedelta(0):
        return text + "Z"
    total = int(offset.total_seconds())
    sign = "+" if total >= 0 else "-"
    total = abs(total)
    return f"{text}{sign}{total // 3600:02d}:{total % 3600 // 60:02d}"
