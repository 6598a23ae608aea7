"""What every pod-template workload validates the same way: selector, template labels, restart policy.

kubernetes ``pkg/apis/apps/validation/validation.go`` (``ValidatePodTemplateSpecForReplicaSet``, the
selector checks of ``ValidateDeploymentSpec``/``ValidateReplicaSetSpec``/``ValidateStatefulSetSpec``/
``ValidateDaemonSetSpec``) and ``pkg/apis/core/validation/validation.go`` (``ValidatePodTemplateSpecForRC``).
A missing selector gets both ``Required`` and the template-labels mismatch, as upstream's nil selector matches
nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fakekube.errors import FieldError, forbidden, invalid, not_supported, required
from fakekube.kinds.checks import (
    go_label_selector,
    go_string_map,
    mapping,
    selector_is_empty,
    selector_matches,
    validate_label_selector,
)
from fakekube.kinds.podvalidation import validate_pod_template

MISMATCH = "`selector` does not match template `labels`"


def template_labels(spec: dict[str, Any]) -> Any:
    return mapping(mapping(spec.get("template")).get("metadata")).get("labels")


def validate_selector(spec: dict[str, Any], path: str, kind: str) -> tuple[list[FieldError], bool]:
    """A required ``metav1.LabelSelector`` that may not be empty (``empty selector is invalid for <kind>``); and
    whether ``LabelSelectorAsSelector`` takes it (a nil one too: it selects nothing)."""
    selector = spec.get("selector")
    if selector is None:
        return [required(f"{path}.selector", "")], True
    errs = validate_label_selector(selector, f"{path}.selector")
    parses = not errs
    if selector_is_empty(selector):
        errs.append(invalid(f"{path}.selector", go_label_selector(selector), f"empty selector is invalid for {kind}"))
    return errs, parses


def validate_selected_template(spec: dict[str, Any], path: str, kind: str, *, deadline_kind: str = "ReplicaSet",
                               bad_selector: str = "invalid label selector") -> list[FieldError]:
    """The selector, then (``ValidatePodTemplateSpecForReplicaSet``, ``...ForStatefulSet``) the template it must
    select, its restart policy (Always) and no activeDeadlineSeconds; a selector that does not parse is
    reported once more as a whole (``bad_selector``) and the template goes unchecked."""
    errs, parses = validate_selector(spec, path, kind)
    if not parses:
        errs.append(invalid(f"{path}.selector", go_label_selector(spec.get("selector")), bad_selector))
        # a StatefulSet checks the restart policy and deadline outside the template check
        return errs + (_restart_and_deadline(spec, f"{path}.template", ("Always",), deadline_kind, True)
                       if deadline_kind == "StatefulSet" else [])
    return errs + validate_template(spec, path, kind_for_deadline=deadline_kind, deadline_forbidden=True)


def validate_template(spec: dict[str, Any], path: str, *, restart_policies: Sequence[str] | None = ("Always",),
                      kind_for_deadline: str | None = None, map_selector: bool = False,
                      compare_labels: bool = True, after_labels: list[FieldError] | None = None,
                      deadline_forbidden: bool = False) -> list[FieldError]:
    """The template must exist, carry labels the selector matches and pass ``ValidatePodTemplateSpec``;
    ``restart_policies`` are the ones this workload accepts. ``compare_labels``: whether the selector parsed
    (upstream compares only a selector ``LabelSelectorAsSelector`` accepts); ``after_labels``: the kind's errors
    reported between the labels check and the pod template's."""
    template = spec.get("template")
    here = f"{path}.template"
    if not isinstance(template, dict):
        return [required(here, ""), *(after_labels or [])]
    errs: list[FieldError] = []
    selector = spec.get("selector")
    labels = template_labels(spec)
    if map_selector:
        matches = not selector or all(mapping(labels).get(k) == v for k, v in mapping(selector).items())
    else:
        matches = (selector is not None and selector_is_empty(selector)) or selector_matches(selector, labels)
    if compare_labels and not matches:
        errs.append(invalid(f"{here}.metadata.labels", go_string_map(labels), MISMATCH))
    errs.extend(after_labels or [])
    errs.extend(validate_pod_template(template, here))
    return errs + _restart_and_deadline(spec, here, restart_policies, kind_for_deadline,
                                        map_selector or deadline_forbidden)


def _restart_and_deadline(spec: dict[str, Any], here: str, restart_policies: Sequence[str] | None,
                          kind_for_deadline: str | None, forbid: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    pod_spec = mapping(mapping(spec.get("template")).get("spec"))
    policy = pod_spec.get("restartPolicy")
    if restart_policies is not None and policy and policy not in restart_policies:
        errs.append(not_supported(f"{here}.spec.restartPolicy", policy, list(restart_policies)))
    deadline = pod_spec.get("activeDeadlineSeconds")
    if kind_for_deadline and deadline is not None:
        detail = f"activeDeadlineSeconds in {kind_for_deadline} is not Supported"
        where = f"{here}.spec.activeDeadlineSeconds"
        errs.append(forbidden(where, detail) if forbid else invalid(where, deadline, detail))
    return errs
