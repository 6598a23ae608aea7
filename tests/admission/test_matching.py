"""fakekube.admission.matching against cases of k8s.io/apiserver's rule matcher tests
(``pkg/admission/plugin/webhook/predicates/rules/rules_test.go``, v0.37.2) and matching.go's behaviour."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.admission.attributes import Attributes
from fakekube.admission.matching import matches
from fakekube.identity import UserInfo


def attrs(group: str = "apps", version: str = "v1", resource: str = "deployments", subresource: str = "",
          operation: str = "CREATE", namespace: str = "ns", name: str = "d",
          labels: dict[str, str] | None = None, old_labels: dict[str, str] | None = None) -> Attributes:
    obj = {"metadata": {"name": name, "labels": labels or {}}}
    old = {"metadata": {"name": name, "labels": old_labels}} if old_labels is not None else None
    return Attributes(operation, group, version, resource, "Deployment", subresource, namespace, name,
                      obj, old, UserInfo("u"))


def rule(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "operations": ["*"]}
    return {**base, **fields}


def matched(match: dict[str, Any], a: Attributes, ns_labels: dict[str, str] | None = None,
            equivalents: list[tuple[str, str, str]] | None = None) -> Any:
    return matches(match, a, lambda: ns_labels or {}, lambda: equivalents or [])


@pytest.mark.parametrize(("resources", "subresource", "expected"), [
    (["deployments"], "", True),
    (["deployments"], "status", False),         # a bare resource does not match its subresources
    (["deployments/status"], "status", True),
    (["deployments/*"], "scale", True),
    (["deployments/*"], "", True),              # "r/*" is the resource and all its subresources
    (["*/status"], "status", True),
    (["*/status"], "", False),
    (["*"], "status", False),
    (["*/*"], "status", True),
])
def test_resources_and_subresources(resources: list[str], subresource: str, expected: bool) -> None:
    got = matched({"resourceRules": [rule(resources=resources)]}, attrs(subresource=subresource))
    assert (got is not None) is expected


@pytest.mark.parametrize(("scope", "namespace", "resource", "expected"), [
    ("*", "", "deployments", True),
    ("Namespaced", "ns", "deployments", True),
    ("Namespaced", "", "nodes", False),
    ("Namespaced", "", "namespaces", False),    # a namespace is cluster-scoped, whatever its own namespace
    ("Cluster", "", "nodes", True),
    ("Cluster", "ns", "deployments", False),
    ("Cluster", "ns", "namespaces", True),
])
def test_scope(scope: str, namespace: str, resource: str, expected: bool) -> None:
    a = attrs(group="" if resource != "deployments" else "apps", resource=resource, namespace=namespace)
    assert (matched({"resourceRules": [rule(scope=scope)]}, a) is not None) is expected


def test_operations_groups_versions_and_names() -> None:
    assert matched({"resourceRules": [rule(operations=["UPDATE"])]}, attrs()) is None
    assert matched({"resourceRules": [rule(apiGroups=[""])]}, attrs()) is None
    assert matched({"resourceRules": [rule(apiVersions=["v1beta1"])]}, attrs()) is None
    assert matched({"resourceRules": [rule(resourceNames=["other"])]}, attrs()) is None
    assert matched({"resourceRules": [rule(resourceNames=["d"])]}, attrs()) == ("apps", "v1", "deployments")


def test_exclusions_win() -> None:
    match = {"resourceRules": [rule()], "excludeResourceRules": [rule(resourceNames=["d"])]}
    assert matched(match, attrs()) is None
    assert matched(match, attrs(name="e")) is not None


def test_equivalent_versions_match_only_with_equivalent_policy() -> None:
    # The rule names v1beta1; the request is v1 of the same resource, which the server also serves as v1beta1.
    match = {"resourceRules": [rule(apiVersions=["v1beta1"])], "matchPolicy": "Equivalent"}
    equivalents = [("apps", "v1", "deployments"), ("apps", "v1beta1", "deployments")]
    assert matched(match, attrs(), equivalents=equivalents) == ("apps", "v1beta1", "deployments")
    assert matched({**match, "matchPolicy": "Exact"}, attrs(), equivalents=equivalents) is None


def test_selectors() -> None:
    by_ns = {"namespaceSelector": {"matchLabels": {"env": "prod"}}}
    assert matched(by_ns, attrs(), {"env": "prod"}) is not None
    assert matched(by_ns, attrs(), {"env": "dev"}) is None
    assert matched(by_ns, attrs(namespace=""), {}) is not None  # cluster-scoped: the selector does not apply
    by_object = {"objectSelector": {"matchLabels": {"app": "x"}}}
    assert matched(by_object, attrs(labels={"app": "x"})) is not None
    assert matched(by_object, attrs(labels={}, old_labels={"app": "x"})) is not None  # the old object counts
    assert matched(by_object, attrs(labels={})) is None
