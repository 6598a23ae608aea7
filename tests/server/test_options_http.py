"""List, watch and write options and the shape of lists over HTTP, as kube-apiserver v1.37.2 answered them
(every expected message below was observed on the oracle, oracle/)."""

from __future__ import annotations

import json

import pytest
import yaml

CMS = "/api/v1/namespaces/default/configmaps"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"


def _invalid(resp, kind: str) -> tuple[str, list[dict]]:
    body = resp.json()
    assert resp.status == 422 and body["reason"] == "Invalid"
    assert (body["details"]["group"], body["details"]["kind"]) == ("meta.k8s.io", kind)
    return body["message"], body["details"]["causes"]


@pytest.mark.parametrize("query, message", [
    ("resourceVersionMatch=NotOlderThan",
     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"),
    ("resourceVersionMatch=Bogus&resourceVersion=1",
     'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""'),
    ("resourceVersionMatch=Exact&resourceVersion=0",
     'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    ("resourceVersionMatch=Exact&continue=abc",
     "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, "
     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]"),
    ("sendInitialEvents=true", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"),
    ("watch=1&sendInitialEvents=true",
     "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
    ("watch=1&sendInitialEvents=false",
     "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
    ("watch=1&resourceVersionMatch=NotOlderThan",
     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
     "provided"),
    ("watch=1&resourceVersionMatch=Exact&sendInitialEvents=true",
     "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, "
     'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'),
    # a watch from no resourceVersion is defaulted to sendInitialEvents + NotOlderThan, which continue forbids
    ("watch=1&continue=abc",
     "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"),
])
def test_list_options_validation(api, query, message):
    got, causes = _invalid(api("GET", f"{CMS}?{query}"), "ListOptions")
    assert got == f'ListOptions.meta.k8s.io "" is invalid: {message}'
    assert all(c["field"] for c in causes)


@pytest.mark.parametrize("query, message", [
    ("timeoutSeconds=soon", 'strconv.ParseInt: parsing "soon": invalid syntax'),
    ("limit=", 'strconv.ParseInt: parsing "": invalid syntax'),
    ("limit=abc&timeoutSeconds=x", 'strconv.ParseInt: parsing "x": invalid syntax'),  # timeoutSeconds first
    ("limit=abc&labelSelector=a%3D%3D%3Db", 'strconv.ParseInt: parsing "abc": invalid syntax'),
    ("resourceVersionMatch=Bogus&labelSelector=a%3D%3D%3Db", "unable to parse requirement: found '=', expected: identifier"),
    ("fieldSelector=data.a%3Db",
     '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ("resourceVersion=abc",
     'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'),
])
def test_list_parameters_that_do_not_decode_are_400(api, query, message):
    body = api("GET", f"{CMS}?{query}").json()
    assert (body["code"], body["reason"], body["message"]) == (400, "BadRequest", message)


@pytest.mark.parametrize("path, message", [
    ("/apis/batch/v1/namespaces/default/jobs", 'field label "bogus" not supported for Job'),
    ("/api/v1/namespaces/default/pods", "field label not supported: bogus"),
    ("/apis/apps/v1/namespaces/default/replicasets",
     '"bogus" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ("/apis/resource.k8s.io/v1/resourceslices", "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: bogus"),
])
def test_each_kind_words_its_unsupported_field_labels(api, path, message):
    assert api("GET", f"{path}?fieldSelector=bogus%3D1").json()["message"] == message


def test_cluster_scoped_kinds_take_an_empty_namespace_field(api, kube_server):
    kube_server.store.create("clusterroles", {"metadata": {"name": "r"}})
    roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
    assert api("GET", f"{roles}?fieldSelector=metadata.namespace%3D").json()["items"]
    assert api("GET", f"{roles}?fieldSelector=metadata.namespace%3Dx").json()["items"] == []
    assert api("GET", "/api/v1/nodes?fieldSelector=metadata.namespace%3D").status == 400  # its own conversion


def test_a_watch_with_a_bad_resource_version_is_a_500(api):
    assert api("GET", f"{CMS}?watch=1&resourceVersion=abc").json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
        "message": 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'}


def test_a_watch_by_name_with_another_name_selected(api):
    resp = api("GET", "/api/v1/watch/namespaces/default/configmaps/c?fieldSelector=metadata.name%3Dd")
    assert resp.json()["message"] == "fieldSelector metadata.name doesn't match requested name"


def test_any_watch_value_but_false_watches(api, kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    for value in ("maybe", ""):
        events = [json.loads(line) for line in api("GET", f"{CMS}?watch={value}&timeoutSeconds=1").body.splitlines()]
        assert [e["type"] for e in events] == ["ADDED"]


def test_a_plain_watch_with_bookmarks_marks_the_end_of_its_initial_events(api, kube_server):
    # SetListOptionsDefaults turns a watch from no resourceVersion (or "0") into sendInitialEvents=true
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    for rv in ("", "&resourceVersion=0"):
        body = api("GET", f"{CMS}?watch=1&allowWatchBookmarks=true&timeoutSeconds=1{rv}").body
        events = [json.loads(line) for line in body.splitlines()]
        assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
        assert events[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    body = api("GET", f"{CMS}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=1").body
    assert body == b""  # no initial events asked: from now


def test_built_in_list_items_have_no_type_meta(api, kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "c", "labels": {"x": "1"}}}, "default")
    listing = api("GET", CMS).json()
    assert (listing["kind"], listing["apiVersion"]) == ("ConfigMapList", "v1")
    assert "kind" not in listing["items"][0] and "apiVersion" not in listing["items"][0]
    assert "continue" not in listing["metadata"]
    as_yaml = yaml.safe_load(api("GET", CMS, None, {"Accept": "application/yaml"}).body)
    assert "kind" not in as_yaml["items"][0]
    table = api("GET", f"{CMS}?includeObject=Object", None,
                {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()
    assert table["rows"][0]["object"]["kind"] == "ConfigMap"  # a Table's rows keep theirs
    deleted = api("DELETE", f"{CMS}?labelSelector=x%3D1").json()
    assert deleted["kind"] == "ConfigMapList" and "kind" not in deleted["items"][0]
    kube_server.store.create("configmaps", {"metadata": {"name": "d"}}, "default")
    assert api("GET", f"{CMS}/d").json()["kind"] == "ConfigMap"  # a single object keeps its TypeMeta


def test_custom_resource_lists_keep_type_meta_and_always_say_continue(api, widgets):
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    api("POST", WIDGETS, widget)
    api("POST", WIDGETS, {**widget, "metadata": {"name": "w2"}})
    listing = api("GET", WIDGETS).json()
    assert listing["items"][0]["kind"] == "Widget" and listing["metadata"]["continue"] == ""
    page = api("GET", f"{WIDGETS}?limit=1").json()
    assert page["metadata"]["continue"] and page["metadata"]["remainingItemCount"] == 1
    assert api("GET", f"{WIDGETS}?labelSelector=x%3Dy").json()["metadata"]["continue"] == ""


@pytest.mark.parametrize("method, path, kind", [("POST", CMS, "CreateOptions"), ("PUT", f"{CMS}/c", "UpdateOptions"),
                                               ("PATCH", f"{CMS}/c", "PatchOptions"),
                                               ("DELETE", f"{CMS}/c", "DeleteOptions"),
                                               ("DELETE", CMS, "DeleteOptions")])
def test_dry_run_values(api, kube_server, method, path, kind):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    body = {"metadata": {"name": "c"}} if method in ("POST", "PUT", "PATCH") else None
    headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else None
    for query, shown in (("dryRun=Everything", '["Everything"]'), ("dryRun=", '[""]'),
                         ("dryRun=All&dryRun=x", '["All","x"]')):
        message, causes = _invalid(api(method, f"{path}?{query}", body, headers), kind)
        detail = f'Unsupported value: {shown}: supported values: "All"'
        assert message == f'{kind}.meta.k8s.io "" is invalid: dryRun: {detail}'
        assert causes == [{"reason": "FieldValueNotSupported", "message": detail, "field": "dryRun"}]
    assert api("GET", f"{CMS}/c").status == 200


def test_write_options_are_checked_together_in_upstreams_order(api):
    message, causes = _invalid(api("POST", f"{CMS}?dryRun=x&fieldValidation=y&fieldManager=%01", {}), "CreateOptions")
    assert [c["field"] for c in causes] == ["fieldManager", "dryRun", "fieldValidation"]
    assert causes[0]["message"] == 'Invalid value: "\\x01": invalid character U+0001 (at position 0)'
    _, causes = _invalid(api("POST", f"{CMS}?fieldManager={'m' * 130}", {}), "CreateOptions")
    assert causes == [{"reason": "FieldValueTooLong", "message": "Too long: may not be more than 128 bytes",
                       "field": "fieldManager"}]


def test_delete_options_are_checked_together(api):
    message, causes = _invalid(api("DELETE", f"{CMS}/nothing?propagationPolicy=x&orphanDependents=true&dryRun=y"),
                               "DeleteOptions")
    assert [c["message"] for c in causes] == [
        'Invalid value: "x": orphanDependents and deletionPropagation cannot be both set',
        'Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil"',
        'Unsupported value: ["y"]: supported values: "All"']
    assert api("DELETE", f"{CMS}/nothing?gracePeriodSeconds=abc").json()["message"] == (
        'strconv.ParseInt: parsing "abc": invalid syntax')
    assert api("DELETE", f"{CMS}/nothing?orphanDependents=maybe&dryRun=All").status == 404  # "maybe" is true


@pytest.mark.parametrize("body, message", [
    ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
     'no kind "ConfigMap" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"'),
    ({"kind": "Wrong"}, 'no kind "Wrong" is registered for version "meta.k8s.io/v1" in scheme '
                        '"pkg/runtime/scheme.go:111"'),
    ({"apiVersion": "v1", "kind": "CreateOptions"}, "decoded object cannot be converted to DeleteOptions"),
])
def test_a_delete_body_of_another_kind_is_refused_before_the_delete(api, body, message):
    # Observed on kube-apiserver v1.37.2: the meta scheme decodes the body (apiserver
    # pkg/endpoints/handlers/delete.go); the object stays.
    api("POST", CMS, {"metadata": {"name": "c"}})
    resp = api("DELETE", f"{CMS}/c", body)
    assert (resp.status, resp.json()["reason"], resp.json()["message"]) == (400, "BadRequest", message)
    assert api("GET", f"{CMS}/c").status == 200
    api("DELETE", f"{CMS}/c")
