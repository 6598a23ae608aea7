"""The authorization decision in the audit log, as kube-apiserver writes it: every event after RequestReceived
carries ``authorization.k8s.io/decision`` (allow or forbid) and ``authorization.k8s.io/reason`` (observed on
kube-apiserver v1.37.2: RBAC's "allowed by ..." reason, an empty reason for system:masters, AlwaysAllow and
denials), and a 401 carries neither (authorization never ran)."""

from __future__ import annotations

import http.client
import io
import json
import ssl
from typing import Any

import pytest

from fakekube import Store
from fakekube.audit.policy import Policy
from fakekube.rbac_authorizer import RBACAuthorizer
from fakekube.server.app import ApiServer

DECISION, REASON = "authorization.k8s.io/decision", "authorization.k8s.io/reason"


def _send(server: ApiServer, path: str, method: str = "GET", token: str | None = None) -> int:
    context = None
    if server.ca_pem is not None:
        context = ssl.create_default_context(cadata=server.ca_pem.decode())
    conn = (http.client.HTTPSConnection(server.host, server.port, context=context) if context
            else http.client.HTTPConnection(server.host, server.port))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    conn.request(method, path, headers=headers)
    status = conn.getresponse().status
    conn.close()
    return status


def _events(out: io.StringIO, path: str) -> list[dict[str, Any]]:
    return [e for e in map(json.loads, out.getvalue().splitlines()) if e["requestURI"] == path]


def _decisions(out: io.StringIO, path: str, code: int = 200) -> dict[str, dict[str, str] | None]:
    """The authorization annotations of each stage of the request to ``path`` that was answered ``code``."""
    events = _events(out, path)
    ids = {e["auditID"] for e in events if e.get("responseStatus", {}).get("code") == code}
    return {e["stage"]: {k: v for k, v in (e.get("annotations") or {}).items() if k.startswith("authorization")}
            or None for e in events if e["auditID"] in ids}


def test_rbac_mode_writes_rbacs_reason_and_denials() -> None:
    pytest.importorskip("cryptography")
    store = Store()
    store.create("roles", {"metadata": {"name": "reader"}, "rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}]}, "default")
    store.create("rolebindings", {"metadata": {"name": "alice-reads"}, "subjects": [
        {"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"kind": "Role", "name": "reader", "apiGroup": "rbac.authorization.k8s.io"}}, "default")
    out = io.StringIO()
    store.audit.write_events(out, policy=Policy.level("Metadata", omit_stages=()))
    server = ApiServer(store, tls=True, tokens={"a": "alice"}, authorizer=RBACAuthorizer(store)).start()
    try:
        cms = "/api/v1/namespaces/default/configmaps"
        assert _send(server, cms, token="a") == 200
        assert _send(server, "/api/v1/namespaces/default/secrets", token="a") == 403
        assert _send(server, cms, token="nobody") == 401
    finally:
        server.stop()
        store.audit.close_writers()
    allowed = {DECISION: "allow",
               REASON: 'RBAC: allowed by RoleBinding "alice-reads/default" of Role "reader" to User "alice"'}
    assert [_decisions(out, cms)[stage] for stage in ("RequestReceived", "ResponseComplete")] == [None, allowed]
    assert _decisions(out, "/api/v1/namespaces/default/secrets", 403)["ResponseComplete"] == {
        DECISION: "forbid", REASON: ""}
    unauthorized = [e for e in _events(out, cms) if e.get("responseStatus", {}).get("code") == 401]
    assert unauthorized and all(DECISION not in (e.get("annotations") or {}) for e in unauthorized)


def test_tls_limits_anonymous_and_always_allow_gives_no_reason() -> None:
    pytest.importorskip("cryptography")
    store = Store()
    out = io.StringIO()
    store.audit.write_events(out, policy=Policy.level("Metadata", omit_stages=()))
    server = ApiServer(store, tls=True, tokens={"t": "admin"}).start()
    server.authenticator.required = False  # anonymous requests reach the authorizer, as on a real cluster
    try:
        assert _send(server, "/healthz") == 200
        assert _send(server, "/api/v1/namespaces") == 403
        assert _send(server, "/api/v1/namespaces/default/configmaps", token="t") == 200
    finally:
        server.stop()
        store.audit.close_writers()
    assert _decisions(out, "/healthz")["ResponseComplete"] == {DECISION: "allow", REASON: ""}
    assert _decisions(out, "/api/v1/namespaces", 403)["ResponseComplete"] == {DECISION: "forbid", REASON: ""}
    assert _decisions(out, "/api/v1/namespaces/default/configmaps")["ResponseComplete"] == {
        DECISION: "allow", REASON: ""}
