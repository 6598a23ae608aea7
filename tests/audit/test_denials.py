"""``fakekube audit denials``: what authorization refused each user, read back from an audit log."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path

from fakekube import Store
from fakekube.audit.context import AuditRequest
from fakekube.audit.denials import denials, refused
from fakekube.audit.entry import AuditEntry
from fakekube.identity import UserInfo
from fakekube.rbac_authorizer import RBACAuthorizer
from fakekube.server.app import ApiServer

OPERATOR = "system:serviceaccount:shop:operator"
RBAC = "rbac.authorization.k8s.io"


def _operator_run(log: Path) -> None:
    """An operator whose Role lets it create Deployments but not update them, served in RBAC mode."""
    store = Store()
    store.ensure_namespace("shop")
    store.create("roles", {"metadata": {"name": "operator"}, "rules": [
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "create"]}]}, "shop")
    store.create("rolebindings", {"metadata": {"name": "operator"}, "subjects": [
        {"kind": "ServiceAccount", "name": "operator", "namespace": "shop"}],
        "roleRef": {"kind": "Role", "name": "operator", "apiGroup": RBAC}}, "shop")
    store.audit.write_events(log)
    user = UserInfo(OPERATOR, groups=("system:serviceaccounts", "system:serviceaccounts:shop"))
    server = ApiServer(store, tokens={"op": user, "admin": "admin"}, authorizer=RBACAuthorizer(store)).start()
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
                                                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    path = "/apis/apps/v1/namespaces/shop/deployments"
    try:
        for method, target, body, expected in [
                ("POST", path, deployment, 201),
                ("PUT", f"{path}/web", deployment, 403),
                ("PUT", f"{path}/web", deployment, 403),
                ("DELETE", f"{path}/web", None, 403),
                ("GET", "/api/v1/namespaces/shop/secrets", None, 403)]:
            conn = http.client.HTTPConnection(server.host, server.port)
            conn.request(method, target, body=json.dumps(body) if body else None,
                         headers={"Authorization": "Bearer op", "Content-Type": "application/json"})
            assert conn.getresponse().status == expected
            conn.close()
    finally:
        server.stop()
        store.audit.close_writers()


def test_an_operators_missing_verbs_are_listed_by_the_rule_that_would_allow_them(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    _operator_run(log)
    shown = subprocess.run([sys.executable, "-m", "fakekube", "audit", "denials", "--json", str(log)],
                           capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(shown.stdout)["denials"]
    assert list(report) == [OPERATOR]
    assert [(r["verb"], r["apiGroup"], r["resource"], r["namespace"], r["count"], r["names"])
            for r in report[OPERATOR]] == [
        ("update", "apps", "deployments", "shop", 2, ["web"]),
        ("delete", "apps", "deployments", "shop", 1, ["web"]),
        ("list", "", "secrets", "shop", 1, []),
    ]
    text = subprocess.run([sys.executable, "-m", "fakekube", "audit", "denials", str(log)],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    assert f"{OPERATOR}: 4 refused" in text and "update deployments (apiGroup apps) in namespace shop" in text


def _entry(code: int, message: str, annotations: dict[str, str] | None = None) -> AuditEntry:
    request = AuditRequest(user="alice", annotations=dict(annotations or {}))
    return AuditEntry(seq=0, time=1.0, actor="a", verb="create", group="", resource="configmaps", namespace="n",
                      name="c", code=code, message=message, request=request)


def test_only_authorizations_refusals_count() -> None:
    rbac = 'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group ""'
    admission = 'configmaps "c" is forbidden: unable to create new content in namespace n because it is being terminated'
    assert refused(_entry(403, "", {"authorization.k8s.io/decision": "forbid"}))
    assert not refused(_entry(403, admission, {"authorization.k8s.io/decision": "allow"}))
    assert refused(_entry(403, rbac))  # a log without the annotation (an export that dropped it)
    assert not refused(_entry(403, admission))
    assert denials([_entry(200, "")]) == {}


def test_impersonation_refusals_name_the_check_that_failed() -> None:
    # impersonation refuses before authorization: no decision annotation, the message names the failed check
    # (observed on kube-apiserver v1.37.2)
    legacy = ('users "bob" is forbidden: User "system:serviceaccount:shop:operator" cannot impersonate resource '
              '"users" in API group "" at the cluster scope')
    constrained = ('pods is forbidden: User "a&lt;b" cannot impersonate-on:user-info:list resource "pods" in API '
                   'group "" in the namespace "shop"')
    path = 'forbidden: User "system:anonymous" cannot impersonate-on:user-info:get path "/api"'
    report = denials([_entry(403, legacy), _entry(403, legacy), _entry(403, constrained), _entry(403, path)])
    assert {user: [(r.verb, r.group, r.resource, r.namespace, r.count, r.names) for r in refusals]
            for user, refusals in report.items()} == {
        OPERATOR: [("impersonate", "", "users", None, 2, ["bob"])],
        "a<b": [("impersonate-on:user-info:list", "", "pods", "shop", 1, [])],
        "system:anonymous": [("impersonate-on:user-info:get", "", "/api", None, 1, [])],
    }


def test_refusals_are_in_the_order_their_requests_arrived_not_their_events() -> None:
    forbid = {"authorization.k8s.io/decision": "forbid"}
    delete, get = _entry(403, "", forbid), _entry(403, "", forbid)
    delete.verb, get.verb = "delete", "get"
    delete.request.received, get.request.received = 1.0, 2.0   # the delete came first, its event last
    assert [r.verb for r in denials([get, delete])["alice"]] == ["delete", "get"]
