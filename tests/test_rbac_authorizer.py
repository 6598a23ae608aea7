"""fakekube.rbac_authorizer: kube-apiserver's RBAC mode over the store's roles and bindings.

The decisions and reasons are kube-apiserver v1.37.2's (plugin/pkg/auth/authorizer/rbac/rbac.go,
pkg/registry/rbac/validation/rule.go, pkg/apis/rbac/v1/evaluation_helpers.go); the reviews' answers for the
oracle's admin are checked against the real server by the differential corpus (``*accessreview*``,
``selfsubjectrulesreview*``).
"""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.cluster.rbac import bootstrap_rbac
from fakekube.identity import RequestAttributes, UserInfo
from fakekube.rbac_authorizer import RBACAuthorizer, rule_allows
from fakekube.store import Store

RBAC = "rbac.authorization.k8s.io/v1"


def _attrs(verb: str = "get", resource: str = "pods", *, group: str = "", subresource: str | None = None,
           name: str | None = None, namespace: str | None = "team", user: str = "alice",
           groups: tuple[str, ...] = ("dev", "system:authenticated"), path: str = "") -> RequestAttributes:
    return RequestAttributes(user, verb, group, resource, subresource, namespace, name, groups=groups, path=path,
                             resource_request=not path)


@pytest.mark.parametrize(("rule", "attrs", "allowed"), [
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}, _attrs(), True),
    ({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}, _attrs("delete", "deployments", group="apps"), True),
    ({"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}, _attrs(), False),
    ({"verbs": ["get"], "apiGroups": ["apps"], "resources": ["pods"]}, _attrs(), False),
    # a subresource is matched as resource/subresource, or by */subresource, never by the bare resource
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}, _attrs(subresource="log"), False),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods/log"]}, _attrs(subresource="log"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["*/log"]}, _attrs(subresource="log"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["*/status"]}, _attrs(subresource="log"), False),
    # resourceNames restrict to the named objects; a request without a name (a list) is not one of them
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}, _attrs(name="a"), True),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}, _attrs(name="b"), False),
    ({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}, _attrs(), False),
    # non-resource URLs: exact, *, or a prefix ending in *
    ({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, _attrs(path="/healthz"), True),
    ({"verbs": ["get"], "nonResourceURLs": ["/healthz/*"]}, _attrs(path="/healthz/etcd"), True),
    ({"verbs": ["get"], "nonResourceURLs": ["/api"]}, _attrs(path="/apis"), False),
    ({"verbs": ["get"], "nonResourceURLs": ["*"]}, _attrs(path="/metrics"), True),
    # a resource rule never allows a URL, nor a URL rule a resource
    ({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}, _attrs(path="/metrics"), False),
    ({"verbs": ["*"], "nonResourceURLs": ["*"]}, _attrs(), False),
])
def test_rule_allows(rule: dict[str, Any], attrs: RequestAttributes, allowed: bool) -> None:
    assert rule_allows(attrs, rule) is allowed


@pytest.fixture
def kube() -> Store:
    store = Store()
    store.ensure_namespace("team")
    store.create("clusterroles", {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": "pod-reader"},
                                  "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]})
    store.create("roles", {"apiVersion": RBAC, "kind": "Role", "metadata": {"name": "cm-writer"},
                           "rules": [{"verbs": ["create"], "apiGroups": [""], "resources": ["configmaps"]}]},
                 "team")
    return store


def _bind(kube: Store, kind: str, name: str, role_kind: str, role: str, subject: dict[str, Any],
          namespace: str | None = None) -> None:
    kube.create(kind.lower() + "s", {"apiVersion": RBAC, "kind": kind, "metadata": {"name": name},
                                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind,
                                                 "name": role}, "subjects": [subject]}, namespace)


def test_bindings_grant_with_the_reason_rbac_gives(kube: Store) -> None:
    authorizer = RBACAuthorizer(kube)
    assert authorizer.decide(_attrs()) == (False, "")
    _bind(kube, "ClusterRoleBinding", "readers", "ClusterRole", "pod-reader", {"kind": "Group", "name": "dev"})
    assert authorizer.decide(_attrs()) == (
        True, 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "dev"')
    _bind(kube, "RoleBinding", "writers", "Role", "cm-writer",
          {"kind": "ServiceAccount", "name": "builder"}, "team")
    sa = _attrs("create", "configmaps", user="system:serviceaccount:team:builder", groups=())
    assert authorizer.decide(sa) == (
        True, 'RBAC: allowed by RoleBinding "writers/team" of Role "cm-writer" to ServiceAccount "builder/team"')
    # A RoleBinding grants in its own namespace only.
    assert authorizer(_attrs("create", "configmaps", namespace="other", user=sa.user, groups=())) is False


def test_system_masters_is_allowed_before_rbac_and_without_a_reason(kube: Store) -> None:
    assert RBACAuthorizer(kube).decide(_attrs("delete", "nodes", namespace=None, groups=("system:masters",))) == (
        True, "")


def test_a_binding_to_a_missing_role_is_the_reason_of_a_refusal(kube: Store) -> None:
    _bind(kube, "ClusterRoleBinding", "dangling", "ClusterRole", "nope", {"kind": "User", "name": "alice"})
    assert RBACAuthorizer(kube).decide(_attrs()) == (
        False, 'RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found')


def test_reviews_answer_with_rbac(kube: Store) -> None:
    kube.authorizer = RBACAuthorizer(kube)
    _bind(kube, "ClusterRoleBinding", "readers", "ClusterRole", "pod-reader", {"kind": "User", "name": "alice"})
    spec = {"resourceAttributes": {"verb": "list", "resource": "pods", "namespace": "team"}}
    alice = UserInfo("alice", groups=("system:authenticated",))
    answer = kube.create("selfsubjectaccessreviews", {"spec": spec}, user=alice)["status"]
    assert answer == {"allowed": True,
                      "reason": 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to User '
                                '"alice"'}
    bob = kube.create("subjectaccessreviews", {"spec": {**spec, "user": "bob"}}, user=alice)["status"]
    assert bob == {"allowed": False}
    rules = kube.create("selfsubjectrulesreviews", {"spec": {"namespace": "team"}}, user=alice)["status"]
    assert rules == {"resourceRules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}],
                     "nonResourceRules": [], "incomplete": False}


def test_the_bootstrap_policy_grants_what_every_authenticated_user_may_do() -> None:
    kube = Store()
    bootstrap_rbac(kube)
    authorizer = RBACAuthorizer(kube)
    user = ("carol", ("system:authenticated",))
    assert authorizer(_attrs("get", path="/version", user=user[0], groups=user[1]))  # system:public-info-viewer
    assert authorizer(_attrs("get", path="/apis", user=user[0], groups=user[1]))  # system:discovery
    assert not authorizer(_attrs("get", "secrets", user=user[0], groups=user[1]))
    # The aggregated roles are created with rules: null and grant nothing until aggregated.
    _bind(kube, "ClusterRoleBinding", "carol-view", "ClusterRole", "view", {"kind": "User", "name": "carol"})
    assert not authorizer(_attrs("get", "pods", user=user[0], groups=user[1]))


def test_the_http_front_refuses_with_the_reason(kube: Store) -> None:
    from fakekube.server.auth import forbidden

    _bind(kube, "ClusterRoleBinding", "dangling", "ClusterRole", "nope", {"kind": "User", "name": "alice"})
    attrs = _attrs("list")
    allowed, reason = RBACAuthorizer(kube).decide(attrs)
    refusal = forbidden(attrs, reason)
    assert not allowed and isinstance(refusal, errors.Forbidden)
    assert refusal.message == ('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the '
                               'namespace "team": RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found')
