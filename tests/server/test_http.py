"""The HTTP front spoken to directly: discovery, content types, Status bodies for every error, bad input,
authentication, and the watch wire format."""

from __future__ import annotations

import json

import pytest

from fakekube.server.discovery import AGGREGATED_CONTENT_TYPE

CMS = "/api/v1/namespaces/default/configmaps"
AGGREGATED_ACCEPT = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                     "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")


def _status(resp, code, reason=None):
    assert resp.status == code, resp.body
    body = resp.json()
    assert body["kind"] == "Status" and body["apiVersion"] == "v1" and body["status"] == "Failure"
    assert body["code"] == code
    if reason is not None:
        assert body.get("reason") == reason, body
    return body


# -- discovery ---------------------------------------------------------------------------------------------


def test_version_and_trailing_slashes(api):
    assert api("GET", "/version").json()["minor"] == "37"
    assert api("GET", "/version/").status == 200
    assert api("GET", "/api/").json()["versions"] == ["v1"]
    groups = {g["name"] for g in api("GET", "/apis/").json()["groups"]}
    assert {"apps", "apiextensions.k8s.io"} <= groups
    assert api("GET", "/healthz").body == b"ok"


def test_legacy_discovery_lists_status_subresources(api):
    core = {r["name"]: r for r in api("GET", "/api/v1").json()["resources"]}
    assert core["pods"]["namespaced"] and "watch" in core["pods"]["verbs"]
    assert core["pods/status"]["verbs"] == ["get", "patch", "update"]
    assert core["configmaps"]["shortNames"] == ["cm"]
    apps = {r["name"]: r for r in api("GET", "/apis/apps/v1").json()["resources"]}
    assert apps["deployments/scale"]["kind"] == "Scale"
    assert api("GET", "/apis/apps").json()["preferredVersion"]["groupVersion"] == "apps/v1"
    _status(api("GET", "/apis/nope.example.com/v1"), 404, "NotFound")


def test_crd_posted_over_http_is_discovered_and_served_at_once(api, widget_crd):
    assert api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widget_crd).status == 201
    resources = {r["name"] for r in api("GET", "/apis/example.com/v1").json()["resources"]}
    assert resources == {"widgets", "widgets/status"}
    assert "example.com" in {g["name"] for g in api("GET", "/apis").json()["groups"]}
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}}
    assert api("POST", "/apis/example.com/v1/namespaces/default/widgets", widget).status == 201
    assert api("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com").status == 200
    _status(api("GET", "/apis/example.com/v1/namespaces/default/widgets"), 404, "NotFound")


def test_aggregated_discovery_only_for_v2_with_exact_content_type(api, widgets):
    resp = api("GET", "/apis", headers={"Accept": AGGREGATED_ACCEPT})
    assert resp.headers["content-type"] == AGGREGATED_CONTENT_TYPE
    doc = resp.json()
    assert doc["kind"] == "APIGroupDiscoveryList"
    example = next(i for i in doc["items"] if i["metadata"]["name"] == "example.com")
    widgets_entry = example["versions"][0]["resources"][0]
    assert widgets_entry["resource"] == "widgets" and widgets_entry["scope"] == "Namespaced"
    assert widgets_entry["subresources"][0]["subresource"] == "status"
    core = api("GET", "/api", headers={"Accept": AGGREGATED_ACCEPT}).json()
    assert [i["metadata"]["name"] for i in core["items"]] == [""]
    # kubectl 1.27-1.29 offer only v2beta1: they get legacy JSON.
    old = api("GET", "/apis", headers={"Accept": "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                                                 "as=APIGroupDiscoveryList,application/json"})
    assert old.headers["content-type"] == "application/json" and old.json()["kind"] == "APIGroupList"


def test_openapi_v3_declares_field_validation_and_v2_answers_json_or_406(api, widgets):
    index = api("GET", "/openapi/v3").json()["paths"]
    url = index["apis/example.com/v1"]["serverRelativeURL"]
    doc = api("GET", url).json()
    op = doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"]
    assert op["x-kubernetes-group-version-kind"]["kind"] == "Widget"
    assert "fieldValidation" in {p["name"] for p in op["parameters"]}
    assert "application/strategic-merge-patch+json" not in op["requestBody"]["content"]  # a CRD: no SMP
    widget = doc["components"]["schemas"]["com.example.v1.Widget"]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "example.com", "kind": "Widget", "version": "v1"}]
    v2 = api("GET", "/openapi/v2", headers={"Accept": "application/json"}).json()
    assert v2["swagger"] == "2.0" and "io.k8s.api.apps.v1.Deployment" in v2["definitions"]
    assert "com.example.v1.Widget" in v2["definitions"]
    # kubectl asks /openapi/v2 for protobuf only; the server cannot produce it and says so, as kube-openapi does.
    refused = api("GET", "/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    assert (refused.status, refused.body) == (406, b"")


def test_namespace_paths_are_told_apart(api):
    assert api("GET", "/api/v1/namespaces/default").json()["kind"] == "Namespace"
    assert api("GET", "/api/v1/namespaces/default/status").json()["metadata"]["name"] == "default"
    assert api("GET", CMS).json()["kind"] == "ConfigMapList"
    assert api("GET", "/api/v1/configmaps").json()["kind"] == "ConfigMapList"  # all namespaces


# -- writes and content types --------------------------------------------------------------------------------


def test_create_without_content_type_and_with_yaml(api, kube_server):
    resp = api("POST", CMS, json.dumps({"metadata": {"name": "plain"}}))  # no Content-Type header
    assert resp.status == 201 and resp.json()["metadata"]["name"] == "plain"
    yaml_body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fromyaml\ndata:\n  a: '1'\n"
    resp = api("POST", CMS, yaml_body, {"Content-Type": "application/yaml"})
    assert resp.status == 201 and resp.json()["data"] == {"a": "1"}
    unsafe = "!!python/object/apply:os.system ['true']\n"
    _status(api("POST", CMS, unsafe, {"Content-Type": "application/yaml"}), 400, "BadRequest")


def test_apply_patch_creates_with_201_then_updates_with_200(api):
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n"
    ssa = {"Content-Type": "application/apply-patch+yaml"}
    assert api("PATCH", f"{CMS}/applied?fieldManager=me", body, ssa).status == 201
    assert api("PATCH", f"{CMS}/applied?fieldManager=me", body.replace("'1'", "'2'"), ssa).status == 200
    assert api("GET", f"{CMS}/applied").json()["data"] == {"a": "2"}
    _status(api("PATCH", f"{CMS}/applied", body, ssa), 422, "Invalid")  # fieldManager is required


@pytest.mark.parametrize("method, path, body, headers, code, reason", [
    ("POST", CMS, "{not json", {"Content-Type": "application/json"}, 400, "BadRequest"),
    ("POST", CMS, "[1, 2]", {"Content-Type": "application/json"}, 400, "BadRequest"),
    ("POST", CMS, "", {"Content-Type": "application/json"}, 400, "BadRequest"),
    ("POST", CMS, "\x00\x01", {"Content-Type": "application/vnd.kubernetes.protobuf"}, 400, "BadRequest"),
    ("POST", CMS, "{}", {"Content-Type": "application/cbor"}, 415, "UnsupportedMediaType"),
    ("PATCH", f"{CMS}/c", "{}", {"Content-Type": "text/html"}, 415, "UnsupportedMediaType"),
    ("PATCH", f"{CMS}/c", "{]", {"Content-Type": "application/merge-patch+json"}, 400, "BadRequest"),
    ("PATCH", f"{CMS}/c", '[{"op": "test", "path": "/data/a", "value": "x"}]',
     {"Content-Type": "application/json-patch+json"}, 422, "Invalid"),
    ("POST", f"{CMS}/c", "{}", {"Content-Type": "application/json"}, 405, "MethodNotAllowed"),
    ("PUT", CMS, "{}", {"Content-Type": "application/json"}, 405, "MethodNotAllowed"),
    # Observed on kube-apiserver v1.37.2: a subresource the kind has takes only its own methods (405); one it
    # does not have has no route at all (404).
    ("DELETE", "/apis/apps/v1/namespaces/default/deployments/d/status", None, {}, 405, "MethodNotAllowed"),
    ("DELETE", f"{CMS}/c/status", None, {}, 404, "NotFound"),
    ("POST", f"{CMS}/c/nope", "{}", {"Content-Type": "application/json"}, 404, "NotFound"),
    ("GET", "/api/v1/namespaces/default/nothings", None, {}, 404, "NotFound"),
    ("GET", "/api/v2/pods", None, {}, 404, "NotFound"),
    ("GET", "/totally/unknown", None, {}, 404, "NotFound"),
    ("GET", "/api/v1/namespaces/default/configmaps/c/a/b", None, {}, 404, "NotFound"),
    ("GET", "/api/v1/namespaces/default/namespaces", None, {}, 404, "NotFound"),
    ("GET", f"{CMS}?timeoutSeconds=soon", None, {}, 400, "BadRequest"),
    ("GET", f"{CMS}/..", None, {}, 400, "BadRequest"),
    ("GET", f"{CMS}?limit=ten", None, {}, 400, "BadRequest"),
    ("GET", f"{CMS}?labelSelector=a%20in%20(", None, {}, 400, "BadRequest"),
    ("GET", f"{CMS}?fieldSelector=spec.nope%3D1", None, {}, 400, "BadRequest"),
    ("POST", f"{CMS}?dryRun=Some", '{"metadata":{"name":"x"}}', {"Content-Type": "application/json"}, 422,
     "Invalid"),
    ("POST", "/api", "{}", {"Content-Type": "application/json"}, 405, "MethodNotAllowed"),
])
def test_bad_requests_get_status_bodies(api, kube_server, method, path, body, headers, code, reason):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}}, "default")
    _status(api(method, path, body, headers), code, reason)
    assert api("GET", f"{CMS}/c").status == 200  # still serving


def test_strategic_merge_patch_on_custom_resource_is_415(api, widgets):
    widgets.store.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
                         "default")
    resp = api("PATCH", "/apis/example.com/v1/namespaces/default/widgets/w", {"spec": {"a": 1}},
               {"Content-Type": "application/strategic-merge-patch+json"})
    body = _status(resp, 415, "UnsupportedMediaType")
    assert "application/merge-patch+json" in body["message"]


def test_oversized_body_is_413_and_server_keeps_serving(kube_server_factory, http_request):
    served = kube_server_factory(max_body_bytes=1024)
    big = {"metadata": {"name": "big"}, "data": {"a": "x" * 2048}}
    _status(http_request(served.url, "POST", CMS, big), 413, "RequestEntityTooLarge")
    huge = b"x" * (8 * 1024 * 1024)
    try:
        resp = http_request(served.url, "POST", CMS, huge, {"Content-Type": "application/json"})
        _status(resp, 413, "RequestEntityTooLarge")
    except ConnectionError:
        pass  # the server may close before the client finished sending; either way it keeps serving
    assert http_request(served.url, "POST", CMS, {"metadata": {"name": "small"}}).status == 201


def test_delete_options_from_body_and_query(api, kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "d1"}}, "default")
    uid = store.get("configmaps", "d1", "default")["metadata"]["uid"]
    conflict = api("DELETE", f"{CMS}/d1", {"preconditions": {"uid": "wrong"}})
    assert _status(conflict, 409, "Conflict")["message"].startswith("Operation cannot be fulfilled")
    assert api("DELETE", f"{CMS}/d1", {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]}).status == 200
    assert store.get("configmaps", "d1", "default")
    assert api("DELETE", f"{CMS}/d1?dryRun=All").status == 200
    assert store.get("configmaps", "d1", "default")
    deleted = api("DELETE", f"{CMS}/d1", {"preconditions": {"uid": uid}, "propagationPolicy": "Foreground"})
    assert deleted.status == 200
    _status(api("DELETE", f"{CMS}/d1"), 404, "NotFound")  # already gone
    store.create("configmaps", {"metadata": {"name": "d2"}}, "default")
    _status(api("DELETE", f"{CMS}/d2?propagationPolicy=Sideways"), 422, "Invalid")


def test_finalizer_keeps_object_and_delete_collection(api, kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "f", "finalizers": ["x/y"], "labels": {"k": "v"}}}, "default")
    store.create("configmaps", {"metadata": {"name": "g", "labels": {"k": "v"}}}, "default")
    kept = api("DELETE", f"{CMS}/f")
    assert kept.status == 200 and kept.json()["metadata"]["deletionTimestamp"]
    gone = api("DELETE", f"{CMS}?labelSelector=k%3Dv")
    assert gone.status == 200 and gone.json()["kind"] == "ConfigMapList"
    assert [o["metadata"]["name"] for o in store.objects("configmaps", "default")] == ["f"]
    api("PATCH", f"{CMS}/f", {"metadata": {"finalizers": None}},
        {"Content-Type": "application/merge-patch+json"})
    assert store.objects("configmaps", "default") == []


def test_unexpected_exception_is_a_500_status(api, kube_server, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(kube_server.store, "list", boom)
    body = _status(api("GET", CMS), 500, "InternalError")
    assert "kaput" in body["message"] and "Traceback" not in body["message"]
    monkeypatch.undo()
    assert api("GET", CMS).status == 200


def test_apply_that_creates_is_201_without_an_audit_log(kube_server_factory):
    from fakekube.store import Store

    from .conftest import request

    server = kube_server_factory(store=Store(audit=False))
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: '1'\n"
    ssa = {"Content-Type": "application/apply-patch+yaml"}
    assert request(server.url, "PATCH", f"{CMS}/applied?fieldManager=me", body, ssa).status == 201
    assert request(server.url, "PATCH", f"{CMS}/applied?fieldManager=me", body, ssa).status == 200
