"""Requests no handler takes, and the options of lists, watches and writes, answered over HTTP as
kube-apiserver v1.37.2 answered them (each expected body below was observed on the oracle, oracle/)."""

from __future__ import annotations

import json

import pytest

CMS = "/api/v1/namespaces/default/configmaps"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"
PAGE_NOT_FOUND = b"404 page not found\n"
NO_ROUTE = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "NotFound",
            "message": "the server could not find the requested resource", "details": {}, "code": 404}
NOT_ALLOWED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "reason": "MethodNotAllowed", "details": {}, "code": 405,
               "message": "the server does not allow this method on the requested resource"}


@pytest.mark.parametrize("method, path", [
    ("GET", "/apis/nothing.example.com/v1/namespaces/default/things"),
    ("GET", "/apis/nothing.example.com/v1"),
    ("GET", "/apis/nothing.example.com"),
    ("POST", "/apis/nothing.example.com/v1/namespaces/default/things"),
    ("GET", "/foo"),
    ("GET", "/apis/example.com/v1/namespaces/default/gizmos"),  # a custom resource group's unknown resource
    ("GET", "/apis/example.com/v2/namespaces/default/widgets"),
    ("GET", "/apis/example.com/v2"),
    ("GET", "/apis/example.com/v1/widgets/w"),  # a namespaced custom resource without its namespace
    ("POST", "/apis/example.com/v1/widgets"),
])
def test_paths_no_web_service_owns_are_go_http_not_found(api, widgets, method, path):
    resp = api(method, path, {} if method == "POST" else None)
    assert resp.status == 404
    assert resp.headers["content-type"] == "text/plain; charset=utf-8"
    assert resp.body == PAGE_NOT_FOUND


@pytest.mark.parametrize("method, path, expected", [
    ("GET", "/apis/apps/v2", NO_ROUTE),
    ("GET", "/apis/apps/v2/namespaces/default/deployments", NO_ROUTE),
    ("GET", "/apis/apps/v1/namespaces/default/gizmos", NO_ROUTE),
    ("GET", "/api/v2", NO_ROUTE),
    ("GET", f"{CMS}/c/status", NO_ROUTE),
    ("PUT", f"{CMS}/c/status", NO_ROUTE),
    ("GET", f"{CMS}/c/x/y", NO_ROUTE),
    ("GET", "/api/v1/configmaps/x", NO_ROUTE),
    ("GET", "/api/v1/namespaces/default/nodes", NO_ROUTE),
    ("PUT", CMS, NOT_ALLOWED),
    ("PATCH", CMS, NOT_ALLOWED),
    ("POST", f"{CMS}/c", NOT_ALLOWED),
    ("POST", "/api/v1/configmaps", NOT_ALLOWED),
    ("DELETE", "/api/v1/namespaces/default/pods/p/status", NOT_ALLOWED),
    ("POST", "/api/v1/componentstatuses", NOT_ALLOWED),
    ("GET", "/apis/authentication.k8s.io/v1/tokenreviews", NOT_ALLOWED),
    ("POST", "/api/v1", NOT_ALLOWED),
    ("POST", "/apis/apps/v1", NOT_ALLOWED),
    ("POST", "/version", NOT_ALLOWED),
])
def test_built_in_routes_answer_generic_statuses_with_empty_details(api, kube_server, method, path, expected):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    resp = api(method, path, {} if method in ("POST", "PUT", "PATCH") else None,
               {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else None)
    assert resp.json() == expected


def test_discovery_groups_answer_every_method(api, widgets):
    assert api("POST", "/apis/apps", {}).json()["name"] == "apps"
    assert api("DELETE", "/apis").json()["kind"] == "APIGroupList"
    assert api("POST", "/apis/example.com/v1", {}).json()["groupVersion"] == "example.com/v1"


def test_a_watch_the_kind_does_not_offer(api):
    assert api("GET", "/api/v1/componentstatuses?watch=1").json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "MethodNotAllowed",
        "message": 'watch is not supported on resources of kind "componentstatuses"',
        "details": {"kind": "componentstatuses"}, "code": 405}


def test_custom_resource_routes(api, widgets):
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert api("POST", f"{WIDGETS}/other", widget).status == 201  # the name in the URL is ignored
    assert api("GET", f"{WIDGETS}/w").status == 200
    assert api("PUT", WIDGETS, widget).json()["message"] == "name must be provided"
    missing = api("GET", f"{WIDGETS}/w/scale").json()  # no scale subresource: the object is "not found"
    assert (missing["message"], missing["details"]) == (
        'widgets.example.com "w" not found', {"name": "w", "group": "example.com", "kind": "widgets"})
    assert api("DELETE", f"{WIDGETS}/w/status").json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "MethodNotAllowed",
        "message": 'delete is not supported on resources of kind "widgets.example.com"',
        "details": {"group": "example.com", "kind": "widgets"}, "code": 405}


@pytest.mark.parametrize("content_type", ["text/plain", "application/json", "", "application/MERGE-PATCH+JSON"])
def test_patch_types_a_built_in_route_does_not_consume(api, kube_server, content_type):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    body = api("PATCH", f"{CMS}/c", "{}", {"Content-Type": content_type} if content_type else {}).json()
    assert (body["code"], body["reason"], body["message"], body["details"]) == (
        415, "UnsupportedMediaType", "415: Unsupported Media Type", {})


def test_patch_types_a_custom_resource_handler_refuses(api, widgets):
    body = api("PATCH", f"{WIDGETS}/w", "{}", {"Content-Type": "application/strategic-merge-patch+json"}).json()
    assert body["message"] == ("the body of the request was in an unknown format - accepted media types include: "
                               "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
    assert "details" not in body


@pytest.mark.parametrize("content_type", ["text/plain", "*/*", "application/x-yaml", "text/yaml",
                                          "application/json; foo"])
def test_object_bodies_in_other_media_types_are_415(api, content_type):
    resp = api("POST", CMS, json.dumps({"metadata": {"name": "x"}}), {"Content-Type": content_type})
    assert resp.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf")
    assert resp.status == 415 and api("GET", f"{CMS}/x").status == 404


@pytest.mark.parametrize("content_type", ["application/JSON", "application/json;charset=latin1", "application/json;"])
def test_json_media_type_spellings_the_server_takes(api, content_type):
    assert api("POST", CMS, json.dumps({"metadata": {"name": "x"}}), {"Content-Type": content_type}).status == 201
