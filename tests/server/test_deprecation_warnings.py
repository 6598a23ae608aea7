"""A deprecated kind's routes warn on every request (apiserver v0.37.2 pkg/endpoints/installer.go
AddWarningsHandler, pkg/endpoints/deprecation/deprecation.go WarningMessage; api v0.37.2 core/v1/lifecycle.go),
observed on kube-apiserver v1.37.2 for v1 Endpoints: creates, reads, errors and watches alike, the route's warning
before the request's own."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

from fakekube.server.app import ApiServer
from fakekube.store import Store

ENDPOINTS = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"


@pytest.fixture(scope="module")
def server() -> Iterator[ApiServer]:
    with ApiServer(Store()) as srv:
        yield srv


def _warnings(server: ApiServer, method: str, path: str, body: object = None) -> tuple[int, list[str]]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None,
                     {"Content-Type": "application/json"} if body is not None else {})
        response = conn.getresponse()
        if "watch" not in path:
            response.read()
        return response.status, response.headers.get_all("Warning") or []
    finally:
        conn.close()


def _header(text: str) -> str:
    return '299 - "' + text.replace('"', '\\"') + '"'


def test_endpoints_requests_carry_the_deprecation_warning_first(server: ApiServer) -> None:
    path = "/api/v1/namespaces/default/endpoints"
    body = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e", "bogus": 1}}
    assert _warnings(server, "POST", path, body) == (201, [_header(ENDPOINTS),
                                                          _header('unknown field "metadata.bogus"')])
    assert _warnings(server, "GET", path + "/e") == (200, [_header(ENDPOINTS)])
    assert _warnings(server, "GET", path + "/missing") == (404, [_header(ENDPOINTS)])
    assert _warnings(server, "GET", path + "?watch=1&timeoutSeconds=1") == (200, [_header(ENDPOINTS)])
    assert _warnings(server, "GET", "/api/v1/componentstatuses") == (
        200, [_header("v1 ComponentStatus is deprecated in v1.19+")])
    assert _warnings(server, "GET", "/api/v1/namespaces/default/configmaps") == (200, [])


def test_the_warning_follows_the_emulated_release() -> None:
    with ApiServer(Store(kubernetes_version="1.32")) as old:
        assert _warnings(old, "GET", "/api/v1/namespaces/default/endpoints") == (200, [])
