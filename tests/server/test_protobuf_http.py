"""The HTTP front speaking protobuf: bodies in, negotiated responses, errors and watch streams out, and the
answers the real server gives to what it does not accept (400, 406, 413, 415) without touching the store."""

from __future__ import annotations

import http.client
import threading
import time
from urllib.parse import urlsplit

import pytest
import yaml

from fakekube.server.protobuf import MEDIA_TYPE, WATCH_MEDIA_TYPE, default_codec, read_frames
from fakekube.server.protobuf.envelope import MAGIC, wrap

CODEC = default_codec()
CMS = "/api/v1/namespaces/default/configmaps"
PB = {"Content-Type": MEDIA_TYPE, "Accept": f"{MEDIA_TYPE},application/json"}  # what client-go sends
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"


def _cm(name: str = "c", **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def test_create_get_list_update_delete_in_protobuf(api, kube_server):
    resp = api("POST", CMS, CODEC.encode(_cm(a="1")), PB)
    assert resp.status == 201 and resp.headers["content-type"] == MEDIA_TYPE
    created = CODEC.decode(resp.body)
    stored = kube_server.store.get("configmaps", "c", "default")
    assert created["metadata"]["uid"] == stored["metadata"]["uid"] and created["data"] == {"a": "1"}
    got = api("GET", f"{CMS}/c", None, {"Accept": MEDIA_TYPE})
    assert CODEC.decode(got.body)["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    listing = CODEC.decode(api("GET", CMS, None, {"Accept": MEDIA_TYPE}).body)
    assert listing["kind"] == "ConfigMapList" and [i["metadata"]["name"] for i in listing["items"]] == ["c"]
    update = {**stored, "data": {"a": "2"}}
    assert api("PUT", f"{CMS}/c", CODEC.encode(update), PB).status == 200
    assert kube_server.store.get("configmaps", "c", "default")["data"] == {"a": "2"}
    options = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground",
               "preconditions": {"uid": stored["metadata"]["uid"]}}
    deleted = api("DELETE", f"{CMS}/c", CODEC.encode(options), PB)
    assert deleted.status == 200, deleted.body
    assert kube_server.store.objects("configmaps", "default") == []


def test_errors_are_protobuf_status_when_protobuf_was_negotiated(api):
    resp = api("GET", f"{CMS}/missing", None, {"Accept": MEDIA_TYPE})
    assert resp.status == 404 and resp.headers["content-type"] == MEDIA_TYPE
    status = CODEC.decode(resp.body)
    assert status["kind"] == "Status" and status["reason"] == "NotFound" and status["code"] == 404
    assert status["details"] == {"name": "missing", "kind": "configmaps"}


@pytest.mark.parametrize("accept, expected", [
    (None, "application/json"),
    ("*/*", "application/json"),
    (f"{MEDIA_TYPE}, */*", MEDIA_TYPE),
    (f"application/json;q=0.9, {MEDIA_TYPE}", MEDIA_TYPE),
    (f"{MEDIA_TYPE};q=0.5, application/json", "application/json"),
    # goautoneg's ordering puts a concrete subtype before "application/*" whatever the q-values say.
    (f"application/*;q=1, {MEDIA_TYPE};q=0.9", MEDIA_TYPE),
    (f"*/*;q=1, {MEDIA_TYPE};q=0.9", MEDIA_TYPE),
    ("application/yaml, application/json", "application/yaml"),
    (f"text/html, {MEDIA_TYPE};q=0.1", MEDIA_TYPE),
    (f"{MEDIA_TYPE};as=Table;v=v1;g=meta.k8s.io, application/json", "application/json"),  # no protobuf Tables
    ("application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=Table;v=v1;g=meta.k8s.io"),
    (f"{MEDIA_TYPE};charset=utf-8", MEDIA_TYPE),  # unknown parameters are ignored
])
def test_negotiated_media_type(api, kube_server, accept, expected):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    resp = api("GET", f"{CMS}/c", None, {"Accept": accept} if accept else {})
    assert resp.status == 200 and resp.headers["content-type"] == expected


def test_nothing_acceptable_is_406_before_the_verb_runs(api, kube_server):
    before = kube_server.store.resource_version
    resp = api("POST", CMS, _cm(), {"Accept": "text/html"})
    assert resp.status == 406 and resp.headers["content-type"] == "application/json"
    # observed on kube-apiserver v1.37.2: the route (go-restful) refuses first, with its own text
    assert resp.json()["message"] == ("406: Not Acceptable\n\nAvailable representations: application/json, "
                                      f"application/yaml, {MEDIA_TYPE}")
    assert kube_server.store.resource_version == before
    # The 406 Status is negotiated again without transforms (responsewriters.ErrorNegotiated): a watch's in
    # YAML when YAML is what the client accepts, a Table-in-protobuf request's as raw JSON (observed on
    # kube-apiserver v1.37.2).
    watch = api("GET", f"{CMS}?watch=true", None, {"Accept": "application/yaml"})
    assert watch.status == 406 and watch.headers["content-type"] == "application/yaml"
    assert yaml.safe_load(watch.body)["message"] == (
        f"only the following media types are accepted: application/json;stream=watch, {WATCH_MEDIA_TYPE}")
    table = api("GET", CMS, None, {"Accept": f"{MEDIA_TYPE};as=Table;g=meta.k8s.io;v=v1"})
    assert table.status == 406 and table.headers["content-type"] == "application/json"


def test_discovery_stays_json(api):
    for path in ("/api", "/api/v1", "/apis", "/apis/apps/v1"):
        resp = api("GET", path, None, {"Accept": f"{MEDIA_TYPE}, application/json"})
        assert resp.status == 200 and resp.headers["content-type"] == "application/json", path


def test_custom_resources_are_json_only(api, widgets):
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    body = wrap("example.com/v1", "Widget", b"\x0a\x03\x0a\x01w")
    resp = api("POST", WIDGETS, body, PB)
    assert resp.status == 400 and resp.json()["message"] == (
        'Widget in version "v1" cannot be handled as a Widget: object *unstructured.Unstructured does not '
        "implement the protobuf marshalling interface and cannot be encoded to a protobuf message")
    assert widgets.store.objects("widgets") == []
    assert api("POST", WIDGETS, widget, {"Accept": f"{MEDIA_TYPE},application/json"}).headers[
        "content-type"] == "application/json"
    only = api("GET", f"{WIDGETS}/w", None, {"Accept": MEDIA_TYPE})
    # The Status of the 406 is written in protobuf, which Status speaks (observed on kube-apiserver v1.37.2).
    assert only.status == 406 and only.headers["content-type"] == MEDIA_TYPE
    assert CODEC.decode(only.body)["message"] == (
        f"only the following media types are accepted: application/json, application/yaml, {MEDIA_TYPE}")


def test_a_kind_without_a_protobuf_schema_is_415(api, widget_crd):
    resp = api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
               wrap("apiextensions.k8s.io/v1", "CustomResourceDefinition", b""), PB)
    assert resp.status == 415 and resp.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: application/json, "
        "application/yaml")


def test_patch_bodies_are_never_protobuf(api, kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    resp = api("PATCH", f"{CMS}/c", CODEC.encode(_cm()), PB)
    # go-restful refuses a Content-Type the PATCH route does not consume (observed on kube-apiserver v1.37.2)
    assert resp.status == 415 and CODEC.decode(resp.body)["message"] == "415: Unsupported Media Type"


@pytest.mark.parametrize("body, message", [
    (b"\x00\x01", "the object provided is unrecognized (must be of type ConfigMap): provided data does not "
                  "appear to be a protobuf message, expected prefix [107 56 115 0] (0001)"),
    (MAGIC + b"\x0a\x8f", "the object provided is unrecognized (must be of type ConfigMap): unexpected EOF "
                          "(6b3873000a8f)"),
    (wrap("v1", "ConfigMap", b"\x0a\x02\x0a\xff"), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                                                   "unexpected EOF"),
    (wrap("v1", "ConfigMap", b"\x08\x01"), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: proto: '
                                           "wrong wireType = 0 for field Metadata"),
    (wrap("v1", "Gadget", b""), 'Gadget in version "v1" cannot be handled as a ConfigMap: no kind "Gadget" is '
                                'registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'),
])
def test_malformed_bodies_are_400_and_change_nothing(api, kube_server, body, message):
    before = kube_server.store.resource_version
    resp = api("POST", CMS, body, PB)
    assert resp.status == 400, resp.body
    status = CODEC.decode(resp.body)
    assert status["reason"] == "BadRequest" and status["message"] == message
    assert kube_server.store.resource_version == before and kube_server.store.objects("configmaps") == []


def test_an_oversized_protobuf_body_is_413(kube_server_factory, http_request):
    served = kube_server_factory(max_body_bytes=1024)
    resp = http_request(served.url, "POST", CMS, CODEC.encode(_cm(a="x" * 2048)), PB)
    # read before the request is routed, so the Status is JSON (the real server negotiates it)
    assert resp.status == 413 and resp.json()["reason"] == "RequestEntityTooLarge"
    assert served.store.objects("configmaps") == []


def test_an_envelope_without_type_meta_takes_the_endpoints(api, kube_server):
    body = MAGIC + b"\x12\x05\x0a\x03\x0a\x01x"  # Unknown{raw: ConfigMap{metadata{name: x}}}, no TypeMeta
    assert api("POST", CMS, body, PB).status == 201
    assert kube_server.store.get("configmaps", "x", "default")["kind"] == "ConfigMap"


def test_protobuf_watch_stream(kube_server):
    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    kube_server.store.create("configmaps", {"metadata": {"name": "before"}}, "default")
    rv = kube_server.store.resource_version
    conn.request("GET", f"{CMS}?watch=true&resourceVersion={rv}&timeoutSeconds=3&allowWatchBookmarks=true",
                 headers={"Accept": f"{MEDIA_TYPE}, application/json"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type") == WATCH_MEDIA_TYPE

    def writes() -> None:
        time.sleep(0.3)
        kube_server.store.create("configmaps", {"metadata": {"name": "a"}, "data": {"k": "v"}}, "default")
        kube_server.store.delete("configmaps", "a", "default")
        kube_server.store.ensure_namespace("other")  # a change the watch does not see moves its bookmark
        kube_server.store.create("configmaps", {"metadata": {"name": "b"}}, "other")

    writer = threading.Thread(target=writes)
    writer.start()
    events = [CODEC.decode_event(frame) for frame in read_frames(resp.read())]
    writer.join()
    conn.close()
    assert [(t, o["metadata"].get("name")) for t, o in events] == [("ADDED", "a"), ("DELETED", "a"),
                                                                   ("BOOKMARK", None)]
    assert events[0][1]["data"] == {"k": "v"} and events[0][1]["kind"] == "ConfigMap"
    assert events[2][1]["metadata"]["resourceVersion"] == kube_server.store.resource_version


def test_an_expired_watch_is_a_protobuf_error_event(kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "a"}}, "default")
    kube_server.store.compact()
    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", f"{CMS}?watch=true&resourceVersion=1&timeoutSeconds=2", headers={"Accept": MEDIA_TYPE})
    [(event_type, status)] = [CODEC.decode_event(f) for f in read_frames(conn.getresponse().read())]
    conn.close()
    assert event_type == "ERROR" and status["kind"] == "Status" and status["code"] == 410


def test_a_scheduler_binds_a_pod_in_protobuf(api, kube_server):
    kube_server.store.create("pods", {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
                             "default")
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
               "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}
    resp = api("POST", "/api/v1/namespaces/default/pods/p/binding", CODEC.encode(binding), PB)
    assert resp.status == 201, resp.body
    assert kube_server.store.get("pods", "p", "default")["spec"]["nodeName"] == "node-1"


def test_quantities_in_a_protobuf_body_are_stored_canonical_as_from_json(api, kube_server):
    resources = {"requests": {"cpu": "1000m", "memory": "2048Ki"}, "limits": {"cpu": "1.5"}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"},
           "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}}
    resp = api("POST", "/api/v1/namespaces/default/pods", CODEC.encode(pod), PB)
    assert resp.status == 201, resp.body
    stored = kube_server.store.get("pods", "q", "default")["spec"]["containers"][0]["resources"]
    assert stored == {"requests": {"cpu": "1", "memory": "2Mi"}, "limits": {"cpu": "1500m"}}
    assert CODEC.decode(resp.body)["spec"]["containers"][0]["resources"] == stored
