"""The defects of issue 24, sent as a client sends them to ``fakekube serve``: each answer is the one
kube-apiserver v1.37.2 gave to the same request (docs/malformed-input.md has the list and the upstream
sources), and a refused request leaves the stored object as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest

CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE = {"Content-Type": "application/merge-patch+json"}
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}
YAML = {"Content-Type": "application/yaml"}
OBJECT_META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                     "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
                     "ownerReferences", "finalizers", "managedFields")


def _status(resp: Any, code: int, reason: str | None, message: str | None = None) -> dict[str, Any]:
    assert resp.status == code, resp.body
    body = resp.json()
    assert body["kind"] == "Status" and body.get("reason") == reason, body
    if message is not None:
        assert body["message"] == message
    return body


def _summary(body: bytes) -> str:
    """apiserver ``summarizeData``: the first 30 bytes of a body that starts with ``{``, else their hex."""
    if body[:1] == b"{":
        return body[:30].decode() + (" ..." if len(body) > 30 else "")
    return body[:30].hex() + (" ..." if len(body) > 30 else "")


def _patched_text(obj: dict[str, Any], **changes: Any) -> str:
    """The server's text of a patch result that changed only top-level scalars: keys sorted, ObjectMeta in its
    Go field order."""
    doc = {**obj, **changes}
    meta = doc["metadata"]
    doc["metadata"] = {key: meta[key] for key in sorted(meta, key=OBJECT_META_ORDER.index)}
    return json.dumps({key: doc[key] for key in sorted(doc)}, separators=(",", ":"))


@pytest.fixture
def configmap(api: Any) -> dict[str, Any]:
    created = api("POST", CMS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert created.status == 201
    return created.json()


# -- 1. a patch of kind or apiVersion --------------------------------------------------------------------------


@pytest.mark.parametrize(("headers", "body", "kind", "detail"), [
    (JSON_PATCH, [{"op": "replace", "path": "/kind", "value": "Secret"}], "Secret",
     "converting (v1.Secret) to (core.ConfigMap): unknown conversion"),
    (MERGE, {"kind": "Secret"}, "Secret", "converting (v1.Secret) to (core.ConfigMap): unknown conversion"),
    (MERGE, {"kind": "Foo"}, "Foo", 'no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"'),
    (MERGE, {"kind": "ConfigMapList"}, "ConfigMapList",
     "converting (v1.ConfigMapList) to (core.ConfigMap): unknown conversion"),
])
def test_a_patch_of_kind_is_the_422_on_patch(api: Any, configmap: dict[str, Any], headers: dict[str, str],
                                             body: Any, kind: str, detail: str) -> None:
    shown = _patched_text(configmap, kind=kind)
    status = _status(api("PATCH", f"{CMS}/c", body, headers), 422, "Invalid",
                     f' "" is invalid: patch: Invalid value: {json.dumps(shown)}: {detail}')
    assert status["details"] == {"causes": [{"reason": "FieldValueInvalid", "field": "patch",
                                             "message": f"Invalid value: {json.dumps(shown)}: {detail}"}]}
    assert api("GET", f"{CMS}/c").json() == configmap  # nothing stored


def test_a_patch_of_api_version(api: Any, configmap: dict[str, Any]) -> None:
    shown = _patched_text(configmap, apiVersion="apps/v1")
    _status(api("PATCH", f"{CMS}/c", {"apiVersion": "apps/v1"}, MERGE), 422, "Invalid",
            f' "" is invalid: patch: Invalid value: {json.dumps(shown)}: no kind "ConfigMap" is registered for '
            'version "apps/v1" in scheme "pkg/runtime/scheme.go:111"')
    # Without an apiVersion the result decodes into nothing, its name included.
    _status(api("PATCH", f"{CMS}/c", [{"op": "remove", "path": "/apiVersion"}], JSON_PATCH), 400, "BadRequest",
            "the name of the object (c based on URL) was undeterminable: name must be provided")
    assert api("GET", f"{CMS}/c").json() == configmap


def test_a_strategic_merge_patch_ignores_kind_and_api_version(api: Any, configmap: dict[str, Any]) -> None:
    resp = api("PATCH", f"{CMS}/c", {"kind": "Secret", "apiVersion": "apps/v1", "data": {"a": "1"}}, SMP)
    assert resp.status == 200
    assert (resp.json()["kind"], resp.json()["apiVersion"], resp.json()["data"]) == ("ConfigMap", "v1", {"a": "1"})
    _status(api("PATCH", f"{CMS}/c", {"kind": 5}, SMP), 422, "Invalid",
            ' "" is invalid: patch: Invalid value: "map[kind:5]": cannot convert int64 to string')


def test_a_body_of_another_kind(api: Any, configmap: dict[str, Any]) -> None:
    _status(api("PUT", f"{CMS}/c", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}}), 400,
            "BadRequest", 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to '
                          "(core.ConfigMap): unknown conversion")
    # decoded as the kind it names first: a Secret's data must be base64
    _status(api("PUT", f"{CMS}/c", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"},
                                    "data": {"a": "1"}}), 400, "BadRequest",
            'Secret in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0')
    _status(api("POST", CMS, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}), 400,
            "BadRequest", 'Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) '
                          "to (core.ConfigMap): unknown conversion")
    _status(api("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers",
                {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"}}),
            400, "BadRequest", "the API version in the data (autoscaling/v2) does not match the expected API "
                               "version (autoscaling/v1)")
    _status(api("PUT", f"{CMS}/c", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}), 400, "BadRequest",
            "the name of the object (c based on URL) was undeterminable: name must be provided")
    assert api("GET", f"{CMS}/c").json() == configmap


@pytest.mark.parametrize(("path", "kind"), [
    ("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", ("CustomResourceDefinition", "apiextensions")),
    ("/apis/apiregistration.k8s.io/v1/apiservices", ("APIService", "apiregistration")),
])
def test_servers_with_a_scheme_of_their_own(api: Any, path: str, kind: tuple[str, str]) -> None:
    # apiextensions-apiserver and kube-aggregator register their group's kinds and metav1's, not ConfigMap or
    # Deployment: observed on kube-apiserver v1.37.2.
    for api_version, other in (("v1", "ConfigMap"), ("apps/v1", "Deployment")):
        _status(api("POST", path, {"apiVersion": api_version, "kind": other, "metadata": {"name": "x"}}), 400,
                "BadRequest", f'{other} in version "v1" cannot be handled as a {kind[0]}: no kind "{other}" is '
                              f'registered for version "{api_version}" in scheme "pkg/runtime/scheme.go:111"')
    _status(api("POST", path, {"apiVersion": "v1", "kind": "DeleteOptions", "metadata": {"name": "x"}}), 400,
            "BadRequest", f'DeleteOptions in version "v1" cannot be handled as a {kind[0]}: converting '
                          f"(v1.DeleteOptions) to ({kind[1]}.{kind[0]}): unknown conversion")


def test_custom_resources_of_another_kind(api: Any, widgets: Any) -> None:
    body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    stored = api("POST", WIDGETS, body).json()
    _status(api("PATCH", f"{WIDGETS}/w", {"kind": "Gadget"}, MERGE), 422, "Invalid",
            'Gadget.example.com "w" is invalid: kind: Invalid value: "Gadget": must be Widget')
    _status(api("PATCH", f"{WIDGETS}/w", {"apiVersion": "other/v1"}, MERGE), 422, "Invalid",
            'Widget.other "w" is invalid: apiVersion: Invalid value: "other/v1": must be example.com/v1')
    _status(api("PATCH", f"{WIDGETS}/w", [{"op": "remove", "path": "/apiVersion"}], JSON_PATCH), 500,
            "InternalError", "Internal error occurred: Object 'apiVersion' is missing in 'object has no apiVersion "
                             "field'")
    raw = json.dumps({"apiVersion": "example.com/v1", "metadata": {"name": "w2"}})
    _status(api("POST", WIDGETS, raw, {"Content-Type": "application/json"}), 400, "BadRequest",
            f"the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '{raw}' "
            f"({_summary(raw.encode())})")
    _status(api("POST", WIDGETS, {**body, "kind": "Gadget", "metadata": {"name": "w3"}}), 422, "Invalid",
            'Gadget.example.com "w3" is invalid: kind: Invalid value: "Gadget": must be Widget')
    assert api("GET", f"{WIDGETS}/w").json() == stored
    assert api("GET", f"{WIDGETS}/w2").status == 404 and api("GET", f"{WIDGETS}/w3").status == 404


# -- 2. YAML with no JSON form ----------------------------------------------------------------------------------


def test_yaml_values_become_what_the_server_stores(api: Any, widgets: Any) -> None:
    text = ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: yw}\n"
            "spec: {due: 2024-01-31, b: !!binary aGVsbG8=, s: !!set {a, b}, 1: one, true: yes, f: 1.0}\n")
    resp = api("POST", WIDGETS, text, YAML)
    assert resp.status == 201, resp.body
    expected = {"due": "2024-01-31", "b": "hello", "s": {"a": None, "b": None}, "1": "one", "true": True, "f": 1}
    assert resp.json()["spec"] == expected
    assert api("GET", f"{WIDGETS}/yw").json()["spec"] == expected
    assert [item["spec"] for item in api("GET", WIDGETS).json()["items"]] == [expected]


@pytest.mark.parametrize(("spec", "detail"), [
    ("{~: a}", 'unsupported map key of type: %!s(<nil>), key: <nil>, value: "a"'),
    ("{a: .nan}", "json: unsupported value: NaN"),
    ("{a: !!int abc}", "yaml: cannot decode !!str `abc` as a !!int"),
    ("{? [a, b] : c}", 'yaml: invalid map key: []interface {}{"a", "b"}'),
    ("\n\tname: x", "yaml: line 5: found character that cannot start any token"),
])
def test_yaml_refused_by_the_conversion(api: Any, widgets: Any, spec: str, detail: str) -> None:
    text = f"apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: yw}}\nspec: {spec}\n".encode()
    _status(api("POST", WIDGETS, text, YAML), 400, "BadRequest",
            f"the object provided is unrecognized (must be of type Widget): {detail} ({_summary(text)})")
    assert api("GET", f"{WIDGETS}/yw").status == 404
    assert api("GET", WIDGETS).status == 200


# -- 3. NaN, Infinity, 1e400 ------------------------------------------------------------------------------------


def test_json_that_go_refuses(api: Any, widgets: Any) -> None:
    raw = b'{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"n"},"spec":{"x":NaN}}'
    _status(api("POST", WIDGETS, raw, {"Content-Type": "application/json"}), 400, "BadRequest",
            "the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse "
            f"error: invalid character 'N' looking for beginning of value ({_summary(raw)})")
    raw = raw.replace(b"NaN", b"1e400")
    _status(api("POST", WIDGETS, raw, {"Content-Type": "application/json"}), 400, "BadRequest",
            'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number 1e400 into Go value '
            "of type float64")
    deployment = (b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1e400,'
                  b'"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":'
                  b'{"containers":[{"name":"c","image":"i"}]}}}}')
    _status(api("POST", DEPLOYMENTS, deployment, {"Content-Type": "application/json"}), 400, "BadRequest",
            'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1e400 into '
            "Go struct field DeploymentSpec.spec.replicas of type int32")
    assert api("GET", f"{WIDGETS}/n").status == 404 and api("GET", f"{DEPLOYMENTS}/d").status == 404
    one = api("POST", WIDGETS, raw.replace(b"1e400", b"1.0"), {"Content-Type": "application/json"})
    assert one.status == 201 and one.body.count(b'"x":1}') == 1  # Go writes float64(1) as 1


def test_patch_bodies_go_refuses(api: Any, configmap: dict[str, Any]) -> None:
    _status(api("PATCH", f"{CMS}/c", '{"data":{"a":NaN}}', MERGE), 400, "BadRequest", "invalid JSON patch")
    _status(api("PATCH", f"{CMS}/nope", '{"data":', MERGE), 400, "BadRequest", "invalid JSON patch")
    _status(api("PATCH", f"{CMS}/c", '{"data":{"a":1e400}}', MERGE), 400, "BadRequest",
            "error decoding patch: json: cannot unmarshal number 1e400 into Go value of type float64")
    _status(api("PATCH", f"{CMS}/c", '[{"op":"add","path":"/data","value":1e400}]', JSON_PATCH), 400, "BadRequest",
            "error decoding patch: json: cannot unmarshal number 1e400 into Go struct field jsonPatchOp.value of "
            "type float64")
    _status(api("PATCH", f"{CMS}/c", '{"data":{"a":1e400}}', SMP), 400, "BadRequest",
            "json: cannot unmarshal number 1e400 into Go value of type float64")
    assert api("GET", f"{CMS}/c").json() == configmap


def test_json_patch_as_evanphx_v4_applies_it(api: Any) -> None:
    """Observed on kube-apiserver v1.37.2 (fakekube.patch.evanphx ports gopkg.in/evanphx/json-patch.v4, which
    k8s.io/apiserver/pkg/endpoints/handlers/patch.go calls; NewGenericServerResponse drops its words)."""
    created = api("POST", CMS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"},
                                "data": {"a": "1", "h": "<"}})
    assert created.status == 201
    patched = api("PATCH", f"{CMS}/j", [{"op": "replace", "path": "/data/zz", "value": "v"},
                                        {"op": "copy", "from": "/data/nope", "path": "/data/x"},
                                        {"op": "test", "path": "/data/missing", "value": None}], JSON_PATCH)
    assert patched.status == 200 and patched.json()["data"] == {"a": "1", "h": "<", "x": "", "zz": "v"}
    for ops in ([{"op": "remove", "path": "/data/nope"}], [{"op": "test", "path": "/data/h", "value": "<"}],
                [{"op": "move", "from": "/data/nope", "path": "/data/y"}]):
        status = _status(api("PATCH", f"{CMS}/j", ops, JSON_PATCH), 422, "Invalid",
                         "the server rejected our request due to an error in our request")
        assert status["details"] == {}
    assert api("PATCH", f"{CMS}/j", '[{"op":"test","path":"/data/h","value":"\\u003c"}]', JSON_PATCH).status == 200


@pytest.mark.parametrize("ops", [
    [{"op": "add", "path": "/data", "value": {"b": "2"}}, {"op": "test", "path": ""}],
    [{"op": "replace", "path": ""}],
])
def test_json_patch_on_which_the_real_handler_panics(kube_server: Any, api: Any, configmap: dict[str, Any],
                                                     ops: list[dict[str, Any]]) -> None:
    """A nil pointer dereferenced in evanphx v4: kube-apiserver v1.37.2 closes the connection, no reply."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request("PATCH", f"{CMS}/c", body=json.dumps(ops).encode(), headers=JSON_PATCH)
        with pytest.raises(http.client.RemoteDisconnected):
            conn.getresponse()
    finally:
        conn.close()
    assert api("GET", f"{CMS}/c").json() == configmap  # nothing stored


def test_strategic_merge_patch_on_which_the_real_handler_panics(kube_server: Any, api: Any) -> None:
    """strategicpatch compares merge keys with Go's ==: two maps panic ("comparing uncomparable type
    map[string]interface {}"); kube-apiserver v1.37.2 closes the connection unanswered, nothing stored."""
    import http.client
    from urllib.parse import urlsplit

    services = "/api/v1/namespaces/default/services"
    created = api("POST", services, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                                     "spec": {"ports": [{"port": 80}]}})
    assert created.status == 201
    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request("PATCH", f"{services}/s", body=b'{"spec":{"ports":[{"port":{}}]}}', headers=SMP)
        with pytest.raises(http.client.RemoteDisconnected):
            conn.getresponse()
    finally:
        conn.close()
    assert api("GET", f"{services}/s").json() == created.json()


def test_a_null_list_element_is_the_zero_value(api: Any, configmap: dict[str, Any]) -> None:
    """encoding/json leaves a null element of a slice of values at its zero value (observed on
    kube-apiserver v1.37.2): [null] of []string is [""], of []OwnerReference [{}], for a body and a patch."""
    status = _status(api("POST", CMS, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"o",'
                                      '"ownerReferences":[null]}}', {"Content-Type": "application/json"}),
                     422, "Invalid")
    assert [c["field"] for c in status["details"]["causes"]] == [
        f"metadata.ownerReferences[0].{f}" for f in ("apiVersion", "kind", "name", "uid")]
    for headers in (MERGE, SMP):
        status = _status(api("PATCH", f"{CMS}/c", '{"metadata":{"finalizers":[null]}}', headers), 422, "Invalid")
        causes = status["details"]["causes"]
        assert causes[0] == {"reason": "FieldValueInvalid", "field": "metadata.finalizers",
                             "message": 'Invalid value: "": name part must be non-empty'}
    pods = "/api/v1/namespaces/default/pods"
    status = _status(api("POST", pods, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                        "spec": {"containers": [{"name": "c", "image": "i", "ports": [None]}],
                                                 "tolerations": [None]}}), 422, "Invalid")
    assert [c["field"] for c in status["details"]["causes"]] == [
        "spec.containers[0].ports[0].containerPort", "spec.tolerations[0].operator"]
    assert api("GET", f"{CMS}/c").json() == configmap


def test_a_null_field_is_the_zero_value_as_go_writes_it(api: Any) -> None:
    """A null field decodes to Go's zero value, written back as Go writes it (observed on kube-apiserver
    v1.37.2): an omitempty one not at all, a struct as {}, a non-omitempty string as ""; a nil slice without
    omitempty stays null (an EndpointSlice's endpoints)."""
    created = api("POST", CMS, {"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"name": "n", "labels": None, "finalizers": None},
                                "data": None, "immutable": None})
    assert created.status == 201
    body = created.json()
    assert "data" not in body and "immutable" not in body and "labels" not in body["metadata"]
    pods = "/api/v1/namespaces/default/pods"
    pod = api("POST", pods, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {"containers": [{"name": "c", "image": "i", "args": None, "resources": None,
                                                      "securityContext": None}], "hostname": None}})
    assert pod.status == 201
    container = pod.json()["spec"]["containers"][0]
    assert "args" not in container and "securityContext" not in container and container["resources"] == {}
    assert "hostname" not in pod.json()["spec"]
    status = _status(api("POST", "/api/v1/namespaces/default/services",
                         {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                          "spec": {"ports": [{"name": "x", "port": None}]}}), 422, "Invalid")
    assert status["details"]["causes"][0] == {"reason": "FieldValueInvalid", "field": "spec.ports[0].port",
                                              "message": "Invalid value: 0: must be between 1 and 65535, inclusive"}


# -- 4. what ended in a Python exception --------------------------------------------------------------------------


def test_deep_bodies(api: Any, widgets: Any) -> None:
    deep = "[" * 1000 + "1" + "]" * 1000
    body = '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"deep"},"spec":{"x":' + deep + "}}"
    assert api("POST", WIDGETS, body, {"Content-Type": "application/json"}).status == 201
    assert api("GET", f"{WIDGETS}/deep").status == 200
    too_deep = body.replace(deep, "[" * 10001 + "]" * 10001).replace("deep", "deeper").encode()
    _status(api("POST", WIDGETS, too_deep, {"Content-Type": "application/json"}), 400, "BadRequest",
            "the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse "
            f"error: invalid character '[' exceeded max depth ({_summary(too_deep)})")


def test_apply_with_metadata_of_the_wrong_type(api: Any) -> None:
    _status(api("PATCH", f"{CMS}/a?fieldManager=m", '{"apiVersion":"v1","kind":"ConfigMap","metadata":true}', APPLY),
            500, None, "failed to create typed patch object (/; /v1, Kind=ConfigMap): .metadata: expected map, got "
                       "&{true}")
    assert api("GET", f"{CMS}/a").status == 404


def test_crd_pattern_that_go_does_not_compile(api: Any, widget_crd: dict[str, Any]) -> None:
    widget_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = {
        "type": "object", "properties": {"s": {"type": "string", "pattern": "(?=x)a"}}}
    path = "spec.validation.openAPIV3Schema.properties[spec].properties[s].pattern"
    _status(api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widget_crd), 422, "Invalid",
            f'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: {path}: Invalid value: '
            '"(?=x)a": must be a valid regular expression, but isn\'t: error parsing regexp: invalid or unsupported '
            "Perl syntax: `(?=`")


def test_list_query_parameters(api: Any, configmap: dict[str, Any]) -> None:
    names = [item["metadata"]["name"] for item in api("GET", f"{CMS}?limit=-5").json()["items"]]
    assert "c" in names  # a limit of zero or less is no limit
    big = "9" * 5000
    _status(api("GET", f"{CMS}?resourceVersion={big}"), 400, "BadRequest",
            f'invalid resource version: resourceVersion: Invalid value: "{big}": strconv.ParseUint: parsing '
            f'"{big}": value out of range')
    _status(api("GET", f"{CMS}/c?resourceVersion=abc"), 500, None,
            'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax')
    _status(api("GET", f"{CMS}?limit=abc"), 400, "BadRequest", 'strconv.ParseInt: parsing "abc": invalid syntax')
    _status(api("GET", f"{CMS}?timeoutSeconds=99999999999999999999"), 400, "BadRequest",
            'strconv.ParseInt: parsing "99999999999999999999": value out of range')
    _status(api("GET", f"{CMS}/.."), 400, "BadRequest", 'Name parameter invalid: "..": may not be \'..\'')


# -- 5. apply with a map or list of the wrong type --------------------------------------------------------------


def _deployment(containers: Any, **spec: Any) -> str:
    return json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                       "spec": {"selector": {"matchLabels": {"a": "b"}}, **spec, "template": {
                           "metadata": {"labels": {"a": "b"}}, "spec": {"containers": containers}}}})


@pytest.mark.parametrize(("body", "detail"), [
    (_deployment({"name": "a", "image": "x"}),
     ".spec.template.spec.containers: expected list, got &{map[image:x name:a]}"),
    (_deployment([{"name": "a", "image": "x", "env": {"a": "b"}}]),
     '.spec.template.spec.containers[name="a"].env: expected list, got &{map[a:b]}'),
    (_deployment([{"name": "a", "image": "x"}], replicas="3"),
     ".spec.replicas: expected numeric (int or float), got string"),
    (_deployment(["x"]),
     ".spec.template.spec.containers: element 0: associative list with keys may not have non-map elements"),
])
def test_apply_of_the_wrong_type_fails_the_typed_conversion(api: Any, body: str, detail: str) -> None:
    created = api("PATCH", f"{DEPLOYMENTS}/d?fieldManager=m", _deployment([{"name": "a", "image": "x"}]), APPLY)
    assert created.status == 201
    _status(api("PATCH", f"{DEPLOYMENTS}/d?fieldManager=m", body, APPLY), 500, None,
            f"failed to create typed patch object (/d; apps/v1, Kind=Deployment): {detail}")
    assert api("GET", f"{DEPLOYMENTS}/d").json() == created.json()


# -- bounded parsing (issue 28 item 2) ----------------------------------------------------------------------------

ALIAS_BOMB = "\n".join(["apiVersion: v1", "kind: ConfigMap", "metadata: {name: bomb}",
                        "a0: &a0 [x, x, x, x, x, x, x, x, x, x]",
                        *(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10))]) + "\n"


def test_a_yaml_alias_bomb_is_refused_at_once_as_upstream(api: Any, configmap: dict[str, Any]) -> None:
    """624 bytes that expand to 10^10 nodes: go-yaml's excessive-aliasing guard, oracle answers v1.37.2."""
    import time

    started = time.monotonic()
    created = api("POST", CMS, ALIAS_BOMB.encode(), YAML)
    _status(created, 400, "BadRequest", "the object provided is unrecognized (must be of type ConfigMap): yaml: "
            f"document contains excessive aliasing ({_summary(ALIAS_BOMB.encode())})")
    applied = api("PATCH", f"{CMS}/c?fieldManager=x", ALIAS_BOMB.replace("bomb", "c").encode(), APPLY)
    _status(applied, 400, "BadRequest", "error encoding patch: yaml: document contains excessive aliasing")
    assert time.monotonic() - started < 2.0
    assert api("GET", f"{CMS}/bomb").status == 404
    assert api("GET", f"{CMS}/c").json()["metadata"]["resourceVersion"] == configmap["metadata"]["resourceVersion"]


def test_the_default_body_limit_is_upstreams_3_mib(api: Any) -> None:
    """apiserver's MaxRequestBodyBytes default (3 MiB, pkg/server/config.go): one byte over is 413."""
    body = b'{"metadata":{"name":"big"},"data":{"k":"' + b"x" * (3 * 1024 * 1024) + b'"}}'
    _status(api("POST", CMS, body, {"Content-Type": "application/json"}), 413, "RequestEntityTooLarge",
            "Request entity too large: limit is 3145728")
    assert api("GET", f"{CMS}/big").status == 404


@pytest.mark.parametrize(("port", "stored"), [(2**31, -2147483648), (2**31 + 0.0, -2147483648), (1e300, 0)])
def test_an_integer_past_its_fields_width_in_a_strategic_merge_patch_wraps_as_gos_converter(
        api: Any, port: Any, stored: int) -> None:
    """The unstructured converter truncates to the field's width (found by scripts/fuzz-requests: the decode
    looped forever under the store lock, holding every client). Answers from kube-apiserver v1.37.2."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "fz"},
               "spec": {"selector": {"app": "fz"}, "ports": [{"name": "http", "port": 80}]}}
    assert api("POST", "/api/v1/namespaces/default/services", service).status == 201
    patch = json.dumps({"metadata": {"name": "fz"}, "spec": {"selector": {"app": "fz"},
                                                             "ports": [{"name": "http", "port": port}]}})
    invalid = f"Invalid value: {stored}: must be between 1 and 65535, inclusive"
    _status(api("PATCH", "/api/v1/namespaces/default/services/fz", patch, SMP), 422, "Invalid",
            f'Service "fz" is invalid: [spec.ports[0].port: {invalid}, spec.ports[0].targetPort: {invalid}, '
            'spec.ports[1].name: Duplicate value: "http"]')
