"""Which webhooks a request calls: k8s.io/apiserver ``pkg/admission/plugin/webhook/generic/webhook.go``
``ShouldCallHook``, ``predicates/{rules,namespace,object}`` and ``matchconditions/matcher.go`` (v0.37.2).

A webhook is called when its namespace selector and object selector match (the namespace's labels — a
Namespace's own on its create and update —, the object's or old object's labels), one of its rules matches the
request's operation, group, version, resource/subresource and scope, or, under ``matchPolicy: Equivalent``, the
same resource in another served version does (the webhook then gets the object in that version), and every
match condition (CEL over ``object``, ``oldObject``, ``request``) is true. Configurations are taken in name
order and their webhooks in list order, as the configuration managers sort them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fakekube import errors
from fakekube.selectors import LabelSelector
from fakekube.webhooks.review import Attributes

_EXEMPT_KINDS = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                           "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                           "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"})


@dataclass(frozen=True)
class Hook:
    """One webhook of a configuration; ``uid`` is ``<configuration>/<index>``."""

    configuration: str
    index: int
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or "")

    @property
    def uid(self) -> str:
        return f"{self.configuration}/{self.index}"


@dataclass(frozen=True)
class Invocation:
    """A matched webhook and the (group, version, resource, kind) it sees the request as."""

    hook: Hook
    group: str
    version: str
    resource: str
    kind: str


def hooks_of(configurations: Iterable[dict[str, Any]]) -> list[Hook]:
    out: list[Hook] = []
    for config in sorted(configurations, key=lambda c: str(c["metadata"]["name"])):
        for i, spec in enumerate(config.get("webhooks") or []):
            if isinstance(spec, dict):
                out.append(Hook(str(config["metadata"]["name"]), i, spec))
    return out


def exempt(attr: Attributes) -> bool:
    """Requests for the admission configuration kinds never go to webhooks (rules.IsExemptAdmissionConfigurationResource)."""
    return attr.group == "admissionregistration.k8s.io" and attr.kind in _EXEMPT_KINDS


def _any(items: Any, value: str) -> bool:
    return isinstance(items, list) and any(item == "*" or item == value for item in items)


def rule_matches(rule: dict[str, Any], attr: Attributes, group: str, version: str, resource: str) -> bool:
    scope = rule.get("scope") or "*"
    is_namespace = group == "" and version == "v1" and resource == "namespaces"
    if scope == "Namespaced" and (is_namespace or not attr.namespace):
        return False
    if scope == "Cluster" and not (is_namespace or not attr.namespace):
        return False
    if scope not in ("*", "Namespaced", "Cluster"):
        return False
    if not _any(rule.get("operations"), attr.operation):
        return False
    if not _any(rule.get("apiGroups"), group) or not _any(rule.get("apiVersions"), version):
        return False
    for entry in rule.get("resources") or []:
        res, _, sub = str(entry).partition("/")
        if (res == "*" or res == resource) and (sub == "*" or sub == attr.subresource):
            return True
    return False


def _selector(spec: Any) -> LabelSelector:
    try:
        return LabelSelector.from_dict(spec if spec is not None else {})
    except errors.BadRequest as exc:
        raise errors.InternalError(f"Internal error occurred: {exc.message}", "InternalError") from None


def _labels(obj: dict[str, Any] | None) -> dict[str, str] | None:
    if not isinstance(obj, dict):
        return None
    labels = (obj.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}


def should_call(hook: Hook, attr: Attributes, equivalents: list[tuple[str, str, str, str]],
                namespace_labels: Callable[[str], dict[str, str] | None],
                versioned: Callable[[Invocation], tuple[Any, Any]]) -> Invocation | None:
    """``ShouldCallHook``. ``equivalents``: (group, version, resource, kind) of the request's resource in every
    served version, the request's first; ``namespace_labels``: a namespace's labels (None when it is gone);
    ``versioned``: the (object, old object) an invocation sees."""
    spec = hook.spec
    ns_ok = True
    ns_error: errors.ApiError | None = None
    if attr.namespace or attr.resource == "namespaces":
        ns_selector = _selector(spec.get("namespaceSelector"))
        if ns_selector.requirements:
            if attr.resource == "namespaces" and not attr.subresource and attr.operation in ("CREATE", "UPDATE"):
                labels = _labels(attr.obj) or {}
            else:
                found = namespace_labels(attr.namespace)
                if found is None:
                    ns_error = errors.NotFound("namespaces", "", attr.namespace)
                labels = found or {}
            ns_ok = ns_error is None and ns_selector.matches(labels)
    if not ns_ok and ns_error is None:
        return None
    obj_selector = _selector(spec.get("objectSelector"))
    if obj_selector.requirements:
        new_labels, old_labels = _labels(attr.obj), _labels(attr.old)
        if not ((new_labels is not None and obj_selector.matches(new_labels))
                or (old_labels is not None and obj_selector.matches(old_labels))):
            return None
    rules = [r for r in spec.get("rules") or [] if isinstance(r, dict)]
    invocation: Invocation | None = None
    first = equivalents[0]
    for rule in rules:
        if rule_matches(rule, attr, first[0], first[1], first[2]):
            invocation = Invocation(hook, *first)
            break
    if invocation is None and spec.get("matchPolicy", "Equivalent") == "Equivalent":
        for rule in rules:
            for other in equivalents[1:]:
                if rule_matches(rule, attr, other[0], other[1], other[2]):
                    invocation = Invocation(hook, *other)
                    break
            if invocation is not None:
                break
    if invocation is None:
        return None
    if ns_error is not None:
        raise ns_error
    conditions = spec.get("matchConditions") or []
    if conditions:
        obj, old = versioned(invocation)
        matched, error = match_conditions(conditions, obj, old, attr, invocation)
        if error is not None:
            raise errors.Forbidden(f'{_qualified(attr)} "{attr.name}" is forbidden: {error}',
                                   {"name": attr.name, "group": attr.group, "kind": attr.resource})
        if not matched:
            return None
    return invocation


def _qualified(attr: Attributes) -> str:
    return f"{attr.resource}.{attr.group}" if attr.group else attr.resource


def request_value(attr: Attributes, invocation: Invocation) -> dict[str, Any]:
    """The ``request`` variable of a match condition (the AdmissionRequest without its objects)."""
    value: dict[str, Any] = {
        "kind": {"group": invocation.group, "version": invocation.version, "kind": invocation.kind},
        "resource": {"group": invocation.group, "version": invocation.version, "resource": invocation.resource},
        "subResource": attr.subresource,
        "requestKind": {"group": attr.group, "version": attr.version, "kind": attr.kind},
        "requestResource": {"group": attr.group, "version": attr.version, "resource": attr.resource},
        "requestSubResource": attr.subresource,
        "name": attr.name, "namespace": attr.namespace, "operation": attr.operation,
        "userInfo": {"username": "", "uid": "", "groups": [], "extra": {}, **attr.user.to_json()},
        "dryRun": attr.dry_run, "options": attr.options,
    }
    return value


def match_conditions(conditions: list[Any], obj: Any, old: Any, attr: Attributes,
                     invocation: Invocation) -> tuple[bool, str | None]:
    """``matchconditions.Matcher.Match``: false as soon as one condition is false; otherwise the conditions'
    errors (``expression '<e>' resulted in error: <cel-go's words>``, aggregated) fail the webhook's
    ``failurePolicy``: a 403 under Fail, no call under Ignore."""
    from fakekube.webhooks.conditions import evaluate  # the CEL engine loads only for webhooks that use it

    data = {"object": obj, "oldObject": old, "request": request_value(attr, invocation)}
    problems: list[str] = []
    for condition in conditions:
        if not isinstance(condition, dict):
            continue
        expression = str(condition.get("expression") or "")
        result, problem = evaluate(expression, data)
        if problem is not None:
            problems.append(f"expression '{expression}' resulted in error: {problem}")
            continue
        if result is False:
            return False, None
    if problems:
        if invocation.hook.spec.get("failurePolicy") == "Ignore":
            return False, None
        return False, problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
    return True, None
