"""The ValidatingAdmissionPolicy dispatcher: which policies and bindings apply to a request, and its outcome.

After k8s.io/apiserver ``pkg/admission/plugin/policy/validating/dispatcher.go`` and ``generic/
policy_source.go``, ``policy_dispatcher.go`` (CollectParams), v0.37.2. A policy acts only through its bindings
(a policy without one, or a binding naming no policy, does nothing). For each policy whose
``matchConstraints`` match and each of its bindings whose ``matchResources`` match, the binding's params are
collected and the policy's matchConditions, validations and auditAnnotations evaluated for each; a failed
validation does what the binding's ``validationActions`` say: ``Deny`` refuses the request with the first
such decision (``ValidatingAdmissionPolicy 'p' with binding 'b' denied request: <message>``, code from the
``reason``: 422 Invalid by default, 403 Forbidden, 401 Unauthorized, 413 RequestEntityTooLarge), ``Warn``
adds a Warning, ``Audit`` the ``validation.policy.admission.k8s.io/validation_failure`` audit annotation.
Errors (compilation, evaluation, configuration) deny unless the policy's ``failurePolicy`` is ``Ignore``.

The real server sees policies through informers refreshed every second (policy_source.go
``policyRefreshInterval``): a policy is in force about a second after it is written. Here it is in force at
once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakekube import errors
from fakekube.admission import authorizer as authz
from fakekube.admission import policycel
from fakekube.admission.attributes import Attributes, namespace_value, request_value
from fakekube.admission.matching import GVR, matches
from fakekube.gotext import go_quote
from fakekube.selectors import LabelSelector

POLICY_GROUP = "admissionregistration.k8s.io"
# generic/plugin.go admissionResources: API policies never judge writes of policies and bindings; and
# kubeapiserver/admission/exclusion: the reviews, which are not stored, are never judged.
EXCLUDED = frozenset({
    (POLICY_GROUP, "validatingadmissionpolicies"), (POLICY_GROUP, "validatingadmissionpolicybindings"),
    (POLICY_GROUP, "mutatingadmissionpolicies"), (POLICY_GROUP, "mutatingadmissionpolicybindings"),
    ("authentication.k8s.io", "selfsubjectreviews"), ("authentication.k8s.io", "tokenreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"), ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"), ("authorization.k8s.io", "subjectaccessreviews"),
})
FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"
_MAX_FAILURES = 50
_MAX_ANNOTATION = 10 * 1024
_REASON_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}


class ConfigError(Exception):
    """A binding's params could not be collected (its text is the refusal's)."""


class PolicyView(Protocol):
    """What the dispatcher reads of the store."""

    def policies(self) -> list[dict[str, Any]]: ...
    def bindings(self) -> list[dict[str, Any]]: ...
    def namespace(self, name: str) -> dict[str, Any] | None: ...
    def equivalents(self, a: Attributes) -> list[GVR]: ...
    def kind_for(self, gvr: GVR) -> str: ...
    def param_kind(self, api_version: str, kind: str) -> bool | None:
        """Whether the kind is namespaced; None when the server serves no such kind."""
    def params(self, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]: ...
    def authorizer(self) -> Any:
        """What the ``authorizer`` variable asks (a fakekube.identity.Authorizer; None allows everything)."""


@dataclass
class Outcome:
    """What the policies decided: a refusal (or None), Warning texts, audit annotations."""

    error: errors.ApiError | None = None
    warnings: list[str] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)


@dataclass
class _Denial:
    policy: str
    binding: str | None
    message: str
    reason: str = ""


_CACHE: dict[tuple[str, str], policycel.Compiled] = {}


def _compiled(policy: dict[str, Any]) -> policycel.Compiled:
    meta = policy.get("metadata") or {}
    key = (str(meta.get("uid") or meta.get("name")), str(meta.get("resourceVersion") or ""))
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 512:
            _CACHE.clear()
        found = _CACHE[key] = policycel.compile_policy(policy.get("spec") or {})
    return found


def _name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _gvk_text(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}, Kind={kind}"  # schema.GroupVersionKind String()


def _collect_params(view: PolicyView, spec: dict[str, Any], binding: dict[str, Any], namespace: str,
                    namespaced: bool | None) -> list[dict[str, Any] | None]:
    """generic/policy_dispatcher.go CollectParams; raises ConfigError."""
    param_kind = spec.get("paramKind")
    ref = (binding.get("spec") or {}).get("paramRef")
    if param_kind is None or ref is None:
        return [None]
    api_version, kind = str(param_kind.get("apiVersion") or ""), str(param_kind.get("kind") or "")
    if namespaced is None:
        raise ConfigError(f"paramKind kind `{_gvk_text(api_version, kind)}` not known")
    ref_ns = str(ref.get("namespace") or "")
    ns: str | None = None
    if namespaced:
        ns = ref_ns or namespace
        if not ns:
            raise ConfigError("cannot use namespaced paramRef in policy binding that matches cluster-scoped "
                              "resources")
    elif ref_ns:
        raise ConfigError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    if ref.get("name"):
        if ref.get("selector") is not None:
            raise ConfigError("paramRef.name and paramRef.selector are mutually exclusive")
        found = [p for p in view.params(api_version, kind, ns) if _name(p) == ref["name"]]
    elif ref.get("selector") is not None:
        selector = LabelSelector.from_dict(ref["selector"])
        found = [p for p in view.params(api_version, kind, ns)
                 if selector.matches((p.get("metadata") or {}).get("labels") or {})]
    else:
        raise ConfigError("one of name or selector must be provided")
    if not found and ref.get("parameterNotFoundAction") == "Deny":
        raise ConfigError("no params found for policy binding with `Deny` parameterNotFoundAction")
    typed = []
    for p in found:
        p = dict(p)
        p["apiVersion"], p["kind"] = api_version, kind  # dispatcher.go wrappedParam: TypeMeta is set
        typed.append(p)
    return typed


def _aggregate(texts: list[str]) -> str:
    # utilerrors.NewAggregate(...).Error()
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


@dataclass
class _Result:
    decisions: list[tuple[int, str, str, bool]] = field(default_factory=list)  # index, message, reason, error
    annotations: list[tuple[str, str | None, str]] = field(default_factory=list)  # key, value, error


def _validate(compiled: policycel.Compiled, fail: bool, data: dict[str, Any]) -> _Result:
    """validator.go Validate for one param: the denials (index, message, reason, is-error), the annotations."""
    out = _Result()
    act = policycel.Activation(compiled, data)
    if compiled.match_conditions:
        excluded, errs = policycel.match_conditions(act, compiled)
        if excluded:
            return out
        if errs:
            if fail:
                out.decisions.append((0, _aggregate(errs), "", True))
            return out
    for index, (validation, expr, message) in enumerate(compiled.validations):
        value, err = act.evaluate(expr)
        if err is not None:
            if fail:
                out.decisions.append((index, err, "", True))
        elif value is not True:
            out.decisions.append((index, policycel.message_of(validation, expr, message, act),
                                  str(validation.get("reason") or "Invalid"), False))
    for key, expr in compiled.audit_annotations:
        value, err = act.evaluate(expr)
        if err is not None:
            if fail:
                out.annotations.append((key, None, err))
        elif isinstance(value, str):
            if value.strip():
                out.annotations.append((key, value.strip(), ""))
        elif value is not None:
            out.annotations.append((key, None, f"valueExpression '{expr.text}' resulted in unsupported return "
                                                f"type: {_cel_type(value)}. Return type must be either string or null."))
    return out


def _cel_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def bindings_by_policy(view: PolicyView) -> dict[str, list[dict[str, Any]]]:
    """The stored bindings by the policy they name (validating or mutating: the view says which)."""
    bindings: dict[str, list[dict[str, Any]]] = {}
    for b in view.bindings():
        bindings.setdefault(str((b.get("spec") or {}).get("policyName") or ""), []).append(b)
    return bindings


class RequestLookups:
    """What matching asks of the store for one request, each looked up once: the request's namespace object and
    its labels (namespaceSelector), and the resources equivalent to the request's (matchPolicy Equivalent)."""

    def __init__(self, view: PolicyView, a: Attributes) -> None:
        self._view, self._a = view, a
        self._namespace: dict[str, Any] | None = None
        self._looked = False

    def namespace_obj(self) -> dict[str, Any] | None:
        if not self._looked:
            self._namespace = self._view.namespace(self._a.namespace) if self._a.namespace else None
            self._looked = True
        return self._namespace

    def ns_labels(self) -> dict[str, str] | None:
        ns = self.namespace_obj()
        return None if ns is None else ((ns.get("metadata") or {}).get("labels") or {})

    def equivalents(self) -> list[GVR]:
        return self._view.equivalents(self._a)


def admit(view: PolicyView, a: Attributes) -> Outcome:
    """Run every ValidatingAdmissionPolicy on the request ``a``."""
    with authz.authorizing(view.authorizer()):
        return _admit(view, a)


def _admit(view: PolicyView, a: Attributes) -> Outcome:
    out = Outcome()
    if (a.group, a.resource) in EXCLUDED:
        return out
    bindings = bindings_by_policy(view)
    if not bindings:
        return out
    denials: list[_Denial] = []
    failures: list[dict[str, Any]] = []
    lookups = RequestLookups(view, a)
    namespace_obj, ns_labels, equivalents = lookups.namespace_obj, lookups.ns_labels, lookups.equivalents

    # Upstream walks a map of policies (and lists bindings from an informer): its order is not defined. Here by
    # name, so that which of several denials is reported does not change from run to run.
    for policy in sorted(view.policies(), key=_name):
        name = _name(policy)
        if name not in bindings:
            continue
        spec = policy.get("spec") or {}
        fail = spec.get("failurePolicy") != "Ignore"
        matched = matches(spec.get("matchConstraints"), a, ns_labels, equivalents)
        if matched is None:
            continue
        namespaced: bool | None = None
        param_kind = spec.get("paramKind")
        if param_kind is not None:
            namespaced = view.param_kind(str(param_kind.get("apiVersion") or ""), str(param_kind.get("kind") or ""))
            if namespaced is None:
                if fail:
                    text = _gvk_text(str(param_kind.get("apiVersion") or ""), str(param_kind.get("kind") or ""))
                    denials.append(_Denial(name, None, "failed to configure policy: failed to find resource "
                                                       f"referenced by paramKind: '{text}'"))
                continue
        compiled = _compiled(policy)
        collected: dict[str, list[str]] = {}
        for binding in sorted(bindings[name], key=_name):
            bname = _name(binding)
            bspec = binding.get("spec") or {}
            if bspec.get("matchResources") is not None and matches(bspec["matchResources"], a, ns_labels,
                                                                   equivalents) is None:
                continue
            try:
                params = _collect_params(view, spec, binding, a.namespace, namespaced)
            except ConfigError as exc:
                if fail:
                    denials.append(_Denial(name, bname, f"failed to configure binding: {exc}"))
                continue
            actions = list(bspec.get("validationActions") or [])
            base = _activation(a, matched, namespace_obj(), view)
            for param in params:
                data = dict(base)
                if param_kind is not None:
                    data["params"] = param
                result = _validate(compiled, fail, data)
                for index, message, reason, _is_error in result.decisions:
                    for action in actions:
                        if action == "Deny":
                            denials.append(_Denial(name, bname, message, reason))
                        elif action == "Audit":
                            failures.append({"message": message, "policy": str(bspec.get("policyName")),
                                             "binding": bname, "expressionIndex": index,
                                             "validationActions": actions})
                        elif action == "Warn":
                            out.warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{name}' with "
                                                f"binding '{bname}': {message}")
                for key, value, err in result.annotations:
                    if value is not None:
                        values = collected.setdefault(key, [])
                        value = value[:_MAX_ANNOTATION]
                        if value not in values:
                            values.append(value)
                    else:
                        denials.append(_Denial(name, bname, err))
        for key, values in collected.items():
            out.annotations[f"{name}/{key}"] = ", ".join(values)
    if failures:
        out.annotations[FAILURE_KEY] = _go_json(failures[:_MAX_FAILURES])
    if denials:
        out.error = _refusal(a, denials[0])
    return out


def _go_json(value: Any) -> str:
    """encoding/json Marshal: compact, UTF-8, with <, > and & escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _activation(a: Attributes, gvr: GVR, ns: dict[str, Any] | None, view: PolicyView) -> dict[str, Any]:
    # dispatcher.go: a Namespace is its own namespace (a.GetNamespace()), which the plugin unsets.
    if a.group == "" and a.resource == "namespaces":
        ns = None
    if a.kind_group_version is not None:  # a subresource of a kind of its own (Scale): the same in every version
        kind: tuple[str, str, str] = (*a.kind_group_version, a.kind)
    else:
        kind = (gvr[0], gvr[1], view.kind_for(gvr))
    user = a.user
    authorizer = authz.authorizer_value(user.name, tuple(user.groups), user.uid,
                                        {k: list(v) for k, v in user.extra.items()})
    return {"object": a.obj, "oldObject": a.old,
            "request": request_value(a, gvr, kind),
            "namespaceObject": namespace_value(ns), "authorizer": authorizer,
            "authorizer.requestResource": authz.resource_check_value(authorizer, a.group, a.resource, a.subresource,
                                                                     a.namespace, a.name)}


def _refusal(a: Attributes, d: _Denial) -> errors.ApiError:
    """admission.NewForbidden with the decision's reason and code, and the message as a cause."""
    if d.binding is not None:
        message = f"ValidatingAdmissionPolicy '{d.policy}' with binding '{d.binding}' denied request: {d.message}"
    else:
        message = f"ValidatingAdmissionPolicy '{d.policy}' denied request: {d.message}"
    name = a.object_name()
    resource = errors.qualified(a.resource, a.group)
    reason = d.reason or "Invalid"
    text = f"{resource} {go_quote(name)} is forbidden: {message}"
    return errors.ApiError(_REASON_CODES.get(reason, 422), reason, text,
                           {"name": name, "group": a.group, "kind": a.resource, "causes": [{"message": message}]})

