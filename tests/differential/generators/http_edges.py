"""The HTTP edges around the resources: discovery documents of every GA group version, unknown groups,
versions, resources and subresources (404), methods a path does not serve (405), bodies in media types the
server does not read (415), Accept headers it cannot answer (406), and bodies over its size limit (413).

Left out, and why: the /apis list and aggregated discovery name every CRD group that exists while the case
runs (other cases' CRDs, as cases run side by side); /openapi documents likewise; an object served as YAML
or protobuf carries its resourceVersion where the normaliser cannot find it; a custom resource POSTed as
protobuf (the real server closes the connection without an answer, which cannot be recorded).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _kinds import all_kinds  # noqa: E402
from _profiles import profile  # noqa: E402
from _steps import case, created, get, kind_case, step  # noqa: E402

CM = "/api/v1/namespaces/{ns}/configmaps"
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "demo"}, "data": {"k": "v"}}
LIMIT = 3 * 1024 * 1024  # MaxRequestBodyBytes, k8s.io/apiserver pkg/server/config.go (v0.37.2)


def discovery() -> list[dict]:
    versions = sorted({(k.group, k.version) for k in all_kinds()})
    # Not /api: its serverAddressByClientCIDRs names the server's own port.
    out = [case("discovery/version", "discovery", [get("/version")]),
           case("discovery/healthz", "discovery", [get("/healthz")]),
           case("discovery/livez", "discovery", [get("/livez")]),
           case("discovery/readyz", "discovery", [get("/readyz")])]
    for group, version in versions:
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        out.append(case(f"discovery/{group or 'core'}/{version}", "discovery", [get(path)]))
    for group in sorted({group for group, _ in versions if group}):
        out.append(case(f"discovery/{group}", "discovery", [get(f"/apis/{group}")]))
    return out


def unknown() -> list[dict]:
    paths = {
        "group": "/apis/nope.example.com", "group-version": "/apis/nope.example.com/v1",
        "group-resource": "/apis/nope.example.com/v1/widgets", "version": "/apis/apps/v9",
        "version-resource": "/apis/apps/v9/deployments", "removed-version": "/apis/apps/v1beta1/deployments",
        "removed-group": "/apis/extensions/v1beta1/ingresses", "resource": "/apis/apps/v1/nopes",
        "namespaced-resource": "/apis/apps/v1/namespaces/{ns}/nopes", "core-version": "/api/v2",
        "core-resource": "/api/v1/nopes", "core-namespaced-resource": "/api/v1/namespaces/{ns}/nopes",
        "subresource": f"{CM}/demo/nope", "status-of-configmap": f"{CM}/demo/status",
        "scale-of-configmap": f"{CM}/demo/scale", "too-deep": f"{CM}/demo/status/more",
        "apps-subresource": "/apis/apps/v1/namespaces/{ns}/deployments/demo/nope", "root-nope": "/nope",
        "double-slash": "/api//v1", "trailing-slash": f"{CM}/", "log-of-missing-pod": "/api/v1/namespaces/{ns}/pods/demo/log",
        "namespace-missing": "/api/v1/namespaces/no-such-namespace/configmaps/demo",
        "uppercase-resource": "/api/v1/namespaces/{ns}/ConfigMaps", "singular-resource": "/api/v1/namespaces/{ns}/configmap",
        "kind-as-resource": "/apis/apps/v1/namespaces/{ns}/Deployment",
    }
    out = [case(f"unknown/get-{variant}", "discovery", [get(path)]) for variant, path in paths.items()]
    out += [case("unknown/post-group", "discovery", [step("POST", "/apis/nope.example.com/v1/namespaces/{ns}/widgets",
                                                          body={"apiVersion": "nope.example.com/v1", "kind": "Widget"})]),
            case("unknown/delete-resource", "discovery", [step("DELETE", "/api/v1/namespaces/{ns}/nopes/x")]),
            case("unknown/post-subresource", "discovery", [*created(profile("ConfigMap"), CONFIGMAP),
                                                            step("POST", f"{CM}/demo/nope", body={})])]
    return out


def methods() -> list[dict]:
    """Methods a path does not serve: 405, with the body and Allow header the server gives."""
    pods = "/api/v1/namespaces/{ns}/pods"
    attempts = {
        "put-collection": ("PUT", CM, CONFIGMAP), "patch-collection": ("PATCH", CM, {}),
        "post-item": ("POST", f"{CM}/demo", CONFIGMAP), "deletecollection-namespaces": ("DELETE", "/api/v1/namespaces", None),
        "get-tokenreviews": ("GET", "/apis/authentication.k8s.io/v1/tokenreviews", None),
        "put-tokenreviews": ("PUT", "/apis/authentication.k8s.io/v1/tokenreviews", {}),
        "delete-tokenreviews": ("DELETE", "/apis/authentication.k8s.io/v1/tokenreviews", None),
        "post-pod-status": ("POST", f"{pods}/demo/status", {}), "delete-pod-status": ("DELETE", f"{pods}/demo/status", None),
        "post-api": ("POST", "/api", {}), "put-api-v1": ("PUT", "/api/v1", {}), "delete-version": ("DELETE", "/version", None),
        "post-scale": ("POST", "/apis/apps/v1/namespaces/{ns}/deployments/demo/scale", {}),
        "delete-scale": ("DELETE", "/apis/apps/v1/namespaces/{ns}/deployments/demo/scale", None),
        "put-pod-log": ("PUT", f"{pods}/demo/log", {}), "patch-namespace-finalize": ("PATCH", "/api/v1/namespaces/{ns}/finalize", {}),
        "post-discovery-group": ("POST", "/apis/apps", {}), "patch-selfsubjectreviews": (
            "PATCH", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {}),
    }
    out = []
    for variant, (method, path, body) in attempts.items():
        kw = {"body": body, "content_type": "application/merge-patch+json"} if method == "PATCH" else {"body": body}
        out.append(case(f"methods/{variant}", "discovery", [step(method, path, **{k: v for k, v in kw.items() if v is not None})]))
    return out


def media_types() -> list[dict]:
    """415 for bodies the server does not read, 406 for answers it cannot write."""
    cm = profile("ConfigMap")
    made = created(cm, CONFIGMAP)
    text = json.dumps(CONFIGMAP)
    out = []
    for variant, content_type in (("text-plain", "text/plain"), ("xml", "application/xml"),
                                  ("form", "application/x-www-form-urlencoded"), ("empty", ""),
                                  ("json-patch", "application/json-patch+json"), ("protobuf-with-json", "application/vnd.kubernetes.protobuf"),
                                  ("multipart", "multipart/form-data"), ("json-utf16", "application/json; charset=utf-16"),
                                  ("json-utf8", "application/json; charset=utf-8"), ("garbage", "not a media type"),
                                  ("apply-on-post", "application/apply-patch+yaml")):
        out.append(case(f"media/post-{variant}", "malformed", [step("POST", CM, raw=text, content_type=content_type),
                                                                get(f"{CM}/demo")]))
    for variant, content_type in (("json", "application/json"), ("text-plain", "text/plain"), ("yaml", "application/yaml"),
                                  ("empty", ""), ("apply-json", "application/apply-patch+json")):
        out.append(case(f"media/patch-{variant}", "malformed", [*made, step("PATCH", f"{CM}/demo", raw='{"data": {"k": "w"}}',
                                                                             content_type=content_type)]))
    for variant, content_type in (("merge-patch", "application/merge-patch+json"), ("text-plain", "text/plain")):
        out.append(case(f"media/put-{variant}", "malformed", [*made, step("PUT", f"{CM}/demo", raw=text, content_type=content_type)]))
    accepts = {"html": "text/html", "xml": "application/xml", "text-plain": "text/plain",
               "bogus-as": "application/json;as=Bogus;g=meta.k8s.io;v=v1",
               "table-wrong-version": "application/json;as=Table;g=meta.k8s.io;v=v9",
               "any": "*/*", "json-or-html": "text/html, application/json", "application-any": "application/*",
               "partial-metadata": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}
    out += [case(f"media/accept-{variant}", "malformed", [*made, get(f"{CM}/demo", accept=accept)])
            for variant, accept in accepts.items()]
    # Lists that match nothing: a Table's rows would carry an Age that depends on when the case ran.
    none = {"fieldSelector": "metadata.name=nothing"}
    out += [
        case("media/accept-table-list", "malformed", [get(CM, query=none, accept="application/json;as=Table;g=meta.k8s.io;v=v1")]),
        case("media/accept-partial-list", "malformed", [get(CM, query=none, accept=(
            "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"))]),
        case("media/accept-yaml-status", "malformed", [get(f"{CM}/missing", accept="application/yaml")]),
        case("media/accept-protobuf-status", "malformed", [get(f"{CM}/missing", accept="application/vnd.kubernetes.protobuf")]),
    ]
    widget = profile("Widget", "diff.example.com")
    out += [
        kind_case(widget, "media", "accept-protobuf", "malformed", [get(widget.kind.collection(), query=none,
                                                                      accept="application/vnd.kubernetes.protobuf")]),
        kind_case(widget, "media", "accept-table-list", "malformed", [get(widget.kind.collection(), query=none,
                                                                        accept="application/json;as=Table;g=meta.k8s.io;v=v1")]),
    ]
    return out


def sizes() -> list[dict]:
    """413 over the request body limit; under it, the object's own size limit (a ConfigMap's 1 MiB)."""
    cm = profile("ConfigMap")
    made = created(cm, CONFIGMAP)

    def sized(total: int) -> dict:
        return {**CONFIGMAP, "data": {"k": "v" * total}}

    out = []
    for variant, total in (("over-limit", LIMIT + 1024), ("just-under-limit", LIMIT - 1024), ("over-object-limit", 1024 * 1024 + 10),
                           ("under-object-limit", 1024 * 1024 - 100)):
        out.append(case(f"size/post-{variant}", "malformed", [step("POST", CM, body=sized(total)), get(f"{CM}/demo")]))
    out += [
        case("size/put-over-limit", "malformed", [*made, step("PUT", f"{CM}/demo", body=sized(LIMIT + 1024)), get(f"{CM}/demo")]),
        case("size/merge-patch-over-limit", "malformed", [*made, step(
            "PATCH", f"{CM}/demo", body={"data": {"k": "v" * (LIMIT + 1024)}}, content_type="application/merge-patch+json")]),
        case("size/apply-over-limit", "malformed", [step("PATCH", f"{CM}/demo", raw=json.dumps(sized(LIMIT + 1024)),
                                                         content_type="application/apply-patch+yaml", query={"fieldManager": "a"})]),
        case("size/many-keys", "malformed", [step("POST", CM, body={**CONFIGMAP, "data": {f"k{i}": "v" for i in range(20000)}})]),
    ]
    return out


def cases() -> list[dict]:
    return [*discovery(), *unknown(), *methods(), *media_types(), *sizes()]
