"""batch/v1 kinds (kubernetes ``pkg/registry/batch/{job,cronjob}/strategy.go``, ``pkg/apis/batch/v1/
defaults.go``, ``pkg/apis/batch/validation/validation.go``; sources and commits in docs/semantics.md).

A Job unless ``manualSelector`` gets the generated selector: its template is labelled ``controller-uid``,
``batch.kubernetes.io/controller-uid`` (the Job's uid), ``job-name`` and ``batch.kubernetes.io/job-name``, and
selects on ``batch.kubernetes.io/controller-uid``. Its template may run only ``OnFailure`` or ``Never`` and is
immutable (except scheduling directives of a suspended Job that never started), as are the selector,
``completions`` and ``completionMode``. Jobs and CronJobs start with ``status: {}`` and track generation on
spec changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fakekube.cron import CronError, known_zone, parse_standard
from fakekube.errors import FieldError, GoLiteral, go_json, invalid, not_supported, required
from fakekube.kinds.checks import (
    dict_at,
    go_label_selector,
    immutable,
    mapping,
    non_negative,
    seq,
)
from fakekube.kinds.internalvalues import internal_equal, internal_json
from fakekube.kinds.jobvalidation import (
    CONTROLLER_UID,
    JOB_NAME,
    LEGACY_CONTROLLER_UID,
    LEGACY_JOB_NAME,
    name_allows_completions,
    validate_generated_selector,
    validate_job_spec,
)
from fakekube.kinds.podspec import default_pod_template
from fakekube.strategies import BuiltinStrategy, Strategy

CRONJOB_NAME_MAX = 52


def default_job_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_Job`` on a spec (the object-level label copy is done by the caller)."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = 2**31 - 1 if spec.get("backoffLimitPerIndex") is not None else 6
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"
    spec.setdefault("manualSelector", False)
    _default_pod_failure_policy(spec)


def _default_pod_failure_policy(spec: dict[str, Any]) -> None:
    for rule in seq(mapping(spec.get("podFailurePolicy")).get("rules")):
        for pattern in seq(mapping(rule).get("onPodConditions")):
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"


def _copy_template_labels(job: dict[str, Any]) -> None:
    """SetDefaults_Job: a Job without labels takes its pod template's."""
    labels = mapping(mapping(mapping(job.get("spec")).get("template")).get("metadata")).get("labels")
    meta = mapping(job.get("metadata"))
    if labels and not meta.get("labels"):
        meta["labels"] = dict(labels)


def _generate_selector(job: dict[str, Any]) -> None:
    """``generateSelector``: the template's labels and the selector that make the Job's pods its own."""
    meta = job["metadata"]
    spec = dict_at(job, "spec")
    labels = dict_at(dict_at(dict_at(spec, "template"), "metadata"), "labels")
    for key in (LEGACY_JOB_NAME, JOB_NAME):
        labels.setdefault(key, meta.get("name") or "")
    for key in (LEGACY_CONTROLLER_UID, CONTROLLER_UID):
        labels.setdefault(key, meta["uid"])
    selector = dict_at(spec, "selector")
    dict_at(selector, "matchLabels").setdefault(CONTROLLER_UID, meta["uid"])


class JobStrategy(BuiltinStrategy):
    orphans_dependents_by_default = True  # DefaultGarbageCollectionPolicy, for back compatibility
    initial_status = {}
    generation_fields = ("spec",)

    def default(self, obj: dict[str, Any]) -> None:
        spec = dict_at(obj, "spec")
        default_job_spec(spec)
        _copy_template_labels(obj)
        default_pod_template(spec.get("template"))

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if not mapping(obj.get("spec")).get("manualSelector"):
            # SetDefaults_Job gives a Job without labels its template's label map itself, not a copy (a Go map
            # is a reference), so the labels generateSelector adds to the template show in the Job's labels
            # too (observed on kube-apiserver v1.37.2). Labels equal to the template's stand for that sharing. A
            # generated name is drawn on a deep copy of the object (store.go createWithGenerateNameRetry), which
            # shares nothing: such a Job keeps its own labels.
            meta = obj["metadata"]
            template_meta = mapping(mapping(mapping(obj.get("spec")).get("template")).get("metadata"))
            shared = (bool(meta.get("labels")) and meta.get("labels") == template_meta.get("labels")
                      and not meta.get("generateName"))
            _generate_selector(obj)
            if shared:
                meta["labels"] = dict(obj["spec"]["template"]["metadata"]["labels"])
            # The storage decodes what it wrote with defaulting, so every read of the Job (the create's answer
            # too) has SetDefaults_Job's copy of the template labels, generated ones included, when it has no
            # labels of its own (apiserver pkg/storage/etcd3/store.go Create; pkg/apis/batch/v1/defaults.go).
            _copy_template_labels(obj)
        super().prepare_for_create(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # ValidateJobCreate: the generated selector, the spec, then whether the name leaves room for the indexes
        return (validate_generated_selector(obj) + validate_job_spec(mapping(obj.get("spec")), "spec")
                + name_allows_completions(obj))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
        errs = validate_job_spec(spec, "spec")
        # validateCompletions: an Indexed Job's completions may change, in tandem with its parallelism
        completions = spec.get("completions")
        if spec.get("completionMode") != "Indexed":
            errs += immutable(completions, old_spec.get("completions"), "spec.completions")
        elif completions not in (None, old_spec.get("completions")) and completions != spec.get("parallelism"):
            errs.append(invalid("spec.completions", completions, "can only be modified in tandem with spec.parallelism"))
        errs += immutable(spec.get("selector"), old_spec.get("selector"), "spec.selector",
                          go_label_selector(spec.get("selector")))
        errs += _template_update(spec, old_spec, old)
        for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
            errs += immutable(spec.get(key), old_spec.get(key), f"spec.{key}")
        return errs + name_allows_completions(new)


def _template_update(spec: dict[str, Any], old_spec: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``validatePodTemplateUpdate``: the template is immutable, but a suspended Job that has no active pods
    and never started (or is Suspended again) may change where its pods go, their labels and annotations
    (MutableSchedulingDirectivesForSuspendedJobs) and, comparing only the pod spec, its containers' resources
    (MutablePodResourcesForSuspendedJobs): both beta and on in v1.37 (pkg/registry/batch/job/strategy.go
    ``shouldAllowMutablePodTemplate``)."""
    template, old_template = mapping(spec.get("template")), mapping(old_spec.get("template"))
    status = mapping(old.get("status"))
    suspended_condition = any(mapping(c).get("type") == "Suspended" and mapping(c).get("status") == "True"
                              for c in seq(status.get("conditions")))
    mutable = (old_spec.get("suspend") is True and (not status.get("startTime") or suspended_condition)
               and not status.get("active"))
    if mutable:
        old_template = _with_scheduling_of(old_template, template)
    if old_spec.get("suspend") is not True or not mutable:
        if internal_equal("PodTemplateSpec", template, old_template):
            return []
        return [invalid("spec.template", internal_json("PodTemplateSpec", spec.get("template")),
                        "field is immutable")]
    pod, old_pod = mapping(template.get("spec")), dict(mapping(old_template.get("spec")))
    for key in ("containers", "initContainers"):
        containers, old_containers = seq(pod.get(key)), seq(old_pod.get(key))
        if key in old_pod and len(containers) == len(old_containers):
            old_pod[key] = [{**mapping(was), "resources": mapping(now).get("resources")}
                            if mapping(was).get("name") == mapping(now).get("name") else was
                            for now, was in zip(containers, old_containers, strict=True)]
    if internal_equal("PodSpec", pod, old_pod):
        return []
    return [invalid("spec.template.spec", internal_json("PodSpec", template.get("spec")), "field is immutable")]


def _with_scheduling_of(old_template: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    """The old template with the new one's node affinity, node selector, tolerations, scheduling gates, labels
    and annotations (an affinity left holding nothing but the node affinity may go)."""
    pod, old_pod = mapping(template.get("spec")), dict(mapping(old_template.get("spec")))
    affinity, old_affinity = pod.get("affinity"), old_pod.get("affinity")
    if affinity is None and old_affinity is not None:
        rest = {k: v for k, v in mapping(old_affinity).items() if k != "nodeAffinity" and v is not None}
        if rest:
            old_pod["affinity"] = rest
        else:
            old_pod.pop("affinity")
    elif affinity is not None:
        node = mapping(affinity).get("nodeAffinity")
        base = {} if old_affinity is None else {k: v for k, v in mapping(old_affinity).items() if k != "nodeAffinity"}
        old_pod["affinity"] = {**base, **({"nodeAffinity": node} if node is not None else {})}
    for key in ("nodeSelector", "tolerations", "schedulingGates"):
        old_pod.pop(key, None)
        if pod.get(key) is not None:
            old_pod[key] = pod[key]
    meta = dict(mapping(old_template.get("metadata")))
    for key in ("labels", "annotations"):
        meta.pop(key, None)
        if mapping(template.get("metadata")).get(key) is not None:
            meta[key] = template["metadata"][key]
    return {**old_template, "metadata": meta, "spec": old_pod}


# ----------------------------------------------------------------------------------- CronJob

class CronJobStrategy(BuiltinStrategy):
    initial_status = {}
    generation_fields = ("spec",)

    def default(self, obj: dict[str, Any]) -> None:
        spec = dict_at(obj, "spec")
        if not spec.get("concurrencyPolicy"):
            spec["concurrencyPolicy"] = "Allow"
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)
        job_spec = mapping(spec.get("jobTemplate")).get("spec")
        if isinstance(job_spec, dict):
            _default_pod_failure_policy(job_spec)
            default_pod_template(job_spec.get("template"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        name = mapping(obj.get("metadata")).get("name") or ""
        errs, declarative = self._validate_spec(obj)
        if len(name) > CRONJOB_NAME_MAX:
            errs.append(invalid("metadata.name", name, f"must be no more than {CRONJOB_NAME_MAX} characters"))
        return errs + declarative

    def _validate_spec(self, obj: dict[str, Any],
                       old: dict[str, Any] | None = None) -> tuple[list[FieldError], list[FieldError]]:
        """validateCronJobSpec's errors, and the declarative ones (v1.37 beta, enforced): those replace the
        handwritten errors they cover and come after all of them (apiserver ``rest.ValidateDeclaratively...``)."""
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        declarative: list[FieldError] = []
        schedule = spec.get("schedule") or ""
        if not schedule:
            declarative.append(required("spec.schedule", ""))  # +k8s:required (beta)
        else:
            try:  # ParseCronScheduleWithPanicRecovery: cron.ParseStandard's error
                parse_standard(schedule)
            except CronError as error:
                errs.append(invalid("spec.schedule", schedule, str(error)))
            if "TZ" in schedule:
                errs.append(invalid("spec.schedule", schedule,
                                    "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
        errs += non_negative(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds")
        zone = spec.get("timeZone")
        if old is None or zone != mapping(old.get("spec")).get("timeZone"):
            errs += _time_zone_errors(zone)
        policy = spec.get("concurrencyPolicy")
        if policy not in ("Allow", "Forbid", "Replace"):
            errs.append(not_supported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"]))
        job_spec = mapping(spec.get("jobTemplate")).get("spec")
        errs += validate_job_spec(job_spec if isinstance(job_spec, dict) else {}, "spec.jobTemplate.spec",
                                  template_of_cronjob=True)
        for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
            errs += non_negative(spec.get(key), f"spec.{key}")
        return errs, declarative

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        errs, declarative = self._validate_spec(new, old)
        return errs + declarative


_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


def _time_zone_errors(zone: Any) -> list[FieldError]:
    """``validateTimeZone``: an IANA name (its parts' syntax, then ``time.LoadLocation``), not ``Local``; the
    bad value is the *string, printed by json.Marshal."""
    if not isinstance(zone, str):
        return []
    value = GoLiteral(go_json(zone))
    if not zone:
        return [invalid("spec.timeZone", value, "timeZone must be nil or non-empty string")]
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _ZONE_PART.fullmatch(part):
            return [invalid("spec.timeZone", value, f"unknown time zone {zone}")]
    errs = []
    if zone.lower() == "local":
        errs.append(invalid("spec.timeZone", value,
                            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
    if not known_zone(zone):
        errs.append(invalid("spec.timeZone", value, f"unknown time zone {zone}"))
    return errs


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Job": JobStrategy,
    "CronJob": CronJobStrategy,
}
