"""rbac.authorization.k8s.io/v1 kinds (kubernetes ``pkg/apis/rbac/v1/defaults.go``, ``pkg/apis/rbac/validation/
validation.go``; sources and commits in docs/semantics.md).

Defaults: a binding's ``roleRef.apiGroup`` and a User or Group subject's ``apiGroup`` are
``rbac.authorization.k8s.io``, a ServiceAccount subject's is ``""`` (not written: omitempty). Rules need verbs, and resource rules need
API groups and resources; a binding's ``roleRef`` cannot change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, GoLiteral, invalid, not_supported, required
from fakekube.kinds.checks import go_string_slice, go_struct, mapping, seq
from fakekube.strategies import Strategy

GROUP = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ["ServiceAccount", "User", "Group"]


def _default_subjects(obj: dict[str, Any]) -> None:
    for subject in seq(obj.get("subjects")):
        # A ServiceAccount subject keeps its empty apiGroup, which Go does not write (omitempty).
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = GROUP


def validate_rules(rules: Any, *, namespaced: bool, path: str = "rules") -> list[FieldError]:
    errs: list[FieldError] = []
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        here = f"{path}[{i}]"
        rule = rule if isinstance(rule, dict) else {}
        if not rule.get("verbs"):
            errs.append(required(f"{here}.verbs", "verbs must contain at least one value"))
        urls = rule.get("nonResourceURLs")
        if urls:
            if namespaced:
                errs.append(invalid(f"{here}.nonResourceURLs", go_string_slice(urls),
                                    "namespaced rules cannot apply to non-resource URLs"))
            if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
                errs.append(invalid(f"{here}.nonResourceURLs", go_string_slice(urls),
                                    "rules cannot apply to both regular resources and non-resource URLs"))
            continue
        if not rule.get("apiGroups"):
            errs.append(required(f"{here}.apiGroups", "resource rules must supply at least one api group"))
        if not rule.get("resources"):
            errs.append(required(f"{here}.resources", "resource rules must supply at least one resource"))
    return errs


class RoleStrategy(Strategy):
    namespaced = True

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_rules(obj.get("rules"), namespaced=self.namespaced)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return self.validate(new)


class ClusterRoleStrategy(RoleStrategy):
    namespaced = False


def _role_ref_text(ref: dict[str, Any]) -> GoLiteral:
    """An internal ``rbac.RoleRef`` bad value (``json.Marshal`` of a type without json tags)."""
    return go_struct(("APIGroup", ref.get("apiGroup", "")), ("Kind", ref.get("kind", "")), ("Name", ref.get("name", "")))


class RoleBindingStrategy(Strategy):
    role_kinds = ["Role", "ClusterRole"]
    namespaced = True

    def default(self, obj: dict[str, Any]) -> None:
        ref = obj.get("roleRef")
        if isinstance(ref, dict) and not ref.get("apiGroup"):
            ref["apiGroup"] = GROUP
        _default_subjects(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        ref = mapping(obj.get("roleRef"))
        errs: list[FieldError] = []
        if ref.get("apiGroup") != GROUP:
            errs.append(not_supported("roleRef.apiGroup", ref.get("apiGroup", ""), [GROUP]))
        if ref.get("kind") not in self.role_kinds:
            errs.append(not_supported("roleRef.kind", ref.get("kind", ""), self.role_kinds))
        if not ref.get("name"):
            errs.append(required("roleRef.name", ""))
        for i, subject in enumerate(seq(obj.get("subjects"))):
            errs += _validate_subject(subject if isinstance(subject, dict) else {}, f"subjects[{i}]",
                                      namespaced=self.namespaced)
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        errs = self.validate(new)
        if new.get("roleRef") != old.get("roleRef"):
            errs.append(invalid("roleRef", _role_ref_text(mapping(new.get("roleRef"))), "cannot change roleRef"))
        return errs


class ClusterRoleBindingStrategy(RoleBindingStrategy):
    role_kinds = ["ClusterRole"]
    namespaced = False


def _validate_subject(subject: dict[str, Any], path: str, *, namespaced: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    if not subject.get("name"):
        errs.append(required(f"{path}.name", ""))
    kind, group = subject.get("kind"), subject.get("apiGroup", "")
    if kind == "ServiceAccount":
        if group:
            errs.append(not_supported(f"{path}.apiGroup", group, [""]))
        if not namespaced and not subject.get("namespace"):
            errs.append(required(f"{path}.namespace", ""))
    elif kind in ("User", "Group"):
        if group != GROUP:
            errs.append(not_supported(f"{path}.apiGroup", group, [GROUP]))
    else:
        errs.append(not_supported(f"{path}.kind", kind or "", SUBJECT_KINDS))
    return errs


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Role": RoleStrategy,
    "ClusterRole": ClusterRoleStrategy,
    "RoleBinding": RoleBindingStrategy,
    "ClusterRoleBinding": ClusterRoleBindingStrategy,
}
