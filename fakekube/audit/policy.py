"""Audit policy: which requests are logged, at which level, at which stages — audit.k8s.io/v1 ``Policy``.

A policy file is the one kube-apiserver takes with ``--audit-policy-file`` (YAML or JSON, ``apiVersion:
audit.k8s.io/v1`` or ``v1beta1``, ``kind: Policy``). Rules are tried in order and the first that matches
decides; no match means level ``None`` (not logged). Matching follows apiserver ``pkg/audit/policy/checker.go``
(kubernetes/kubernetes @ 05c351a9, staging/src/k8s.io/apiserver): ``users`` by name, ``userGroups`` by any group,
``verbs``; ``resources`` (group, ``resources`` with ``*``, ``pods/*``, ``*/scale``, ``pods/log``, and
``resourceNames``) and ``namespaces`` (``""`` for cluster-scoped) only for resource requests;
``nonResourceURLs`` (exact, ``*``, or a trailing ``*`` prefix) only for others; ``omitStages`` of the policy and
of the rule are both omitted; ``omitManagedFields`` (the rule's, else the policy's) drops
``metadata.managedFields`` from logged bodies.

Levels: ``None`` < ``Metadata`` (who, what, when, the result) < ``Request`` (and the request body) <
``RequestResponse`` (and the response body) — pkg/apis/audit/v1/types.go.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from fakekube.audit.event import string_list

if TYPE_CHECKING:
    from fakekube.audit.entry import AuditEntry

LEVELS = ("None", "Metadata", "Request", "RequestResponse")
STAGES = ("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
RANK = {level: i for i, level in enumerate(LEVELS)}
API_VERSIONS = ("audit.k8s.io/v1", "audit.k8s.io/v1beta1")


class PolicyError(ValueError):
    """A policy file that kube-apiserver would refuse; the message names the field."""


def _strings(value: Any, where: str) -> tuple[str, ...]:
    return string_list(value, where, PolicyError)


def _stages(value: Any, where: str) -> frozenset[str]:
    stages = _strings(value, where)
    for stage in stages:
        if stage not in STAGES:
            raise PolicyError(f"{where}: unknown stage {stage!r} (one of {', '.join(STAGES)})")
    return frozenset(stages)


@dataclass(frozen=True, slots=True)
class GroupResources:
    group: str = ""
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()

    def matches(self, group: str, resource: str, subresource: str, name: str) -> bool:
        if self.group != group:
            return False
        if not self.resources:
            return True
        combined = f"{resource}/{subresource}" if subresource else resource
        if self.resource_names and name not in self.resource_names:
            return False
        for res in self.resources:
            if res in (combined, "*"):
                return True
            if subresource and res.startswith("*/") and res[2:] == subresource:
                return True
            if res.endswith("/*") and res[:-2] == resource:
                return True
        return False


@dataclass(frozen=True, slots=True)
class PolicyRule:
    level: str
    users: tuple[str, ...] = ()
    user_groups: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    resources: tuple[GroupResources, ...] = ()
    namespaces: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()
    omit_stages: frozenset[str] = frozenset()
    omit_managed_fields: bool | None = None

    def matches(self, user: str, groups: Iterable[str], verb: str, resource_request: bool, group: str,
                resource: str, subresource: str, namespace: str, name: str, path: str) -> bool:
        if self.users and user not in self.users:
            return False
        if self.user_groups and not any(g in self.user_groups for g in groups):
            return False
        if self.verbs and verb not in self.verbs:
            return False
        if self.namespaces or self.resources:
            if not resource_request:
                return False
            if self.namespaces and namespace not in self.namespaces:
                return False
            return not self.resources or any(gr.matches(group, resource, subresource, name)
                                             for gr in self.resources)
        if self.non_resource_urls:
            return not resource_request and any(_path_matches(path, spec) for spec in self.non_resource_urls)
        return True


def _path_matches(path: str, spec: str) -> bool:
    return spec in ("*", path) or (spec.endswith("*") and path.startswith(spec.rstrip("*")))


def _rule(data: Any, where: str) -> PolicyRule:
    if not isinstance(data, dict):
        raise PolicyError(f"{where}: must be an object")
    level = data.get("level")
    if level not in LEVELS:
        raise PolicyError(f"{where}.level: must be one of {', '.join(LEVELS)}, not {level!r}")
    resources = []
    raw_resources = data.get("resources") or []
    if not isinstance(raw_resources, list):
        raise PolicyError(f"{where}.resources: must be a list")
    for i, gr in enumerate(raw_resources):
        at = f"{where}.resources[{i}]"
        if not isinstance(gr, dict):
            raise PolicyError(f"{at}: must be an object")
        group = gr.get("group", "")
        if not isinstance(group, str):
            raise PolicyError(f"{at}.group: must be a string")
        names = _strings(gr.get("resourceNames"), f"{at}.resourceNames")
        kinds = _strings(gr.get("resources"), f"{at}.resources")
        if names and not kinds:
            raise PolicyError(f"{at}.resourceNames: requires resources")
        resources.append(GroupResources(group, kinds, names))
    urls = _strings(data.get("nonResourceURLs"), f"{where}.nonResourceURLs")
    namespaces = _strings(data.get("namespaces"), f"{where}.namespaces")
    if urls and (resources or namespaces):
        raise PolicyError(f"{where}: rules can apply to API resources or non-resource URLs, but not both")
    for url in urls:
        if not url.startswith("/") and url != "*":
            raise PolicyError(f"{where}.nonResourceURLs: {url!r} must start with '/'")
    omit_managed = data.get("omitManagedFields")
    if omit_managed is not None and not isinstance(omit_managed, bool):
        raise PolicyError(f"{where}.omitManagedFields: must be a boolean")
    return PolicyRule(level=level, users=_strings(data.get("users"), f"{where}.users"),
                      user_groups=_strings(data.get("userGroups"), f"{where}.userGroups"),
                      verbs=_strings(data.get("verbs"), f"{where}.verbs"), resources=tuple(resources),
                      namespaces=namespaces, non_resource_urls=urls,
                      omit_stages=_stages(data.get("omitStages"), f"{where}.omitStages"),
                      omit_managed_fields=omit_managed)


@dataclass(frozen=True, slots=True)
class Decision:
    level: str
    omit_stages: frozenset[str]
    omit_managed_fields: bool


class Policy:
    """An audit policy; ``Policy.level("Metadata")`` is a one-rule policy for every request."""

    def __init__(self, rules: Iterable[PolicyRule], *, omit_stages: Iterable[str] = (),
                 omit_managed_fields: bool = False) -> None:
        self.rules = tuple(rules)
        self.omit_stages = frozenset(omit_stages)
        self.omit_managed_fields = omit_managed_fields

    @classmethod
    def level(cls, level: str, *, omit_stages: Iterable[str] = ("RequestReceived",)) -> Policy:
        """Every request at ``level``; RequestReceived left out by default, as most clusters' policies do."""
        if level not in LEVELS:
            raise PolicyError(f"audit level must be one of {', '.join(LEVELS)}, not {level!r}")
        stages = _stages(list(omit_stages), "omitStages")
        return cls([PolicyRule(level=level)], omit_stages=stages)

    @classmethod
    def from_dict(cls, data: Any) -> Policy:
        if not isinstance(data, dict):
            raise PolicyError("an audit policy must be an object")
        if data.get("kind") != "Policy":
            raise PolicyError(f"kind must be Policy, not {data.get('kind')!r}")
        if data.get("apiVersion") not in API_VERSIONS:
            raise PolicyError(f"apiVersion must be one of {', '.join(API_VERSIONS)}, not {data.get('apiVersion')!r}")
        rules = data.get("rules")
        if not isinstance(rules, list) or not rules:
            raise PolicyError("rules: a policy needs at least one rule")
        omit_managed = data.get("omitManagedFields", False)
        if not isinstance(omit_managed, bool):
            raise PolicyError("omitManagedFields: must be a boolean")
        return cls([_rule(r, f"rules[{i}]") for i, r in enumerate(rules)],
                   omit_stages=_stages(data.get("omitStages"), "omitStages"), omit_managed_fields=omit_managed)

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        """Read a policy file (YAML or JSON)."""
        try:
            data = yaml.safe_load(Path(path).read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise PolicyError(f"{path}: {exc}") from None
        try:
            return cls.from_dict(data)
        except PolicyError as exc:
            raise PolicyError(f"{path}: {exc}") from None

    def decide(self, entry: AuditEntry) -> Decision:
        """The level, omitted stages and managed-fields choice for one request."""
        request = entry.request
        user = request.user if request is not None and request.user else entry.actor
        groups = request.groups if request is not None else ()
        non_resource = request is not None and request.non_resource
        path = (request.uri.split("?", 1)[0] if request is not None else "")
        # The name the URL carries: none for a create on the collection (checker.go sees attrs.GetName()).
        name = "" if entry.verb == "create" and not entry.subresource else (entry.name or "")
        for rule in self.rules:
            if rule.matches(user, groups, entry.verb, not non_resource, entry.group, entry.resource,
                            entry.subresource or "", entry.namespace or "", name, path):
                omit_managed = (rule.omit_managed_fields if rule.omit_managed_fields is not None
                                else self.omit_managed_fields)
                return Decision(rule.level, self.omit_stages | rule.omit_stages, omit_managed)
        return Decision("None", self.omit_stages, self.omit_managed_fields)

    def level_of(self, entry: AuditEntry) -> str:
        return self.decide(entry).level
