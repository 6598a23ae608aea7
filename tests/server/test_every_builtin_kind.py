"""Every GA resource of the default Kubernetes version through the HTTP front (one server for the module):
create, get, list, update, the four patch types, watch and delete, with the verbs discovery lists."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fakekube.apimodel.table import ApiResource
from fakekube.server.app import ApiServer
from fakekube.store import Store
from tests.builtin_objects import minimal_object, round_trip_resources

from .conftest import Response, request

RESOURCES = round_trip_resources()


@pytest.fixture(scope="module")
def server() -> Iterator[ApiServer]:
    with ApiServer(Store()) as srv:
        yield srv


def _collection(resource: ApiResource, namespace: str | None) -> str:
    prefix = f"/apis/{resource.group}/{resource.version}" if resource.group else f"/api/{resource.version}"
    scope = f"/namespaces/{namespace}" if resource.namespaced and namespace else ""
    return f"{prefix}{scope}/{resource.plural}"


def _ok(response: Response, *codes: int) -> dict[str, Any]:
    assert response.status in codes, response.body[:500]
    return response.json()


def _watch(server: ApiServer, path: str, resource_version: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` events of a watch from ``resource_version`` (history is sent at once)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("GET", f"{path}?watch=1&resourceVersion={resource_version}&timeoutSeconds=30")
        response = conn.getresponse()
        assert response.status == 200
        return [json.loads(response.readline()) for _ in range(count)]
    finally:
        conn.close()


_JSON = {"Content-Type": "application/json"}


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: f"{r.plural}.{r.group or 'core'}/{r.version}")
def test_round_trip_over_http(server: ApiServer, resource: ApiResource) -> None:
    url = server.url
    collection = _collection(resource, "default")
    body = minimal_object(resource)
    name = body["metadata"]["name"]
    item = f"{collection}/{name}"
    # Compact JSON, as Go clients write it: a ControllerRevision's data keeps the bytes sent, and spaced ones
    # would refuse every patch below, as the real server does (fakekube.verbs.rawdata).
    created = _ok(request(url, "POST", f"{collection}?fieldValidation=Strict", _compact(body), _JSON), 201)
    assert (created["apiVersion"], created["kind"]) == (body["apiVersion"], resource.kind)
    got = _ok(request(url, "GET", item), 200)
    listing = _ok(request(url, "GET", collection), 200)
    assert listing["kind"] == f"{resource.kind}List" and name in [i["metadata"]["name"] for i in listing["items"]]
    start = got["metadata"]["resourceVersion"]

    got["metadata"]["labels"] = {"step": "update"}
    _ok(request(url, "PUT", f"{item}?fieldValidation=Strict", _compact(got), _JSON), 200)
    for content_type, patch in (
        ("application/merge-patch+json", {"metadata": {"labels": {"merge": "yes"}}}),
        ("application/json-patch+json", [{"op": "add", "path": "/metadata/annotations", "value": {"j": "y"}}]),
        ("application/strategic-merge-patch+json", {"metadata": {"labels": {"strategic": "yes"}}}),
    ):
        _ok(request(url, "PATCH", item, json.dumps(patch), {"Content-Type": content_type}), 200)
    apply = {"apiVersion": body["apiVersion"], "kind": resource.kind, "metadata": {"name": name, "labels": {"a": "y"}}}
    applied = _ok(request(url, "PATCH", f"{item}?fieldManager=http-test", json.dumps(apply),
                          {"Content-Type": "application/apply-patch+yaml"}), 200)
    assert {"step", "merge", "strategic", "a"} <= set(applied["metadata"]["labels"])

    events = _watch(server, collection, start, 5)
    assert [e["type"] for e in events] == ["MODIFIED"] * 5
    assert events[-1]["object"]["metadata"]["labels"]["a"] == "y"

    _ok(request(url, "DELETE", item), 200, 202)
    after = request(url, "GET", item)
    assert after.status == 404 or after.json()["metadata"].get("deletionTimestamp")


def test_verbs_discovery_does_not_list_are_405(server: ApiServer) -> None:
    url = server.url
    refused = request(url, "GET", "/apis/authentication.k8s.io/v1/tokenreviews")
    assert refused.status == 405 and refused.json()["reason"] == "MethodNotAllowed"
    assert request(url, "DELETE", "/api/v1/namespaces").status == 405  # namespaces have no deletecollection
    assert request(url, "POST", "/api/v1/componentstatuses", {"metadata": {"name": "x"}}).status == 405


def test_unknown_fields_answer_with_warning_headers(server: ApiServer) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "warned", "bogus": 1}, "datta": {}}
    try:
        conn.request("POST", "/api/v1/namespaces/default/configmaps", json.dumps(body),
                     {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        assert response.status == 201
        assert response.headers.get_all("Warning") == ['299 - "unknown field \\"metadata.bogus\\""',
                                                       '299 - "unknown field \\"datta\\""']
    finally:
        conn.close()
    strict = request(server.url, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
                     {**body, "metadata": {"name": "strict"}})
    assert strict.status == 400
    assert strict.json()["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict '
                                        'decoding error: unknown field "datta"')
    duplicated = request(server.url, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
                         '{"metadata":{"name":"d"},"data":{"a":"1","a":"2"}}',
                         {"Content-Type": "application/json"})
    assert duplicated.status == 400 and 'duplicate field "data.a"' in duplicated.json()["message"]
