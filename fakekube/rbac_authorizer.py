"""kube-apiserver's ``--authorization-mode=RBAC``, over the store's own Roles, ClusterRoles and bindings.

Semantics from kubernetes v1.37.2:

- the union kube-apiserver builds (``pkg/kubeapiserver/authorizer/reload.go``): members of ``system:masters``
  are allowed everything first, with no reason (``authorizerfactory.NewPrivilegedGroups``), then RBAC;
- RBAC (``plugin/pkg/auth/authorizer/rbac/rbac.go``): every ClusterRoleBinding, then every RoleBinding of the
  request's namespace, whose subjects name the user (``User`` by name, ``Group`` by membership,
  ``ServiceAccount`` as ``system:serviceaccount:<namespace>:<name>``, its namespace defaulting to the
  binding's), each rule of the role it refers to checked with ``RuleAllows``; the first rule that allows
  gives the reason ``RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "g"``
  (``pkg/registry/rbac/validation/rule.go``, ``describeSubject``); no rule is "no opinion", whose reason
  lists the roles a binding refers to that do not exist;
- ``RuleAllows`` (``pkg/apis/rbac/v1/evaluation_helpers.go``): ``*`` or the verb, ``*`` or the group, ``*``,
  the resource, ``resource/subresource`` or ``*/subresource``, no resourceNames or the name; non-resource
  URLs match exactly, by ``*``, or by a prefix ending in ``*``;
- ``RulesFor`` (SelfSubjectRulesReview): the same rules in the same walk, a rule with resources listed once
  as a resource rule and a rule with URLs once as a non-resource rule; never incomplete.

Roles whose ``rules`` are null (the aggregated ``admin``/``edit``/``view`` before the aggregation controller
fills them) grant nothing, as on the real server.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from fakekube.identity import RequestAttributes, UserInfo

GROUP = "rbac.authorization.k8s.io"
PRIVILEGED_GROUP = "system:masters"  # user.SystemPrivilegedGroup
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"

Rule = dict[str, Any]


class StoredObjects(Protocol):
    """What the authorizer reads of a store: its objects as stored, without audit or copies."""

    def objects_of(self, storage: str) -> list[tuple[tuple[str, str], dict[str, Any]]]: ...

    def stored_object(self, storage: str, key: tuple[str, str]) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class RulesReview:
    """What ``RulesFor`` answers: ``status`` of a SelfSubjectRulesReview, as Go writes it."""

    resource_rules: list[Rule] = field(default_factory=list)
    non_resource_rules: list[Rule] = field(default_factory=list)
    evaluation_error: str = ""

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"resourceRules": self.resource_rules, "nonResourceRules": self.non_resource_rules,
                               "incomplete": False}
        if self.evaluation_error:
            out["evaluationError"] = self.evaluation_error
        return out


class RBACAuthorizer:
    """Callable as a fakekube ``Authorizer`` (True allows); ``decide`` also gives the reason a
    SubjectAccessReview reports, ``rules_for`` what a SelfSubjectRulesReview lists."""

    def __init__(self, store: StoredObjects, privileged_groups: tuple[str, ...] = (PRIVILEGED_GROUP,)) -> None:
        self.store = store
        self.privileged_groups = privileged_groups

    def __call__(self, attrs: RequestAttributes) -> bool:
        return self.decide(attrs)[0]

    def decide(self, attrs: RequestAttributes) -> tuple[bool, str]:
        """(allowed, reason)."""
        if any(group in self.privileged_groups for group in attrs.groups):
            return True, ""
        missing: list[str] = []
        for source, rules in self._bound_rules(attrs.user, attrs.groups, attrs.namespace or "", missing):
            if any(rule_allows(attrs, rule) for rule in rules):
                return True, f"RBAC: allowed by {source}"
        return False, _aggregate(missing)

    def rules_for(self, user: UserInfo, namespace: str) -> RulesReview:
        review = RulesReview()
        missing: list[str] = []
        for _, rules in self._bound_rules(user.name, user.groups, namespace, missing):
            for rule in rules:
                if rule.get("resources"):
                    review.resource_rules.append(_compact(rule, ("verbs", "apiGroups", "resources", "resourceNames")))
                if rule.get("nonResourceURLs"):
                    review.non_resource_rules.append(_compact(rule, ("verbs", "nonResourceURLs")))
        return RulesReview(review.resource_rules, review.non_resource_rules, _aggregate(missing, prefix=""))

    def _bound_rules(self, user: str, groups: tuple[str, ...], namespace: str,
                     missing: list[str]) -> Iterator[tuple[str, list[Rule]]]:
        """(the binding's description, its role's rules) for every binding that applies, in RBAC's order."""
        for _, binding in self.store.objects_of(f"{GROUP}/clusterrolebindings"):
            subject = _applying_subject(binding, user, groups, "")
            if subject is not None:
                rules = self._role_rules(binding, "", missing)
                if rules is not None:
                    yield _describe("ClusterRoleBinding", binding, subject, ""), rules
        if not namespace:
            return
        for (ns, _), binding in self.store.objects_of(f"{GROUP}/rolebindings"):
            if ns != namespace:
                continue
            subject = _applying_subject(binding, user, groups, namespace)
            if subject is not None:
                rules = self._role_rules(binding, namespace, missing)
                if rules is not None:
                    yield _describe("RoleBinding", binding, subject, namespace), rules

    def _role_rules(self, binding: dict[str, Any], namespace: str, missing: list[str]) -> list[Rule] | None:
        ref = binding.get("roleRef") or {}
        kind, name = ref.get("kind"), ref.get("name") or ""
        if kind == "Role":
            role = self.store.stored_object(f"{GROUP}/roles", (namespace, name))
        elif kind == "ClusterRole":
            role = self.store.stored_object(f"{GROUP}/clusterroles", ("", name))
        else:
            missing.append(f'unsupported role reference kind: "{kind}"')
            return None
        if role is None:
            missing.append(f'{kind.lower()}.{GROUP} "{name}" not found')
            return None
        return [r for r in role.get("rules") or () if isinstance(r, dict)]


def rule_allows(attrs: RequestAttributes, rule: Rule) -> bool:
    """``RuleAllows``."""
    verbs = rule.get("verbs") or ()
    if not ("*" in verbs or attrs.verb in verbs):
        return False
    if not attrs.resource_request:
        return any(url == "*" or url == attrs.path or (url.endswith("*") and attrs.path.startswith(url.rstrip("*")))
                   for url in rule.get("nonResourceURLs") or ())
    groups = rule.get("apiGroups") or ()
    if not ("*" in groups or attrs.group in groups):
        return False
    combined = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    resources = rule.get("resources") or ()
    if not ("*" in resources or combined in resources
            or (attrs.subresource and f"*/{attrs.subresource}" in resources)):
        return False
    names = rule.get("resourceNames") or ()
    return not names or (attrs.name or "") in names


def _applying_subject(binding: dict[str, Any], user: str, groups: tuple[str, ...],
                      namespace: str) -> dict[str, Any] | None:
    for subject in binding.get("subjects") or ():
        if isinstance(subject, dict) and _applies(subject, user, groups, namespace):
            return subject
    return None


def _applies(subject: dict[str, Any], user: str, groups: tuple[str, ...], namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name") or ""
    if kind == "User":
        return user == name
    if kind == "Group":
        return name in groups
    if kind == "ServiceAccount":
        sa_namespace = subject.get("namespace") or namespace
        return bool(sa_namespace) and user == f"{SERVICE_ACCOUNT_PREFIX}{sa_namespace}:{name}"
    return False


def _describe(kind: str, binding: dict[str, Any], subject: dict[str, Any], namespace: str) -> str:
    meta, ref = binding.get("metadata") or {}, binding.get("roleRef") or {}
    name = meta.get("name", "") + (f"/{namespace}" if kind == "RoleBinding" else "")
    subject_name = subject.get("name") or ""
    if subject.get("kind") == "ServiceAccount":
        subject_name += "/" + (subject.get("namespace") or namespace)
    return f'{kind} "{name}" of {ref.get("kind")} "{ref.get("name")}" to {subject.get("kind")} "{subject_name}"'


def _compact(rule: Rule, keys: tuple[str, ...]) -> Rule:
    return {key: list(rule[key]) for key in keys if rule.get(key)}


def _aggregate(messages: list[str], prefix: str = "RBAC: ") -> str:
    """utilerrors.NewAggregate's text: one message as itself, several as ``[a, b]``."""
    if not messages:
        return ""
    text = messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"
    return prefix + text


