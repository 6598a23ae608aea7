"""Bearer tokens (401) and an optional authorizer (403), with the real server's Status bodies; discovery stays
open to any authenticated user."""

from __future__ import annotations

import json

import pytest

from fakekube.server import RequestAttributes

CMS = "/api/v1/namespaces/default/configmaps"


def test_missing_or_wrong_token_is_401(kube_server_factory, http_request):
    served = kube_server_factory(token="s3cret")
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic czNjcmV0"}):
        resp = http_request(served.url, "GET", CMS, headers=headers)
        assert resp.status == 401
        assert resp.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                               "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
    ok = http_request(served.url, "GET", CMS, headers={"Authorization": "Bearer s3cret"})
    assert ok.status == 200
    kubeconfig = json.loads(served.kubeconfig.read_text())
    assert kubeconfig["users"][0]["user"] == {"token": "s3cret"}


def test_authorizer_denies_with_403(kube_server_factory, http_request):
    def only_reads(attrs: RequestAttributes) -> bool:
        return attrs.verb in ("get", "list", "watch") or attrs.user == "admin"

    served = kube_server_factory(tokens={"t-admin": "admin", "t-view": "viewer"}, authorizer=only_reads)
    viewer = {"Authorization": "Bearer t-view"}
    assert http_request(served.url, "GET", "/api/v1", headers=viewer).status == 200  # discovery is open
    assert http_request(served.url, "GET", CMS, headers=viewer).status == 200
    denied = http_request(served.url, "POST", CMS, {"metadata": {"name": "x"}}, viewer)
    assert denied.status == 403
    body = denied.json()
    assert body["reason"] == "Forbidden" and body["details"]["kind"] == "configmaps"
    assert body["message"] == ('configmaps is forbidden: User "viewer" cannot create resource "configmaps" '
                               'in API group "" in the namespace "default"')
    created = http_request(served.url, "POST", CMS, {"metadata": {"name": "x"}}, {"Authorization": "Bearer t-admin"})
    assert created.status == 201


def test_python_client_sends_the_token_over_http(kube_server_factory):
    pytest.importorskip("kubernetes")
    from kubernetes import client, config

    served = kube_server_factory(token="tok")
    api = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        assert client.CoreV1Api(api).list_namespaced_config_map("default").items == []
    finally:
        api.close()
