"""``job-controller`` (kubernetes ``pkg/controller/job/job_controller.go``, as of v1.32 with JobManagedBy and
JobPodReplacementPolicy on, so terminal conditions are delayed: ``FailureTarget`` / ``SuccessCriteriaMet`` first,
``Failed`` / ``Complete`` once no pod is left terminating and every finished pod is counted).

A sync: claim the Job's pods (adoption adds the ``batch.kubernetes.io/job-tracking`` finalizer); count the
finished pods that still carry the finalizer into ``status.uncountedTerminatedPods`` (``PUT jobs/<job>/status``),
remove their finalizers (a strategic merge patch with ``$deleteFromPrimitiveList/finalizers``), then move them
into ``succeeded`` / ``failed`` (another status update). Failures beyond ``backoffLimit`` (for OnFailure pods,
the containers' restarts), or ``activeDeadlineSeconds`` passing, delete the active pods and fail the Job
(BackoffLimitExceeded / DeadlineExceeded); ``completions`` successes complete it (CompletionsReached, "Reached
expected number of succeeded pods"); otherwise pods are created up to ``parallelism`` (not more than the
remaining completions), after the failure back-off (``DefaultJobPodFailureBackOff`` 10 s doubling, capped —
``Timing.job_backoff``). Indexed Jobs get pods named ``<job>-<index>-`` with the completion-index annotation and
label, and ``status.completedIndexes``. Suspended Jobs delete their active pods. Pods whose Job is gone lose
the finalizer (``syncOrphanPod``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fakekube import errors
from fakekube.clock import parse_rfc3339
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request
from fakekube.sim.informer import InformerHandler

from .. import identity
from ..objects import (
    TERMINAL_PHASES,
    controller_ref,
    is_pod_ready,
    is_terminating,
    matches,
    phase,
    pod_from_template,
    spec_int,
)
from ..selectors_util import job_selector
from .common import KcmController
from .replicaset import deletion_rank

Obj = dict[str, Any]
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
REMOVE_FINALIZER = {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}}


def is_finished(job: Obj) -> bool:
    """``IsJobFinished``: a Complete or Failed condition that is True."""
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or ())


def job_completions(job: Obj) -> int | None:
    """``spec.completions``; with neither it nor ``parallelism`` set the API server defaults both to 1
    (``SetDefaults_Job``), read here with that default should the store not have applied it."""
    spec = job.get("spec") or {}
    if spec.get("completions") is None and spec.get("parallelism") is None:
        return 1
    value = spec.get("completions")
    return None if value is None else int(value)


def _has_finalizer(pod: Obj) -> bool:
    return TRACKING_FINALIZER in (pod["metadata"].get("finalizers") or ())


def _index(pod: Obj) -> int | None:
    value = (pod["metadata"].get("annotations") or {}).get(COMPLETION_INDEX)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def format_indexes(indexes: set[int]) -> str:
    """``orderedIntervals.String``: ``0-2,5``."""
    out: list[str] = []
    ordered = sorted(indexes)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


def parse_indexes(text: str | None) -> set[int]:
    result: set[int] = set()
    for part in (text or "").split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        result.update(range(int(low), int(high or low) + 1))
    return result


class JobController(KcmController):
    identity = identity.JOB
    resource = "jobs.batch"

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.jobs = self.manager.informer(self.resource)
        self.controller.for_(self.resource).owns("pods")
        self.observe_pods("Job", "batch")
        self.pods = self.manager.informer("pods")
        self.pods.add_handler(InformerHandler(lambda pod, initial: self._orphan(pod),
                                              lambda old, new: self._orphan(new), None))
        self._orphans: set[str] = set()
        self.failure_times: dict[Request, list[str]] = {}

    # -- orphans -------------------------------------------------------------------------------------------

    def _orphan(self, pod: Obj) -> None:
        """A pod with the tracking finalizer whose Job is gone (or that has no Job): remove the finalizer."""
        if not _has_finalizer(pod):
            return
        ref = controller_ref(pod)
        if ref is not None and ref.get("kind") == "Job":
            job = self.jobs.get_raw(pod["metadata"].get("namespace"), ref.get("name", ""))
            if job is not None and job["metadata"]["uid"] == ref.get("uid"):
                return
        elif ref is not None:
            return
        uid = pod["metadata"]["uid"]
        if uid in self._orphans:
            return
        self._orphans.add(uid)
        self.spawn(self._release_orphan(pod), f"job-orphan-{pod['metadata']['name']}")

    async def _release_orphan(self, pod: Obj) -> None:
        meta = pod["metadata"]
        try:
            await self.writer.patch("pods", meta["name"], meta.get("namespace"), REMOVE_FINALIZER,
                                    based_on=meta.get("resourceVersion"))
        except errors.ApiError:
            pass
        finally:
            self._orphans.discard(meta["uid"])

    # -- syncJob ----------------------------------------------------------------------------------------------

    async def sync(self, req: Request) -> None:
        cached = await self.writer.get(self.resource, req.name, req.namespace)
        if cached is None:
            self.expectations.forget(req)
            self.failure_times.pop(req, None)
            return
        if is_finished(cached):
            self.failure_times.pop(req, None)
            return
        job = json_copy(cached)
        spec = job.setdefault("spec", {})
        status = job.setdefault("status", {})
        status.setdefault("uncountedTerminatedPods", {})
        satisfied = self.expectations.satisfied(req)
        candidates = await self.writer.list("pods", req.namespace)
        pods = await self._claim(job, candidates)
        active = [p for p in pods if phase(p) not in TERMINAL_PHASES and not is_terminating(p)]
        terminating = sum(1 for p in pods if is_terminating(p) and phase(p) not in TERMINAL_PHASES)
        uncounted = status["uncountedTerminatedPods"]
        known = set(uncounted.get("succeeded") or ()) | set(uncounted.get("failed") or ())
        new_succeeded = [p for p in pods if _has_finalizer(p) and phase(p) == "Succeeded"
                         and p["metadata"]["uid"] not in known]
        new_failed = [p for p in pods if _has_finalizer(p) and p["metadata"]["uid"] not in known
                      and (phase(p) == "Failed" or (is_terminating(p) and phase(p) != "Succeeded"))]
        if new_failed:
            self.failure_times.setdefault(req, []).extend([self.timestamp()] * len(new_failed))
        indexed = spec.get("completionMode") == "Indexed"
        completions = job_completions(job)
        succeeded_indexes = parse_indexes(status.get("completedIndexes")) if indexed else set()
        if indexed:
            for pod in new_succeeded:
                ix = _index(pod)
                if ix is not None and completions is not None and ix < completions:
                    succeeded_indexes.add(ix)
            succeeded = len(succeeded_indexes)
        else:
            succeeded = int(status.get("succeeded") or 0) + len(new_succeeded) + len(uncounted.get("succeeded") or ())
        failed = int(status.get("failed") or 0) + len(new_failed) + len(uncounted.get("failed") or ())
        if not status.get("startTime") and not spec.get("suspend"):
            status["startTime"] = self.timestamp()
        finished = self._finished_condition(job, pods, active, failed)
        if finished is not None:
            deleted = await self._delete_pods(job, req, active)
            active = [p for p in active if p not in deleted]
            terminating += len(deleted)
            if active or not satisfied:
                finished = None
        else:
            if satisfied and not job["metadata"].get("deletionTimestamp"):
                active = await self._manage(job, req, active, succeeded, succeeded_indexes, pods)
            if (completions is None and succeeded > 0 and not active) or \
                    (completions is not None and succeeded >= completions and not active):
                finished = self._condition("SuccessCriteriaMet", "CompletionsReached",
                                           "Reached expected number of succeeded pods")
            self._suspend_condition(job)
        status["active"] = len(active)
        status["ready"] = sum(1 for p in active if is_pod_ready(p))
        status["terminating"] = terminating
        if indexed:
            status["completedIndexes"] = format_indexes(succeeded_indexes)
            status["succeeded"] = len(succeeded_indexes)
        await self._track(job, cached, new_succeeded, new_failed, finished, terminating)

    async def _claim(self, job: Obj, candidates: list[Obj]) -> list[Obj]:
        selector = job_selector(job)
        owned = []
        for pod in candidates:
            ref = controller_ref(pod)
            if ref is not None and ref.get("uid") == job["metadata"]["uid"]:
                owned.append(pod)
            elif ref is None and matches(selector, pod) and not is_terminating(pod) and not is_terminating(job):
                meta = pod["metadata"]
                body = {"metadata": {"ownerReferences": [_job_ref(job)], "uid": meta["uid"],
                                     "finalizers": [TRACKING_FINALIZER]}}
                try:
                    owned.append(await self.writer.patch("pods", meta["name"], meta.get("namespace"), body,
                                                         based_on=meta.get("resourceVersion")))
                except errors.ApiError:
                    continue
        return owned

    def _condition(self, kind: str, reason: str, message: str) -> Obj:
        now = self.timestamp()
        return {"type": kind, "status": "True", "lastProbeTime": now, "lastTransitionTime": now,
                "reason": reason, "message": message}

    def _finished_condition(self, job: Obj, pods: list[Obj], active: list[Obj], failed: int) -> Obj | None:
        status = job.get("status") or {}
        for cond in status.get("conditions") or ():
            if cond.get("type") in ("SuccessCriteriaMet", "FailureTarget") and cond.get("status") == "True":
                return cond
        backoff_limit = spec_int(job, "backoffLimit", 6)
        if failed > backoff_limit or self._past_backoff_on_failure(job, active, backoff_limit):
            return self._condition("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
        deadline = (job.get("spec") or {}).get("activeDeadlineSeconds")
        if deadline is not None and status.get("startTime") and not (job.get("spec") or {}).get("suspend"):
            ends = parse_rfc3339(status["startTime"]) + timedelta(seconds=int(deadline))
            if ends <= self.now():
                return self._condition("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline")
            self.enqueue(Request(job["metadata"].get("namespace"), job["metadata"]["name"]),
                         after=(ends - self.now()).total_seconds())
        return None

    def _past_backoff_on_failure(self, job: Obj, active: list[Obj], limit: int) -> bool:
        template_spec = (((job.get("spec") or {}).get("template") or {}).get("spec") or {})
        if template_spec.get("restartPolicy") != "OnFailure":
            return False
        restarts = sum(c.get("restartCount", 0) for p in active
                       for c in ((p.get("status") or {}).get("initContainerStatuses") or [])
                       + ((p.get("status") or {}).get("containerStatuses") or []))
        return restarts > 0 if limit == 0 else restarts >= limit

    def _suspend_condition(self, job: Obj) -> None:
        status = job["status"]
        suspended = bool((job.get("spec") or {}).get("suspend"))
        current = next((c for c in status.get("conditions") or () if c.get("type") == "Suspended"), None)
        if suspended and (current is None or current.get("status") != "True"):
            cond = self._condition("Suspended", "JobSuspended", "Job suspended")
            self.recorder.event(job, "Normal", "Suspended", "Job suspended")
        elif not suspended and current is not None and current.get("status") == "True":
            cond = {**self._condition("Suspended", "JobResumed", "Job resumed"), "status": "False"}
            self.recorder.event(job, "Normal", "Resumed", "Job resumed")
            status["startTime"] = self.timestamp()
        else:
            return
        status["conditions"] = [c for c in status.get("conditions") or () if c.get("type") != "Suspended"] + [cond]

    # -- manageJob -------------------------------------------------------------------------------------------

    async def _manage(self, job: Obj, req: Request, active: list[Obj], succeeded: int, succeeded_indexes: set[int],
                      pods: list[Obj]) -> list[Obj]:
        spec = job["spec"]
        if spec.get("suspend"):
            deleted = await self._delete_pods(job, req, active)
            return [p for p in active if p not in deleted]
        parallelism = spec_int(job, "parallelism", 1)
        completions = job_completions(job)
        want = parallelism
        if completions is not None:
            want = min(parallelism, max(completions - succeeded, 0))
        elif succeeded > 0:
            want = len(active)  # a work queue: once one pod succeeded, leave what runs running, add none
        if len(active) > want:
            surplus = sorted(active, key=deletion_rank)[:len(active) - want]
            deleted = await self._delete_pods(job, req, surplus)
            return [p for p in active if p not in deleted]
        missing = want - len(active)
        if missing <= 0:
            return active
        remaining = self._backoff_remaining(req)
        if remaining > 0:
            self.enqueue(req, after=remaining)
            return active
        names: list[tuple[str, int | None]]
        if spec.get("completionMode") == "Indexed" and completions is not None:
            busy = {_index(p) for p in active} | succeeded_indexes
            names = [(f"{job['metadata']['name']}-{ix}-", ix) for ix in range(completions) if ix not in busy][:missing]
        else:
            names = [(f"{job['metadata']['name']}-", None)] * missing
        self.expectations.expect(req, adds=len(names))
        created = []
        for generate_name, ix in names:
            pod = self._pod(job, generate_name, ix)
            try:
                new = await self.writer.create("pods", pod, job["metadata"].get("namespace"))
            except errors.ApiError as exc:
                self.expectations.creation_observed(req)
                self.recorder.event(job, "Warning", "FailedCreate", f"Error creating: {exc.message}")
                continue
            created.append(new)
            self.recorder.event(job, "Normal", "SuccessfulCreate", f"Created pod: {new['metadata']['name']}")
        return active + created

    def _pod(self, job: Obj, generate_name: str, index: int | None) -> Obj:
        template = json_copy((job.get("spec") or {}).get("template") or {})
        labels = {}
        if (job.get("spec") or {}).get("selector") is None:
            # The API server's job strategy puts these in the template; read them from there when it has.
            uid, name = job["metadata"]["uid"], job["metadata"]["name"]
            labels = {CONTROLLER_UID: uid, JOB_NAME: name, "controller-uid": uid, "job-name": name}
        annotations = {}
        if index is not None:
            annotations[COMPLETION_INDEX] = str(index)
            labels[COMPLETION_INDEX] = str(index)
            template.setdefault("spec", {}).setdefault("hostname", f"{job['metadata']['name']}-{index}")
        pod = pod_from_template(template, job, generate_name=generate_name, labels=labels,
                                annotations=annotations, finalizers=[TRACKING_FINALIZER])
        pod["metadata"]["ownerReferences"] = [_job_ref(job)]
        return pod

    def _backoff_remaining(self, req: Request) -> float:
        """The failure back-off still to wait before replacing failed pods (``getRemainingTime``)."""
        failures = self.failure_times.get(req) or []
        if not failures:
            return 0.0
        delay = min(self.timing.job_backoff * 2 ** (len(failures) - 1), self.timing.job_backoff_cap)
        ready_at = parse_rfc3339(failures[-1]) + timedelta(seconds=delay)
        return max((ready_at - self.now()).total_seconds(), 0.0)

    async def _delete_pods(self, job: Obj, req: Request, pods: list[Obj]) -> list[Obj]:
        if not pods:
            return []
        self.expectations.expect(req, dels=len(pods))
        deleted, _ = await self.delete_pods(job, req, pods)
        return deleted

    # -- trackJobStatusAndRemoveFinalizers -----------------------------------------------------------------

    async def _track(self, job: Obj, cached: Obj, new_succeeded: list[Obj], new_failed: list[Obj],
                     finished: Obj | None, terminating: int) -> None:
        status = job["status"]
        uncounted = status["uncountedTerminatedPods"]
        finishing = new_succeeded + new_failed
        if finishing:
            if job["spec"].get("completionMode") != "Indexed":
                uncounted["succeeded"] = list(uncounted.get("succeeded") or []) + \
                    [p["metadata"]["uid"] for p in new_succeeded]
            uncounted["failed"] = list(uncounted.get("failed") or []) + [p["metadata"]["uid"] for p in new_failed]
            uncounted = {k: v for k, v in uncounted.items() if v}
            status["uncountedTerminatedPods"] = uncounted
        interim = finished is not None and finished.get("type") in ("SuccessCriteriaMet", "FailureTarget")
        if interim and not any(c.get("type") == finished["type"] for c in status.get("conditions") or ()):
            status.setdefault("conditions", []).append(finished)
        if finishing or status != (cached.get("status") or {}):
            job = await self.writer.update(self.resource, job, subresource="status")
            status = job["status"]
        removed = []
        for pod in finishing:
            meta = pod["metadata"]
            try:
                await self.writer.patch("pods", meta["name"], meta.get("namespace"), REMOVE_FINALIZER,
                                        based_on=meta.get("resourceVersion"))
                removed.append(meta["uid"])
            except errors.NotFound:
                removed.append(meta["uid"])
        changed = self._count_uncounted(status, set(removed))
        done = finished is not None and not (status.get("uncountedTerminatedPods") or {}) and terminating == 0
        if done:
            assert finished is not None
            final_type = "Complete" if finished["type"] == "SuccessCriteriaMet" else "Failed"
            if not any(c.get("type") == final_type for c in status.get("conditions") or ()):
                final = {**self._condition(final_type, finished.get("reason", ""), finished.get("message", ""))}
                status.setdefault("conditions", []).append(final)
                if final_type == "Complete":
                    status["completionTime"] = final["lastTransitionTime"]
                changed = True
        if changed:
            await self.writer.update(self.resource, job, subresource="status")
        if done:
            if finished["type"] == "SuccessCriteriaMet":
                self.recorder.event(job, "Normal", "Completed", "Job completed")
            else:
                self.recorder.event(job, "Warning", finished.get("reason", "Failed"), finished.get("message", ""))

    def _count_uncounted(self, status: Obj, removed: set[str]) -> bool:
        """``cleanUncountedPodsWithoutFinalizers``: pods whose finalizer is gone move into the counters."""
        uncounted = status.get("uncountedTerminatedPods") or {}
        changed = False
        for key, counter in (("succeeded", "succeeded"), ("failed", "failed")):
            uids = list(uncounted.get(key) or [])
            keep = [u for u in uids if u not in removed]
            if len(keep) != len(uids):
                status[counter] = int(status.get(counter) or 0) + len(uids) - len(keep)
                changed = True
            if keep:
                uncounted[key] = keep
            else:
                uncounted.pop(key, None)
        status["uncountedTerminatedPods"] = uncounted
        return changed


def _job_ref(job: Obj) -> Obj:
    meta = job["metadata"]
    return {"apiVersion": "batch/v1", "kind": "Job", "name": meta["name"], "uid": meta["uid"], "controller": True,
            "blockOwnerDeletion": True}
