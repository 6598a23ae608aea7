"""Impersonation headers over HTTP (fakekube.server.impersonation). Answers observed on kube-apiserver v1.37.2
(ConstrainedImpersonation on; apiserver pkg/endpoints/filters/impersonation/): who may impersonate whom, the
resulting user as a SelfSubjectReview shows it, the 400 and 403 wording, and the audit event."""

from __future__ import annotations

import http.client
import io
import json
import ssl
from typing import Any

import pytest

from fakekube import Store
from fakekube.audit.policy import Policy
from fakekube.identity import UserInfo
from fakekube.rbac_authorizer import RBACAuthorizer
from fakekube.server.app import ApiServer

SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSR_BODY = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
RBAC = "rbac.authorization.k8s.io"


def _send(server: ApiServer, method: str, path: str, headers: list[tuple[str, str]] | dict[str, str],
          body: Any = None) -> tuple[int, dict[str, Any]]:
    context = ssl.create_default_context(cadata=server.ca_pem.decode()) if server.ca_pem is not None else None
    conn = (http.client.HTTPSConnection(server.host, server.port, context=context) if context
            else http.client.HTTPConnection(server.host, server.port))
    data = json.dumps(body).encode() if body is not None else None
    conn.putrequest(method, path)
    pairs = list(headers.items()) if isinstance(headers, dict) else headers
    for name, value in [*pairs, ("Content-Type", "application/json"), ("Content-Length", str(len(data or b"")))]:
        conn.putheader(name, value)  # repeated names go out as repeated header lines
    conn.endheaders(data)
    response = conn.getresponse()
    text = response.read()
    conn.close()
    return response.status, json.loads(text)


def _whoami(server: ApiServer, headers: list[tuple[str, str]] | dict[str, str]) -> tuple[int, dict[str, Any]]:
    status, body = _send(server, "POST", SSR, headers, SSR_BODY)
    return status, body.get("status", {}).get("userInfo", body)


def _bind(store: Store, name: str, subject: str, rules: list[dict[str, Any]]) -> None:
    store.create("clusterroles", {"metadata": {"name": name}, "rules": rules})
    store.create("clusterrolebindings", {
        "metadata": {"name": name}, "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": name},
        "subjects": [{"apiGroup": RBAC, "kind": "User", "name": subject}]})


@pytest.fixture
def rbac() -> Any:
    """RBAC mode with the bootstrap policy's basic-user and discovery grants, and three token users: the admin
    (system:masters), ``operator`` allowed to impersonate only ``alice`` (legacy verb), and ``scoped`` allowed
    ``alice`` through the constrained user-info verbs only."""
    from fakekube.cluster.rbac import bootstrap_rbac

    store = Store()
    bootstrap_rbac(store)
    _bind(store, "impersonate-alice", "operator", [
        {"apiGroups": [""], "resources": ["users"], "resourceNames": ["alice"], "verbs": ["impersonate"]}])
    _bind(store, "scoped-impersonation", "scoped", [
        {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"],
         "verbs": ["impersonate-on:user-info:create"]},
        {"apiGroups": ["authentication.k8s.io"], "resources": ["users"], "resourceNames": ["alice"],
         "verbs": ["impersonate:user-info"]},
        {"apiGroups": ["authentication.k8s.io"], "resources": ["userextras/example.com/team"],
         "verbs": ["impersonate:user-info"]}])
    tokens = {"admin": UserInfo("admin", groups=("system:masters",)), "op": "operator", "sc": "scoped"}
    server = ApiServer(store, tokens=tokens, authorizer=RBACAuthorizer(store)).start()
    try:
        yield server
    finally:
        server.stop()


def _as(token: str, *pairs: tuple[str, str]) -> list[tuple[str, str]]:
    return [("Authorization", f"Bearer {token}"), *pairs]


def test_rbac_user_may_impersonate_the_user_a_role_names_and_no_other(rbac: ApiServer) -> None:
    # Never successful yet: the constrained user-info mode's refusal comes first.
    status, body = _send(rbac, "POST", SSR, _as("op", ("Impersonate-User", "bob")), SSR_BODY)
    assert status == 403
    assert body["message"] == (
        'selfsubjectreviews.authentication.k8s.io is forbidden: User "operator" cannot '
        'impersonate-on:user-info:create resource "selfsubjectreviews" in API group "authentication.k8s.io" '
        "at the cluster scope")
    assert _whoami(rbac, _as("op", ("Impersonate-User", "alice"))) == (
        201, {"username": "alice", "groups": ["system:authenticated"]})
    # Legacy worked last for this requestor, so it is tried first and its refusal is the answer.
    status, body = _send(rbac, "POST", SSR, _as("op", ("Impersonate-User", "bob")), SSR_BODY)
    assert (status, body["message"], body["details"]) == (403, (
        'users "bob" is forbidden: User "operator" cannot impersonate resource "users" in API group "" '
        "at the cluster scope"), {"name": "bob", "kind": "users"})
    status, body = _send(rbac, "POST", SSR, _as("op", ("Impersonate-User", "alice"), ("Impersonate-Group", "g")),
                         SSR_BODY)
    assert (status, body["message"]) == (403, 'groups "g" is forbidden: User "operator" cannot impersonate '
                                               'resource "groups" in API group "" at the cluster scope')
    # The impersonated user is then authorized as itself.
    status, body = _send(rbac, "GET", "/api/v1/namespaces/default/configmaps", _as("op", ("Impersonate-User", "alice")))
    assert (status, body["message"]) == (403, 'configmaps is forbidden: User "alice" cannot list resource '
                                               '"configmaps" in API group "" in the namespace "default"')


def test_constrained_verbs_and_their_refusals(rbac: ApiServer) -> None:
    status, body = _whoami(rbac, _as("sc", ("Impersonate-User", "alice"), ("Impersonate-Extra-example.com%2fteam", "x")))
    assert (status, body) == (201, {"username": "alice", "groups": ["system:authenticated"],
                                    "extra": {"example.com/team": ["x"]}})
    status, body = _send(rbac, "POST", SSR, _as("sc", ("Impersonate-User", "alice"), ("Impersonate-Extra-foo", "x")),
                         SSR_BODY)
    assert (status, body["message"]) == (403, (
        'userextras.authentication.k8s.io is forbidden: User "scoped" cannot impersonate:user-info resource '
        '"userextras" in API group "authentication.k8s.io" at the cluster scope: impersonating an invalid key in '
        'extra is not allowed: extra.key: Invalid value: "foo": must be a domain-prefixed path (such as '
        '"acme.io/foo")'))
    status, body = _send(rbac, "POST", SSR, _as("sc", ("Impersonate-User", "alice"),
                                                ("Impersonate-Group", "system:masters")), SSR_BODY)
    assert body["message"].endswith(": impersonating the system:masters group is not allowed")
    assert body["message"].startswith('groups.authentication.k8s.io "system:masters" is forbidden: User "scoped"')
    status, body = _send(rbac, "POST", SSR, _as("sc", ("Impersonate-User", "bob")), SSR_BODY)
    assert body["message"] == ('users.authentication.k8s.io "bob" is forbidden: User "scoped" cannot '
                               'impersonate:user-info resource "users" in API group "authentication.k8s.io" at the '
                               "cluster scope")


def test_masters_impersonate_anyone_and_the_user_gets_upstreams_groups(rbac: ApiServer) -> None:
    admin = ("Authorization", "Bearer admin")
    assert _whoami(rbac, [admin, ("Impersonate-User", "bob"), ("Impersonate-Group", "g1"),
                          ("Impersonate-Group", "g2"), ("Impersonate-Uid", "u-1"),
                          ("Impersonate-Extra-Example.com%2fTeam", "a"), ("impersonate-extra-example.com%2fteam", "b")]
                   ) == (201, {"username": "bob", "uid": "u-1", "groups": ["g1", "g2", "system:authenticated"],
                               "extra": {"example.com/team": ["a", "b"]}})
    assert _whoami(rbac, [admin, ("Impersonate-User", "system:serviceaccount:ns1:default")]) == (201, {
        "username": "system:serviceaccount:ns1:default",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"]})
    assert _whoami(rbac, [admin, ("Impersonate-User", "system:serviceaccount:ns1:default"),
                          ("Impersonate-Group", "g")]) == (
        201, {"username": "system:serviceaccount:ns1:default", "groups": ["g", "system:authenticated"]})
    # system:unauthenticated asked for: not authenticated, so not even system:basic-user's self review
    status, body = _send(rbac, "POST", SSR, [admin, ("Impersonate-User", "bob"),
                                             ("Impersonate-Group", "system:unauthenticated")], SSR_BODY)
    assert status == 403 and 'User "bob" cannot create resource "selfsubjectreviews"' in body["message"]
    # user + system:masters: refused by the constrained mode, allowed by legacy impersonation
    status, _ = _send(rbac, "GET", "/api/v1/namespaces/default/configmaps",
                      [admin, ("Impersonate-User", "bob"), ("Impersonate-Group", "system:masters")])
    assert status == 200


def test_a_node_gets_the_nodes_group_in_constrained_mode_only() -> None:
    server = ApiServer(Store(), tokens={"t": "admin"}).start()  # AlwaysAllow: any authenticated user may
    try:
        node = [("Authorization", "Bearer t"), ("Impersonate-User", "system:node:n1")]
        assert _whoami(server, node) == (201, {"username": "system:node:n1",
                                               "groups": ["system:nodes", "system:authenticated"]})
        masters = [("Authorization", "Bearer t"), ("Impersonate-User", "bob"), ("Impersonate-Group", "system:masters")]
        assert _whoami(server, masters)[0] == 201  # legacy mode: remembered for this requestor
        assert _whoami(server, node) == (201, {"username": "system:node:n1", "groups": ["system:authenticated"]})
    finally:
        server.stop()


@pytest.mark.parametrize(("headers", "message"), [
    ([("Impersonate-Group", "g1")],
     'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"g1"}, Extra:map[string][]string(nil)} '
     "without impersonating a user name"),
    ([("Impersonate-Uid", "u1")],
     'requested &user.DefaultInfo{Name:"", UID:"u1", Groups:[]string(nil), Extra:map[string][]string(nil)} '
     "without impersonating a user name"),
    ([("Impersonate-Extra-a", "u1"), ("Impersonate-Group", "g"), ("Impersonate-Group", "h"), ("Impersonate-Uid", "u")],
     'requested &user.DefaultInfo{Name:"", UID:"u", Groups:[]string{"g", "h"}, '
     'Extra:map[string][]string{"a":[]string{"u1"}}} without impersonating a user name'),
])
def test_fields_without_a_user_name_are_a_bad_request(rbac: ApiServer, headers: list[tuple[str, str]],
                                                      message: str) -> None:
    for path in ("/api/v1/namespaces/default/configmaps", "/no-such-path"):
        status, body = _send(rbac, "GET", path, _as("admin", *headers))
        assert (status, body["reason"], body["message"]) == (400, "BadRequest", message)


def test_anonymous_may_not_impersonate_where_it_is_limited() -> None:
    pytest.importorskip("cryptography")
    server = ApiServer(Store(), tls=True).start()
    try:
        status, body = _send(server, "GET", "/api/v1/namespaces/default/configmaps", {"Impersonate-User": "bob"})
        assert (status, body["message"]) == (403, (
            'configmaps is forbidden: User "system:anonymous" cannot impersonate-on:user-info:list resource '
            '"configmaps" in API group "" in the namespace "default"'))
        status, body = _send(server, "GET", "/api", {"Impersonate-User": "system:serviceaccount:default:default"})
        assert (status, body["message"], body["details"]) == (
            403, 'forbidden: User "system:anonymous" cannot impersonate-on:serviceaccount:get path "/api"', {})
    finally:
        server.stop()
    plain = ApiServer(Store()).start()  # plain HTTP without tokens: no security, anonymous may do anything
    try:
        assert _whoami(plain, {"Impersonate-User": "bob"}) == (201, {"username": "bob",
                                                                     "groups": ["system:authenticated"]})
    finally:
        plain.stop()


def test_audit_event_records_the_impersonated_user_and_constraint() -> None:
    store = Store()
    out = io.StringIO()
    store.audit.write_events(out, policy=Policy.level("Metadata", omit_stages=()))
    server = ApiServer(store, tokens={"t": UserInfo("admin", groups=("system:masters",))},
                       authorizer=RBACAuthorizer(store)).start()
    try:
        _send(server, "GET", "/api/v1/namespaces", [("Authorization", "Bearer t"), ("Impersonate-User", "bob")])
        _send(server, "GET", "/api/v1/nodes", [("Authorization", "Bearer t"), ("Impersonate-User", "bob"),
                                               ("Impersonate-Group", "system:masters")])
        _send(server, "GET", "/api/v1/pods", [("Impersonate-User", "bob")])  # no token: 401
    finally:
        server.stop()
        store.audit.close_writers()
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    by_stage = {(e["requestURI"], e["stage"]): e for e in events}
    received = by_stage[("/api/v1/namespaces", "RequestReceived")]
    assert "impersonatedUser" not in received and "authenticationMetadata" not in received
    complete = by_stage[("/api/v1/namespaces", "ResponseComplete")]
    assert complete["user"]["username"] == "admin"
    assert complete["impersonatedUser"] == {"username": "bob", "groups": ["system:authenticated"]}
    assert complete["authenticationMetadata"] == {"impersonationConstraint": "impersonate:user-info"}
    assert list(complete).index("authenticationMetadata") == list(complete).index("impersonatedUser") + 1
    assert complete["annotations"]["authorization.k8s.io/decision"] == "forbid"
    legacy = by_stage[("/api/v1/nodes", "ResponseComplete")]
    assert legacy["impersonatedUser"]["groups"] == ["system:masters", "system:authenticated"]
    assert "authenticationMetadata" not in legacy  # legacy impersonation has no constraint
    assert "impersonatedUser" not in by_stage[("/api/v1/pods", "ResponseComplete")]


def test_paths_nothing_serves_are_authorized_before_the_404(rbac: ApiServer) -> None:
    status, body = _send(rbac, "GET", "/api/v1/namespaces/default/nosuchthings", _as("op"))
    assert (status, body["message"]) == (403, 'nosuchthings is forbidden: User "operator" cannot list resource '
                                               '"nosuchthings" in API group "" in the namespace "default"')
    status, body = _send(rbac, "DELETE", "/api/v1/namespaces/default/configmaps/x/status",
                         _as("admin", ("Impersonate-User", "bob")))
    assert (status, body["message"]) == (403, 'configmaps "x" is forbidden: User "bob" cannot delete resource '
                                               '"configmaps/status" in API group "" in the namespace "default"')
    assert _send(rbac, "GET", "/api/v1/namespaces/default/nosuchthings", _as("admin"))[0] == 404
    assert _send(rbac, "DELETE", "/api/v1/namespaces/default/configmaps/x/status", _as("admin"))[0] == 404
