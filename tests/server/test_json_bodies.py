"""Response bodies byte for byte as kube-apiserver writes them: negotiated JSON ends with the encoder's newline,
pretty requests are indented without it, /version and /openapi/v3 are written raw."""

from __future__ import annotations

import json

import pytest

CMS = "/api/v1/namespaces/default/configmaps"
# The NotFound body of a real cluster (as quoted by clients that compare it), for a core-group resource.
NOT_FOUND = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
             '"message":"configmaps \\"nope\\" not found","reason":"NotFound",'
             '"details":{"name":"nope","kind":"configmaps"},"code":404}\n')


def test_official_client_sees_the_exact_error_body(kube_server):
    pytest.importorskip("kubernetes")
    from kubernetes import client, config
    from kubernetes.client.rest import ApiException

    api = config.new_client_from_config(config_file=str(kube_server.kubeconfig))
    try:
        with pytest.raises(ApiException) as info:
            client.CoreV1Api(api).read_namespaced_config_map("nope", "default")
    finally:
        api.close()
    assert info.value.body == NOT_FOUND
    assert f"HTTP response body: {NOT_FOUND}\n" in str(info.value)


def test_negotiated_bodies_end_with_a_newline(kube_server, api):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}, "data": {"k": "<a&b>", "u": "é"}},
                             "default")
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    for method, path, headers in (
        ("GET", f"{CMS}/c", {}), ("GET", CMS, {}), ("GET", f"{CMS}/nope", {}), ("GET", CMS, table),
        ("GET", "/api", {}), ("GET", "/apis", {}), ("GET", "/api/v1", {}), ("GET", "/apis/apps", {}),
        ("GET", "/apis/apps/v1", {}),
        ("GET", "/apis", {"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}),
        ("DELETE", f"{CMS}/nope", {}), ("POST", f"{CMS}/c/status", {}),
    ):
        resp = api(method, path, headers=headers)
        assert resp.body.endswith(b"}\n") and not resp.body.endswith(b"\n\n"), (method, path, resp.body[-20:])
        assert b"\n" not in resp.body[:-1]
        json.loads(resp.body)
    body = api("GET", f"{CMS}/c").body
    # Go's encoder escapes <, > and & and writes other text as UTF-8.
    assert b'"k":"\\u003ca\\u0026b\\u003e"' in body and '"u":"é"'.encode() in body


def test_version_and_openapi_are_written_raw(api):
    version = api("GET", "/version").body
    assert version.startswith(b'{\n  "major": "1",\n  "minor": "37",') and version.endswith(b"\n}")
    for path in ("/openapi/v3", "/openapi/v3/api/v1"):
        body = api("GET", path).body
        assert body.endswith(b"}") and b"\n" not in body


def test_pretty_requests_are_indented_without_newline(kube_server, api):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    for path, headers in ((f"{CMS}/c?pretty=true", {}), (f"{CMS}/c", {"User-Agent": "curl/8.5.0"}),
                          ("/api/v1", {"User-Agent": "Wget/1.21"}), (f"{CMS}/nope?pretty=1", {})):
        body = api("GET", path, headers=headers).body
        assert body.startswith(b'{\n  "') and body.endswith(b"\n}"), (path, body[-20:])
    # An explicit pretty=false wins over a curl user agent.
    assert api("GET", f"{CMS}/c?pretty=false", headers={"User-Agent": "curl/8.5.0"}).body.endswith(b"}\n")
