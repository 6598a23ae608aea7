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

from fakekube.errors import FieldError, GoLiteral, invalid, not_supported, required
from fakekube.kinds.checks import (
    dict_at,
    go_label_selector,
    immutable,
    mapping,
    non_negative,
    seq,
    validate_label_selector,
)
from fakekube.kinds.podspec import default_pod_template
from fakekube.kinds.workloads import validate_template
from fakekube.strategies import BuiltinStrategy, Strategy

JOB_RESTART_POLICIES = ["OnFailure", "Never"]
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"
CRONJOB_NAME_MAX = 52
_CRON_MACROS = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}


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


def validate_job_spec(spec: dict[str, Any], path: str, *, template_of_cronjob: bool = False) -> list[FieldError]:
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes"):
        errs += non_negative(spec.get(key), f"{path}.{key}")
    mode = spec.get("completionMode")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        errs.append(not_supported(f"{path}.completionMode", mode, ["NonIndexed", "Indexed"]))
    if mode == "Indexed" and spec.get("completions") is None:
        errs.append(required(f"{path}.completions", "when completion mode is Indexed"))
    if template_of_cronjob:
        if spec.get("selector") is not None:
            errs.append(invalid(f"{path}.selector", go_label_selector(spec["selector"]),
                                "`selector` will be auto-generated"))
        if spec.get("manualSelector") is True:
            errs.append(not_supported(f"{path}.manualSelector", True, ["nil", "false"]))
        errs += validate_template({"template": spec.get("template"), "selector": {}}, path, restart_policies=None)
    else:
        if spec.get("selector") is None:
            errs.append(required(f"{path}.selector", ""))
        else:
            errs += validate_label_selector(spec["selector"], f"{path}.selector")
        errs += validate_template(spec, path, restart_policies=None)
    policy = mapping(mapping(spec.get("template")).get("spec")).get("restartPolicy")
    if policy not in JOB_RESTART_POLICIES:
        errs.append(not_supported(f"{path}.template.spec.restartPolicy", policy, JOB_RESTART_POLICIES))
    elif spec.get("podFailurePolicy") is not None and policy != "Never":
        errs.append(invalid(f"{path}.template.spec.restartPolicy", policy,
                            'only "Never" is supported when podFailurePolicy is specified'))
    return errs


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
        return validate_job_spec(mapping(obj.get("spec")), "spec")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
        errs = validate_job_spec(spec, "spec")
        elastic = spec.get("completionMode") == "Indexed" and spec.get("completions") == spec.get("parallelism")
        if not elastic:
            errs += immutable(spec.get("completions"), old_spec.get("completions"), "spec.completions")
        errs += immutable(spec.get("selector"), old_spec.get("selector"), "spec.selector",
                          go_label_selector(spec.get("selector")))
        errs += _template_update(spec, old_spec, old)
        for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy",
                    "podReplacementPolicy"):
            errs += immutable(spec.get(key), old_spec.get(key), f"spec.{key}")
        return errs


def _template_update(spec: dict[str, Any], old_spec: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The template is immutable, but a suspended Job that never started may change where its pods go."""
    template, old_template = mapping(spec.get("template")), mapping(old_spec.get("template"))
    if old_spec.get("suspend") is True and not mapping(old.get("status")).get("startTime"):
        pod, old_pod = mapping(template.get("spec")), mapping(old_template.get("spec"))
        scheduling = ("nodeSelector", "tolerations", "affinity", "schedulingGates")
        old_template = {**old_template, "metadata": {**mapping(old_template.get("metadata")),
                                                      **{k: v for k, v in mapping(template.get("metadata")).items()
                                                         if k in ("labels", "annotations")}},
                        "spec": {**{k: v for k, v in old_pod.items() if k not in scheduling},
                                 **{k: v for k, v in pod.items() if k in scheduling}}}
    if template == old_template:
        return []
    return [invalid("spec.template", GoLiteral("core.PodTemplateSpec{...}"), "field is immutable")]


# ----------------------------------------------------------------------------------- CronJob

def cron_schedule_error(schedule: str) -> str | None:
    """The parse error ``cron.ParseStandard`` gives (five fields, or a descriptor)."""
    text = schedule.strip()
    if text.startswith(("TZ=", "CRON_TZ=")):
        return None
    if text.startswith("@"):
        if text in _CRON_MACROS or re.fullmatch(r"@every \S+", text):
            return None
        return f"unrecognized descriptor: {text}"
    fields = text.split()
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    for field_text in fields:
        if not re.fullmatch(r"[0-9A-Za-z*?/,\-]+", field_text):
            return f"failed to parse int from {field_text}: strconv.Atoi: parsing {field_text!r}: invalid syntax"
    return None


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
        errs: list[FieldError] = []
        if len(name) > CRONJOB_NAME_MAX:
            errs.append(invalid("metadata.name", name, f"must be no more than {CRONJOB_NAME_MAX} characters"))
        return errs + self._validate_spec(obj)

    def _validate_spec(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        schedule = spec.get("schedule") or ""
        if not schedule:
            errs.append(required("spec.schedule", ""))
        elif re.search(r"(^|\s)(CRON_)?TZ=", schedule):
            errs.append(invalid("spec.schedule", schedule,
                                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
        else:
            error = cron_schedule_error(schedule)
            if error:
                errs.append(invalid("spec.schedule", schedule, error))
        policy = spec.get("concurrencyPolicy")
        if policy not in ("Allow", "Forbid", "Replace"):
            errs.append(not_supported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"]))
        for key in ("startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
            errs += non_negative(spec.get(key), f"spec.{key}")
        job_spec = mapping(spec.get("jobTemplate")).get("spec")
        errs += validate_job_spec(job_spec if isinstance(job_spec, dict) else {}, "spec.jobTemplate.spec",
                                  template_of_cronjob=True)
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self._validate_spec(new)


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Job": JobStrategy,
    "CronJob": CronJobStrategy,
}
