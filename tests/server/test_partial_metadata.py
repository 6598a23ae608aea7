"""``Accept: ...;as=PartialObjectMetadata``: the metadata client's answers, as kube-apiserver v1.37.2 gives them.

The expected bodies and messages are the oracle's (GET, LIST, PATCH and WATCH with the metadata client's
Accept header); controller-runtime's ``ClientWithWatch`` test of a metadata watch failed on fakekube before
(it answered with the whole object, which client-go's watch decoder rejects as an ERROR event).
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest

from fakekube.server import negotiation, partial
from fakekube.watch import WatchEvent

# client-go metadata.Client: protobuf first (fakekube skips that clause), then JSON.
OBJECT = ("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
          "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
LIST = ("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")


@pytest.mark.parametrize(("accept", "expected"), [
    (OBJECT, ("application/json", "PartialObjectMetadata", "v1")),
    ("application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1", ("application/yaml", "PartialObjectMetadataList", "v1beta1")),
    ("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2,application/json", ("application/json", None, "v1")),
    ("application/json;as=PartialObjectMetadata;g=example.com;v=v1,application/json", ("application/json", None, "v1")),
])
def test_negotiation(accept, expected):
    choice = negotiation.negotiate(accept, (negotiation.JSON, negotiation.YAML, negotiation.PROTOBUF))
    assert (choice.media_type, choice.partial, choice.partial_version) == expected


def test_get_list_and_patch_answer_metadata_only(api, kube_server):
    store = kube_server.store
    for name in ("a", "b", "c"):
        store.create("configmaps", {"metadata": {"name": name, "labels": {"n": name}}, "data": {"x": "1"}}, "default")
    got = api("GET", "/api/v1/namespaces/default/configmaps/a", headers={"Accept": OBJECT})
    assert got.status == 200 and got.headers["content-type"] == "application/json"
    body = got.json()
    assert list(body) == ["kind", "apiVersion", "metadata"]
    assert body["kind"] == "PartialObjectMetadata" and body["apiVersion"] == "meta.k8s.io/v1"
    assert body["metadata"] == store.get("configmaps", "a", "default")["metadata"]

    listed = api("GET", "/api/v1/namespaces/default/configmaps?limit=2",
                 headers={"Accept": LIST.replace("v=v1", "v=v1beta1")}).json()
    assert listed["kind"] == "PartialObjectMetadataList" and listed["apiVersion"] == "meta.k8s.io/v1beta1"
    assert set(listed["metadata"]) == {"resourceVersion", "continue", "remainingItemCount"}
    assert listed["metadata"]["remainingItemCount"] == 1
    assert [(i["kind"], i["apiVersion"], i["metadata"]["name"]) for i in listed["items"]] == [
        ("PartialObjectMetadata", "meta.k8s.io/v1beta1", "a"), ("PartialObjectMetadata", "meta.k8s.io/v1beta1", "b")]

    # Observed on kube-apiserver v1.37.2: a list with no items has items: null (the handler appends to a nil
    # slice; apiserver v0.37.2 pkg/endpoints/handlers/response.go asPartialObjectMetadataList).
    empty = api("GET", "/api/v1/namespaces/default/configmaps?labelSelector=n%3Dnone", headers={"Accept": LIST}).json()
    assert empty["items"] is None and empty["kind"] == "PartialObjectMetadataList"

    patched = api("PATCH", "/api/v1/namespaces/default/configmaps/a", body=b'{"metadata":{"labels":{"p":"q"}}}',
                  headers={"Accept": OBJECT, "Content-Type": "application/merge-patch+json"})
    assert patched.status == 200
    assert patched.json()["kind"] == "PartialObjectMetadata" and patched.json()["metadata"]["labels"]["p"] == "q"
    # An error keeps its Status.
    missing = api("GET", "/api/v1/namespaces/default/configmaps/nope", headers={"Accept": OBJECT})
    assert missing.status == 404 and missing.json()["kind"] == "Status"


@pytest.mark.parametrize(("path", "accept", "message"), [
    ("/api/v1/namespaces/default/configmaps", OBJECT,
     "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"),
    ("/api/v1/namespaces/default/configmaps/a", LIST,
     "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)"),
    ("/apis/apps/v1/namespaces/default/deployments", OBJECT,
     "you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)"),
    ("/apis/example.com/v1/namespaces/default/widgets", OBJECT,
     "you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)"),
])
def test_the_wrong_shape_is_a_406(api, widgets, path, accept, message):
    widgets.store.create("configmaps", {"metadata": {"name": "a"}}, "default")
    resp = api("GET", path, headers={"Accept": accept})
    assert resp.status == 406
    assert resp.json()["reason"] == "NotAcceptable" and resp.json()["message"] == message


def test_watch_events_carry_partial_objects(kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "a"}, "data": {"x": "1"}}, "default")
    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", "/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Da"
                            "&timeoutSeconds=30", headers={"Accept": OBJECT})
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type") == "application/json"
        first = json.loads(resp.readline())
    finally:
        conn.close()
    assert first["type"] == "ADDED"
    assert first["object"] == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                               "metadata": store.get("configmaps", "a", "default")["metadata"]}


def test_watch_errors_keep_their_status_and_bookmarks_are_partial():
    render = partial.event_renderer("v1")
    status = {"kind": "Status", "code": 410}
    assert render(WatchEvent("ERROR", status)) is status
    assert render(WatchEvent("BOOKMARK", {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}})) == {
        "kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "7"}}
