"""Audit policy: rule matching as apiserver pkg/audit/policy/checker.go does it, and policy files."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakekube.audit import AuditEntry
from fakekube.audit.context import AuditRequest
from fakekube.audit.policy import Policy, PolicyError

# A policy in the shape of the upstream docs' example (kubernetes.io "Auditing", audit-policy.yaml).
POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: RequestResponse
    resources:
    - group: ""
      resources: ["pods"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["pods/log", "pods/status"]
  - level: None
    resources:
    - group: ""
      resources: ["configmaps"]
      resourceNames: ["controller-leader"]
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: None
    userGroups: ["system:authenticated"]
    nonResourceURLs: ["/api*", "/version"]
  - level: Request
    resources:
    - group: ""
      resources: ["configmaps"]
    namespaces: ["kube-system"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["secrets", "configmaps"]
  - level: Request
    resources:
    - group: ""
    - group: "extensions"
    - group: "apps"
      resources: ["deployments/*"]
    omitStages: ["ResponseComplete"]
  - level: Metadata
    omitStages: ["RequestReceived"]
"""


def _entry(verb: str, resource: str, name: str | None = None, *, group: str = "", namespace: str | None = "ns",
           subresource: str | None = None, user: str = "alice", groups: tuple[str, ...] = (),
           uri: str = "") -> AuditEntry:
    request = AuditRequest(uri=uri, user=user, groups=groups, non_resource=not resource)
    return AuditEntry(seq=1, time=0.0, actor=user, verb=verb, group=group, resource=resource, namespace=namespace,
                      name=name, subresource=subresource, request=request)


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    return Policy.load(path)


@pytest.mark.parametrize(("entry", "level"), [
    (_entry("get", "pods", "p"), "RequestResponse"),
    (_entry("get", "pods", "p", subresource="log"), "Metadata"),
    (_entry("update", "pods", "p", subresource="status"), "Metadata"),
    (_entry("update", "configmaps", "controller-leader"), "None"),
    (_entry("update", "configmaps", "other", namespace="kube-system"), "Request"),
    (_entry("update", "configmaps", "other", namespace="default"), "Metadata"),
    (_entry("watch", "endpoints", user="system:kube-proxy"), "None"),
    (_entry("get", "", uri="/apis/apps", groups=("system:authenticated",)), "None"),
    (_entry("get", "", uri="/version", groups=("system:authenticated",)), "None"),
    (_entry("get", "", uri="/healthz", groups=("system:authenticated",)), "Metadata"),
    (_entry("get", "", uri="/version"), "Metadata"),           # not in the group: the rule does not apply
    (_entry("get", "services", "s"), "Request"),               # group "" with no resources: every core resource
    (_entry("update", "deployments", "d", group="apps", subresource="scale"), "Request"),
    (_entry("update", "deployments", "d", group="apps"), "Request"),  # "deployments/*" also matches the resource
    (_entry("get", "widgets", "w", group="example.com"), "Metadata"),
])
def test_the_first_matching_rule_decides(policy: Policy, entry: AuditEntry, level: str) -> None:
    assert policy.level_of(entry) == level


def test_stages_are_the_union_of_the_policys_and_the_rules(policy: Policy) -> None:
    decision = policy.decide(_entry("get", "services", "s"))
    assert decision.omit_stages == {"RequestReceived", "ResponseComplete"}
    assert policy.decide(_entry("get", "pods", "p")).omit_stages == {"RequestReceived"}


def test_resource_names_do_not_match_a_create_on_the_collection() -> None:
    policy = Policy.from_dict({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "rules": [
        {"level": "None", "resources": [{"group": "", "resources": ["configmaps"], "resourceNames": ["c"]}]},
        {"level": "Metadata"}]})
    assert policy.level_of(_entry("update", "configmaps", "c")) == "None"
    assert policy.level_of(_entry("create", "configmaps", "c")) == "Metadata"  # the URL names no object


def test_no_rule_means_none() -> None:
    policy = Policy.from_dict({"apiVersion": "audit.k8s.io/v1beta1", "kind": "Policy",
                               "rules": [{"level": "Metadata", "verbs": ["get"]}]})
    assert policy.level_of(_entry("list", "pods")) == "None"


@pytest.mark.parametrize(("document", "message"), [
    ({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "rules": [{"level": "Everything"}]}, "rules[0].level"),
    ({"apiVersion": "audit.k8s.io/v2", "kind": "Policy", "rules": [{"level": "None"}]}, "apiVersion"),
    ({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "rules": []}, "at least one rule"),
    ({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitStages": ["Sometimes"], "rules": [{"level": "None"}]},
     "unknown stage"),
    ({"apiVersion": "audit.k8s.io/v1", "kind": "Policy",
      "rules": [{"level": "None", "nonResourceURLs": ["/x"], "resources": [{"group": ""}]}]}, "but not both"),
    ({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "rules": [{"level": "None", "verbs": "get"}]},
     "rules[0].verbs"),
])
def test_bad_policies_are_refused_with_the_field_named(document: dict, message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Policy.from_dict(document)


def test_a_policy_file_that_is_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("rules: [")
    with pytest.raises(PolicyError, match=str(path)):
        Policy.load(path)
