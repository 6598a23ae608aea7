"""A Job's and a CronJob template's spec validation (kubernetes v1.37.2 ``pkg/apis/batch/validation/
validation.go``: ``validateJobSpec``, ``ValidateJobSpec``, ``ValidateJobTemplateSpec``, ``validateGeneratedSelector``,
``validateNameAllowsCompletions``), in upstream's order of causes; observed on kube-apiserver v1.37.2
(tests/differential/corpus/workloads-more.yaml). Not checked: ``spec.scheduling`` (gang scheduling) and the
syntax of a success policy's ``succeededIndexes``.
"""

from __future__ import annotations

from typing import Any

from fakekube.errors import (
    FieldError,
    GoLiteral,
    duplicate,
    go_json,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)
from fakekube.kinds.checks import (
    go_label_selector,
    go_string_map,
    is_int,
    mapping,
    non_negative,
    selector_is_empty,
    selector_matches,
    seq,
    validate_label_selector,
)
from fakekube.kinds.networking import domain_prefixed_path
from fakekube.kinds.podvalidation import validate_pod_template
from fakekube.kinds.workloads import MISMATCH
from fakekube.namerules import is_dns1123_label, is_qualified_name

JOB_RESTART_POLICIES = ["OnFailure", "Never"]
CONTROLLER_UID = "batch.kubernetes.io/controller-uid"
JOB_NAME = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID = "controller-uid"
LEGACY_JOB_NAME = "job-name"
MAX_INDEXED_PARALLELISM = 100_000
MAX_FAILED_INDEXES = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
HIGH_COMPLETIONS_LIMIT = 10_000  # parallelism and maxFailedIndexes above the soft limit
_ACTIONS = ["Count", "FailIndex", "FailJob", "Ignore"]
_EXIT_OPERATORS = ["In", "NotIn"]
_CONDITION_STATUSES = ["False", "True", "Unknown"]


def _count(value: Any) -> int | None:
    return value if is_int(value) else None


def validate_job_spec(spec: dict[str, Any], path: str, *, template_of_cronjob: bool = False) -> list[FieldError]:
    """``validateJobSpec`` then, for a Job (``ValidateJobSpec``), the selector and the template's labels; for a
    CronJob's template (``ValidateJobTemplateSpec``), the selector and manualSelector it may not set."""
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes"):
        errs += non_negative(spec.get(key), f"{path}.{key}")
        if key == "maxFailedIndexes" and spec.get(key) is not None and spec.get("backoffLimitPerIndex") is None:
            errs.append(required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if isinstance(managed_by, str):
        errs += domain_prefixed_path(managed_by, f"{path}.managedBy")
        if len(managed_by) > 63:
            errs.append(too_long(f"{path}.managedBy", 63))
    errs += _completion_mode(spec, path)
    if spec.get("podFailurePolicy") is not None:
        errs += _pod_failure_policy(spec, f"{path}.podFailurePolicy")
    if spec.get("successPolicy") is not None:
        errs += _success_policy(spec, f"{path}.successPolicy")
    errs += _pod_replacement_policy(spec, f"{path}.podReplacementPolicy")
    template = mapping(spec.get("template"))
    errs += validate_pod_template(template, f"{path}.template")
    errs += _restart_policy(spec, template, f"{path}.template.spec.restartPolicy")
    selector = spec.get("selector")
    if template_of_cronjob:
        if selector is not None:
            errs.append(invalid(f"{path}.selector", go_label_selector(selector), "`selector` will be auto-generated"))
        if spec.get("manualSelector") is True:
            errs.append(not_supported(f"{path}.manualSelector", True, ["nil", "false"]))
        return errs
    selector_errs = validate_label_selector(selector, f"{path}.selector")
    errs += [required(f"{path}.selector", "")] if selector is None else selector_errs
    # A nil selector matches nothing; one LabelSelectorAsSelector refuses is not compared.
    labels = mapping(template.get("metadata")).get("labels")
    if not selector_errs and not (selector is not None and selector_is_empty(selector)) \
            and not selector_matches(selector, labels):
        errs.append(invalid(f"{path}.template.metadata.labels", go_string_map(labels), MISMATCH))
    return errs


def _completion_mode(spec: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    mode = spec.get("completionMode")
    completions, parallelism = _count(spec.get("completions")), _count(spec.get("parallelism"))
    failed, per_index = _count(spec.get("maxFailedIndexes")), spec.get("backoffLimitPerIndex")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        errs.append(not_supported(f"{path}.completionMode", mode, ["NonIndexed", "Indexed"]))
    if mode == "Indexed":
        if spec.get("completions") is None:
            errs.append(required(f"{path}.completions", "when completion mode is Indexed"))
        if parallelism is not None and parallelism > MAX_INDEXED_PARALLELISM:
            errs.append(invalid(f"{path}.parallelism", parallelism, f"must be less than or equal to "
                                f"{MAX_INDEXED_PARALLELISM} when completion mode is Indexed"))
        if completions is not None and failed is not None and failed > completions:
            errs.append(invalid(f"{path}.maxFailedIndexes", failed, "must be less than or equal to completions"))
        if failed is not None and failed > MAX_FAILED_INDEXES:
            errs.append(invalid(f"{path}.maxFailedIndexes", failed, f"must be less than or equal to {MAX_FAILED_INDEXES}"))
        if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
            high = (f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index")
            if spec.get("maxFailedIndexes") is None:
                errs.append(required(f"{path}.maxFailedIndexes",
                                     f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"))
            if parallelism is not None and parallelism > HIGH_COMPLETIONS_LIMIT:
                errs.append(invalid(f"{path}.parallelism", parallelism,
                                    f"must be less than or equal to {HIGH_COMPLETIONS_LIMIT} {high}"))
            if failed is not None and failed > HIGH_COMPLETIONS_LIMIT:
                errs.append(invalid(f"{path}.maxFailedIndexes", failed,
                                    f"must be less than or equal to {HIGH_COMPLETIONS_LIMIT} {high}"))
    if mode in (None, "NonIndexed"):
        for key in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if spec.get(key) is not None:
                errs.append(invalid(f"{path}.{key}", spec[key], "requires indexed completion mode"))
    return errs


def _pod_failure_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    rules = seq(mapping(spec.get("podFailurePolicy")).get("rules"))
    errs: list[FieldError] = []
    if len(rules) > 20:
        errs.append(too_many(f"{path}.rules", len(rules), 20))
    pod = mapping(mapping(spec.get("template")).get("spec"))
    names = {mapping(c).get("name") for key in ("containers", "initContainers") for c in seq(pod.get(key))}
    for i, rule in enumerate(rules):
        errs += _failure_rule(spec, mapping(rule), f"{path}.rules[{i}]", names)
    return errs


def _failure_rule(spec: dict[str, Any], rule: dict[str, Any], path: str, names: set[Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    action = rule.get("action") or ""
    if not action:
        errs.append(required(f"{path}.action", f"valid values: {_go_list(_ACTIONS)}"))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            errs.append(invalid(f"{path}.action", action, "requires the backoffLimitPerIndex to be set"))
    elif action not in _ACTIONS:
        errs.append(not_supported(f"{path}.action", action, _ACTIONS))
    exit_codes, conditions = rule.get("onExitCodes"), seq(rule.get("onPodConditions"))
    if exit_codes is not None:
        errs += _on_exit_codes(mapping(exit_codes), f"{path}.onExitCodes", names)
    if len(conditions) > 20:
        errs.append(too_many(f"{path}.onPodConditions", len(conditions), 20))
    for j, pattern in enumerate(conditions):
        pattern = mapping(pattern)
        status = pattern.get("status") or ""
        errs += [invalid(f"{path}.onPodConditions[{j}].type", pattern.get("type") or "", m)
                 for m in is_qualified_name(pattern.get("type") or "")]
        if not status:
            errs.append(required(f"{path}.onPodConditions[{j}].status", f"valid values: {_go_list(_CONDITION_STATUSES)}"))
        elif status not in _CONDITION_STATUSES:
            errs.append(not_supported(f"{path}.onPodConditions[{j}].status", status, _CONDITION_STATUSES))
    if exit_codes is not None and conditions:
        errs.append(FieldError("FieldValueInvalid", path, "specifying both OnExitCodes and OnPodConditions is not supported"))
    if exit_codes is None and not conditions:
        errs.append(FieldError("FieldValueInvalid", path, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _on_exit_codes(codes: dict[str, Any], path: str, names: set[Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    operator = codes.get("operator") or ""
    if not operator:
        errs.append(required(f"{path}.operator", f"valid values: {_go_list(_EXIT_OPERATORS)}"))
    elif operator not in _EXIT_OPERATORS:
        errs.append(not_supported(f"{path}.operator", operator, _EXIT_OPERATORS))
    container = codes.get("containerName")
    if container is not None and container not in names:
        errs.append(invalid(f"{path}.containerName", container,
                            "must be one of the container or initContainer names in the pod template"))
    values = [v for v in seq(codes.get("values")) if is_int(v)]
    shown = GoLiteral(go_json(values) if codes.get("values") is not None else "null")
    if not values:
        errs.append(invalid(f"{path}.values", shown, "at least one value is required"))
    elif len(values) > 255:
        errs.append(too_many(f"{path}.values", len(values), 255))
    seen: set[int] = set()
    for j, value in enumerate(values):
        if operator == "In" and value == 0:
            errs.append(invalid(f"{path}.values[{j}]", value, "must not be 0 for the In operator"))
        if value in seen:
            errs.append(duplicate(f"{path}.values[{j}]", value))
        seen.add(value)
    if values != sorted(values):
        errs.append(invalid(f"{path}.values", shown, "must be ordered"))
    return errs


def _success_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    policy = mapping(spec.get("successPolicy"))
    rules = seq(policy.get("rules"))
    if spec.get("completionMode") != "Indexed":
        # the internal *SuccessPolicy, printed by json.Marshal under its Go field names
        shown = {"Rules": None if policy.get("rules") is None else [
            {"SucceededIndexes": mapping(r).get("succeededIndexes"), "SucceededCount": mapping(r).get("succeededCount")}
            for r in rules]}
        return [invalid(path, GoLiteral(go_json(shown, sort_keys=False)), "requires indexed completion mode")]
    errs: list[FieldError] = []
    if not rules:
        errs.append(required(f"{path}.rules", "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > 20:
        errs.append(too_many(f"{path}.rules", len(rules), 20))
    completions = _count(spec.get("completions")) or 0
    for i, rule in enumerate(rules):
        rule = mapping(rule)
        here = f"{path}.rules[{i}]"
        indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
        if count is None and indexes is None:
            errs.append(required(here, "at least one of succeededCount or succeededIndexes must be specified"))
        if isinstance(indexes, str) and len(indexes) > 64 * 1024:
            errs.append(too_long(f"{here}.succeededIndexes", 64 * 1024))
        if is_int(count):
            errs += non_negative(count, f"{here}.succeededCount")
            if count > completions:
                errs.append(invalid(f"{here}.succeededCount", count, f"must be less than or equal to {completions} "
                                    "(the number of specified completions)"))
    return errs


def _pod_replacement_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    policy = spec.get("podReplacementPolicy")
    if policy is None:
        return []
    if spec.get("podFailurePolicy") is not None:
        return [] if policy == "Failed" else [not_supported(path, policy, ["Failed"])]
    return [] if policy in ("Failed", "TerminatingOrFailed") else [
        not_supported(path, policy, ["Failed", "TerminatingOrFailed"])]


def _restart_policy(spec: dict[str, Any], template: dict[str, Any], where: str) -> list[FieldError]:
    policy = mapping(template.get("spec")).get("restartPolicy")
    # SetDefaults_PodSpec turns an unset policy into Always, so both are "Required" (not "Unsupported").
    if policy in ("Always", "", None):
        return [required(where, 'valid values: "OnFailure", "Never"')]
    if policy not in JOB_RESTART_POLICIES:
        return [not_supported(where, policy, JOB_RESTART_POLICIES)]
    if spec.get("podFailurePolicy") is not None and policy != "Never":
        return [invalid(where, policy, 'only "Never" is supported when podFailurePolicy is specified')]
    return []


def validate_generated_selector(job: dict[str, Any]) -> list[FieldError]:
    """``validateGeneratedSelector`` (create): a generated selector's template carries the Job's four labels
    and the selector selects exactly them."""
    spec = mapping(job.get("spec"))
    selector = spec.get("selector")
    if spec.get("manualSelector") is True or selector is None:
        return []
    meta = mapping(job.get("metadata"))
    uid, name = meta.get("uid") or "", meta.get("name") or ""
    errs = [] if uid else [required("metadata.uid", "")]
    labels = mapping(mapping(mapping(spec.get("template")).get("metadata")).get("labels"))
    expected = {LEGACY_CONTROLLER_UID: uid, LEGACY_JOB_NAME: name, CONTROLLER_UID: uid, JOB_NAME: name}
    for key, value in expected.items():
        where = f"spec.template.metadata.labels[{key}]"
        if key not in labels:
            errs.append(required(where, f"must be '{value}'"))
        elif labels[key] != value:
            errs.append(invalid(where, go_string_map(labels), f"must be '{value}'"))
    if not validate_label_selector(selector, "spec.selector") and not selector_matches(selector, expected):
        errs.append(invalid("spec.selector", go_label_selector(selector), "`selector` not auto-generated"))
    return errs


def name_allows_completions(job: dict[str, Any]) -> list[FieldError]:
    """``validateNameAllowsCompletions``: an Indexed Job's pods are named ``<name>-<index>``, a DNS label."""
    spec = mapping(job.get("spec"))
    completions = _count(spec.get("completions"))
    if spec.get("completionMode") != "Indexed" or not completions or completions <= 0:
        return []
    name = mapping(job.get("metadata")).get("name") or ""
    hostname = f"{name}-{completions - 1}"
    if not is_dns1123_label(hostname):
        return []
    return [invalid("metadata.name", name, f"will not able to create pod with invalid DNS label: {hostname}")]


def _go_list(values: list[str]) -> str:
    """``fmt.Sprintf("%q", []string)``: ``["a" "b"]``."""
    return "[" + " ".join(go_json(v) for v in values) + "]"
