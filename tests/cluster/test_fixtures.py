"""The ``kube_cluster`` fixture in RBAC mode (``kube_cluster_options``): the kubeconfig's admin may do
anything, a service account only what its Role grants, and the refusals are in the audit log."""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from fakekube.audit.denials import denials
from fakekube.audit.reader import read_log

OPERATOR = "system:serviceaccount:default:operator"


@pytest.fixture
def kube_cluster_options() -> dict[str, Any]:
    return {"authorization_mode": "RBAC", "nodes": 0, "controllers": ""}


def _get(url: str, token: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_rbac_mode_grants_the_admin_everything_and_a_service_account_its_role(kube_cluster: Any) -> None:
    kube = kube_cluster.store
    log = io.StringIO()
    kube.audit.write_events(log)
    kube.create("serviceaccounts", {"metadata": {"name": "operator"}}, "default")
    kube.create("roles", {"metadata": {"name": "reader"}, "rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}]}, "default")
    kube.create("rolebindings", {"metadata": {"name": "operator"}, "subjects": [
        {"kind": "ServiceAccount", "name": "operator", "namespace": "default"}],
        "roleRef": {"kind": "Role", "name": "reader", "apiGroup": "rbac.authorization.k8s.io"}}, "default")
    minted = urllib.request.Request(f"{kube_cluster.url}/api/v1/namespaces/default/serviceaccounts/operator/token",
                                    data=json.dumps({"spec": {}}).encode(), method="POST",
                                    headers={"Authorization": f"Bearer {kube_cluster.token}",
                                             "Content-Type": "application/json"})
    with urllib.request.urlopen(minted, timeout=10) as resp:
        token = json.loads(resp.read())["status"]["token"]
    assert _get(f"{kube_cluster.url}/api/v1/nodes", kube_cluster.token) == 200
    assert _get(f"{kube_cluster.url}/api/v1/namespaces/default/configmaps", token) == 200
    assert _get(f"{kube_cluster.url}/api/v1/namespaces/default/secrets", token) == 403
    # The front writes a request's event once its reply is out: wait for the last one.
    deadline = time.monotonic() + 5
    while '"resource":"secrets"' not in log.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    kube.audit.close_writers()
    entries, _ = read_log(io.StringIO(log.getvalue()))
    assert [(r.verb, r.resource) for r in denials(entries)[OPERATOR]] == [("list", "secrets")]
