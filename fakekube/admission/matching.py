"""Which requests a policy's ``matchConstraints`` (or a binding's ``matchResources``) select.

After k8s.io/apiserver ``pkg/admission/plugin/policy/matching/matching.go`` and the webhook predicates it
uses (``pkg/admission/plugin/webhook/predicates/{rules,namespace,object}``), v0.37.2: the namespace selector
(cluster-scoped requests other than namespaces always pass it), the object selector (on the object or the old
object), the excluded rules, then the resource rules — exactly, then, with ``matchPolicy: Equivalent``, through
the other versions of the same resource the server serves (the matched version is what ``request.resource``
shows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fakekube.admission.attributes import Attributes
from fakekube.selectors import LabelSelector

GVR = tuple[str, str, str]


def _exact_or_wildcard(items: Any, requested: str) -> bool:
    return any(item in ("*", requested) for item in items or ())


def _rule_matches(rule: dict[str, Any], a: Attributes, gvr: GVR) -> bool:
    scope = rule.get("scope") or "*"
    is_namespace = gvr == ("", "v1", "namespaces")
    if scope == "Namespaced" and (is_namespace or not a.namespace):
        return False
    if scope == "Cluster" and not (is_namespace or not a.namespace):
        return False
    if scope not in ("*", "Namespaced", "Cluster"):
        return False
    if not any(op in ("*", a.operation) for op in rule.get("operations") or ()):
        return False
    if not _exact_or_wildcard(rule.get("apiGroups"), gvr[0]) or not _exact_or_wildcard(rule.get("apiVersions"),
                                                                                        gvr[1]):
        return False
    for text in rule.get("resources") or ():
        res, _, sub = str(text).partition("/")
        if res in ("*", gvr[2]) and sub in ("*", a.subresource):
            return True
    return False


def _named(rule: dict[str, Any], a: Attributes) -> bool:
    names = rule.get("resourceNames") or []
    return not names or a.name in names


def _rules_match(rules: Any, policy: str, a: Attributes, equivalents: Iterable[GVR]) -> GVR | None:
    request = (a.group, a.version, a.resource)
    for rule in rules or ():
        if isinstance(rule, dict) and _rule_matches(rule, a, request) and _named(rule, a):
            return request
    if policy != "Equivalent":
        return None
    for rule in rules or ():
        if not isinstance(rule, dict):
            continue
        for gvr in equivalents:
            if gvr != request and _rule_matches(rule, a, gvr) and _named(rule, a):
                return gvr
    return None


def _labels(obj: dict[str, Any] | None) -> dict[str, str] | None:
    if obj is None:
        return None
    return (obj.get("metadata") or {}).get("labels") or {}


def matches(match: dict[str, Any] | None, a: Attributes, namespace_labels: Callable[[], dict[str, str] | None],
            equivalents: Callable[[], list[GVR]]) -> GVR | None:
    """The resource the request matched as (its own, or an equivalent one), or None when it does not match.
    ``namespace_labels``: the request's namespace's labels (None: no such namespace, which matches no
    selector but the empty one)."""
    match = match or {}
    ns_selector = LabelSelector.from_dict(match.get("namespaceSelector") or {})
    if not ns_selector.empty and (a.namespace or a.resource == "namespaces"):
        if a.resource == "namespaces" and a.group == "":
            labels = _labels(a.obj if a.obj is not None else a.old)
        else:
            labels = namespace_labels()
        if not ns_selector.matches(labels or {}):
            return None
    obj_selector = LabelSelector.from_dict(match.get("objectSelector") or {})
    if not obj_selector.empty:
        candidates = [labels for labels in (_labels(a.obj), _labels(a.old)) if labels is not None]
        if not any(obj_selector.matches(labels) for labels in candidates):
            return None
    policy = str(match.get("matchPolicy") or "Equivalent")
    others = _Lazy(equivalents)
    if _rules_match(match.get("excludeResourceRules"), policy, a, others) is not None:
        return None
    rules = match.get("resourceRules")
    if not rules:
        return (a.group, a.version, a.resource)
    return _rules_match(rules, policy, a, others)


class _Lazy:
    """The equivalent resources, looked up only when a rule did not match exactly."""

    def __init__(self, source: Callable[[], list[GVR]]) -> None:
        self._source = source
        self._items: list[GVR] | None = None

    def __iter__(self):  # type: ignore[no-untyped-def]
        if self._items is None:
            self._items = self._source()
        return iter(self._items)
