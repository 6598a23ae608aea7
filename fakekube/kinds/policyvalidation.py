"""Validation of admission policies and their bindings (kubernetes ``pkg/apis/admissionregistration/validation/
validation.go`` at v1.37.2: ``validateValidatingAdmissionPolicySpec``, ``validateMutatingAdmissionPolicySpec``,
their bindings' specs, ``validateMatchResources``, ``validateParamRef``, ``validateValidationActions``; sources in
docs/semantics.md). A ValidatingAdmissionPolicy's CEL expressions are compiled (fakekube.admission.policycel, with
upstream's words: ``compilation failed: ...``, ``must evaluate to bool but got string``), and so are a
MutatingAdmissionPolicy's (its mutations with the patch types, fakekube.admission.mutationcel). The bindings'
``policyName`` and ``validationActions`` requirements are declarative in v1.37.2 (``+k8s:required``), so their
errors come after the handwritten ones."""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from fakekube.admission import policycel
from fakekube.admission.mutating import variable_types
from fakekube.admission.mutationcel import VariableTypes, compile_patch
from fakekube.admission.policycel import compile_expression
from fakekube.errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from fakekube.kinds.checks import dns_subdomain, go_string_slice, mapping, seq, validate_label_selector

_T = cel.Type
_FAILURE_POLICIES = ["Fail", "Ignore"]
_MATCH_POLICIES = ["Equivalent", "Exact"]
_REINVOCATION_POLICIES = ["IfNeeded", "Never"]
_PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"]
_VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
_MUTATING_OPERATIONS = ["CREATE", "UPDATE"]
_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"]  # supportedValidationPolicyReason
_DENY_AND_WARN = ("must not contain both Deny and Warn (repeating the same validation failure information in the "
                  "API response and headers serves no purpose)")


def _enum(value: Any, path: str, supported: list[str]) -> list[FieldError]:
    if value is None:
        return [required(path, "")]
    return [] if value in supported else [not_supported(path, value, supported)]


def _match_resources(match: Any, path: str) -> list[FieldError]:
    """``validateMatchResources`` (its three parts are defaulted, so required only when sent null elsewhere)."""
    if not isinstance(match, dict):
        return []
    errs = _enum(match.get("matchPolicy"), f"{path}.matchPolicy", _MATCH_POLICIES)
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            errs.append(required(f"{path}.{key}", ""))
        else:
            errs.extend(validate_label_selector(match.get(key), f"{path}.{key}"))
    return errs


def _mutating_operations(match: Any, path: str) -> list[FieldError]:
    errs = []
    for rule in seq(mapping(match).get("resourceRules")):
        for op in seq(mapping(rule).get("operations")):
            if op not in _MUTATING_OPERATIONS:
                errs.append(not_supported(f"{path}.resourceRules.operations", op, _MUTATING_OPERATIONS))
    return errs


def _policy_head(spec: dict[str, Any], *, mutating: bool) -> list[FieldError]:
    """failurePolicy and matchConstraints, which both policy kinds check first."""
    errs = _enum(spec.get("failurePolicy"), "spec.failurePolicy", _FAILURE_POLICIES)
    match = spec.get("matchConstraints")
    if match is None:
        errs.append(required("spec.matchConstraints", ""))
        return errs
    errs.extend(_match_resources(match, "spec.matchConstraints"))
    if not seq(mapping(match).get("resourceRules")):
        errs.append(required("spec.matchConstraints.resourceRules", ""))
    if mutating:
        errs.extend(_mutating_operations(match, "spec.matchConstraints"))
    return errs


def validate_validating_policy(obj: dict[str, Any]) -> list[FieldError]:
    spec = mapping(obj.get("spec"))
    errs = _policy_head(spec, mutating=False)
    validations, annotations = seq(spec.get("validations")), seq(spec.get("auditAnnotations"))
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        return [*errs, required("spec.validations", detail), required("spec.auditAnnotations", detail)]
    params = spec.get("paramKind") is not None
    for i, condition in enumerate(seq(spec.get("matchConditions"))):
        # validateMatchConditionsExpression: a stateless compiler, without the policy's variables
        text = str(mapping(condition).get("expression") or "").strip()
        if text:
            errs.extend(_compiles(f"spec.matchConditions[{i}].expression", text, text, params, (_T.BOOL,),
                                  with_variables=False))
    for i, variable in enumerate(seq(spec.get("variables"))):
        text = str(mapping(variable).get("expression") or "")
        if text.strip():
            errs.extend(_compiles(f"spec.variables[{i}].expression", text, text, params, ()))
    for i, validation in enumerate(validations):
        validation = mapping(validation)
        here = f"spec.validations[{i}]"
        text = str(validation.get("expression") or "")
        if not text.strip():
            errs.append(required(f"{here}.expression", "expression is not specified"))
        else:
            errs.extend(_compiles(f"{here}.expression", text, text, params, (_T.BOOL,)))
        message = str(validation.get("messageExpression") or "")
        if message.strip():
            errs.extend(_compiles(f"{here}.messageExpression", message, message, params, (_T.STRING,),
                                  with_authorizer=False))
        reason = validation.get("reason")
        if reason is not None and reason not in _REASONS:
            errs.append(not_supported(f"{here}.reason", reason, _REASONS))
    keys: set[Any] = set()
    for i, annotation in enumerate(annotations):
        key = mapping(annotation).get("key")
        if key in keys:
            errs.append(duplicate(f"spec.auditAnnotations[{i}].key", key))
        keys.add(key)
        value = str(mapping(annotation).get("valueExpression") or "")
        if value.strip():
            errs.extend(_compiles(f"spec.auditAnnotations[{i}].valueExpression", value.strip(), value, params,
                                  (_T.STRING, _T.NULL)))
    return errs


def _compiles(path: str, text: str, shown: str, params: bool, returns: tuple[Any, ...], *,
              with_variables: bool = True, with_authorizer: bool = True) -> list[FieldError]:
    """convertCELErrorToValidationError: the compile error as an Invalid value (``shown``) of ``path``."""
    compiled = compile_expression(text, params, returns, with_variables=with_variables,
                                  with_authorizer=with_authorizer)
    return [invalid(path, shown, compiled.error)] if compiled.error else []


def validate_mutating_policy(obj: dict[str, Any]) -> list[FieldError]:
    spec = mapping(obj.get("spec"))
    errs = _policy_head(spec, mutating=True)
    params = spec.get("paramKind") is not None
    for i, condition in enumerate(seq(spec.get("matchConditions"))):
        text = str(mapping(condition).get("expression") or "").strip()
        if text:
            errs.extend(_compiles(f"spec.matchConditions[{i}].expression", text, text, params, (_T.BOOL,),
                                  with_variables=False))
    for i, variable in enumerate(seq(spec.get("variables"))):
        text = str(mapping(variable).get("expression") or "")
        if text.strip():
            errs.extend(_compiles(f"spec.variables[{i}].expression", text, text, params, ()))
    if not seq(spec.get("mutations")):
        errs.append(required("spec.mutations", "mutations must contain at least one item"))
    types = variable_types(policycel.compile_policy({"paramKind": spec.get("paramKind"),
                                                     "variables": [mapping(v) for v in seq(spec.get("variables"))]}))
    for i, mutation in enumerate(seq(spec.get("mutations"))):
        errs.extend(_mutation(mapping(mutation), f"spec.mutations[{i}]", params, types))
    policy = spec.get("reinvocationPolicy")
    if not policy:
        errs.append(required("spec.reinvocationPolicy", ""))
    elif policy not in _REINVOCATION_POLICIES:
        errs.append(not_supported("spec.reinvocationPolicy", policy, _REINVOCATION_POLICIES))
    return errs


def _mutation(m: dict[str, Any], path: str, params: bool, types: VariableTypes) -> list[FieldError]:
    """validateMutation, validateJSONPatch, validateApplyConfiguration: the patch type's expression, compiled
    with the patch types (fakekube.admission.mutationcel)."""
    kind = m.get("patchType")
    if not kind:
        return [required(f"{path}.patchType", "")]
    if kind not in _PATCH_TYPES:
        return [not_supported(f"{path}.patchType", kind, _PATCH_TYPES)]
    own, other = ("jsonPatch", "applyConfiguration") if kind == "JSONPatch" else ("applyConfiguration", "jsonPatch")
    errs: list[FieldError] = []
    if m.get(own) is None:
        errs.append(required(f"{path}.{own}", f"must be specified when patchType is {kind}"))
    else:
        text = str(mapping(m.get(own)).get("expression") or "").strip()
        if not text:
            errs.append(required(f"{path}.{own}.expression", ""))
        else:
            compiled = compile_patch(kind, text, params, types)
            if compiled.error:
                errs.append(invalid(f"{path}.{own}.expression", text, compiled.error))
    if m.get(other) is not None:
        errs.append(invalid(f"{path}.{other}", "{" + other + "}", f"must not be specified when patchType is {kind}"))
    return errs


def _param_ref(ref: Any, path: str) -> list[FieldError]:
    """``validateParamRef``: a name or a selector, not both (the name's path-segment check is not repeated)."""
    if not isinstance(ref, dict):
        return []
    name, selector = ref.get("name"), ref.get("selector")
    errs: list[FieldError] = []
    if name and selector is not None:
        errs.append(forbidden(f"{path}.name", "name and selector are mutually exclusive"))
    if selector is not None:
        errs.extend(validate_label_selector(selector, f"{path}.selector"))
        if name:
            errs.append(forbidden(f"{path}.selector", "name and selector are mutually exclusive"))
    if not name and selector is None:
        errs.append(required(path, "one of name or selector must be specified"))
    return errs


def _policy_name(spec: dict[str, Any]) -> list[FieldError]:
    name = spec.get("policyName")
    return dns_subdomain(name, "spec.policyName") if isinstance(name, str) and name else []


def validate_validating_binding(obj: dict[str, Any]) -> list[FieldError]:
    spec = mapping(obj.get("spec"))
    errs = [*_policy_name(spec), *_param_ref(spec.get("paramRef"), "spec.paramRef"),
            *_match_resources(spec.get("matchResources"), "spec.matchResources")]
    actions = seq(spec.get("validationActions"))
    seen: set[Any] = set()
    for i, action in enumerate(actions):
        if action not in _VALIDATION_ACTIONS:
            errs.append(not_supported(f"spec.validationActions[{i}]", action, _VALIDATION_ACTIONS))
        if action in seen:
            errs.append(duplicate(f"spec.validationActions[{i}]", action))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errs.append(invalid("spec.validationActions", go_string_slice(actions), _DENY_AND_WARN))
    # declarative, after the handwritten checks
    if not spec.get("policyName"):
        errs.append(required("spec.policyName", ""))
    if not actions:
        errs.append(required("spec.validationActions", ""))
    return errs


def validate_mutating_binding(obj: dict[str, Any]) -> list[FieldError]:
    spec = mapping(obj.get("spec"))
    errs = [required("spec.policyName", "")] if not spec.get("policyName") else _policy_name(spec)
    errs.extend(_param_ref(spec.get("paramRef"), "spec.paramRef"))
    errs.extend(_match_resources(spec.get("matchResources"), "spec.matchResources"))
    errs.extend(_mutating_operations(spec.get("matchResources"), "spec.matchResources"))
    return errs
