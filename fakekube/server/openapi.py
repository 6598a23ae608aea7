"""``/openapi/v2`` and ``/openapi/v3``: the served API's OpenAPI documents, built-ins and CRDs alike.

What clients read from them:

- ``kubectl explain`` (v3, kubectl ``pkg/explain/v2``): the group-version document, a path of the resource
  whose operations carry ``x-kubernetes-group-version-kind``, and the component schema with that GVK — its
  descriptions, types and fields;
- kubectl's client-side validation (``--validate=strict|warn``, cli-runtime ``query_param_verifier_v3.go``):
  whether the kind's PATCH operation declares the ``fieldValidation`` query parameter — then the server
  validates, and kubectl sends the directive;
- ``kubectl apply``'s three-way strategic merge patch (kubectl ``pkg/cmd/apply/patcher.go``): when the PATCH
  operation accepts ``application/strategic-merge-patch+json`` (built-ins), the component schemas' patch
  strategies and merge keys; custom resources accept no SMP, so kubectl sends a merge patch.

Component schemas come from the emulated version's definitions (``fakekube.apimodel.openapi``) or, for
custom resources, from their CRD's ``openAPIV3Schema`` named as apiextensions-apiserver names them
(``com.example.v1.Widget``). Documents are serialised once and cached: a group-version with only built-ins
per process and Kubernetes version, others until the registry changes. The index's ``hash`` is the
document's digest, as kube-apiserver's, so clients' caches never mix documents.

Content types: JSON is served; a client that accepts only the protobuf forms (kubectl asks ``/openapi/v2`` for
``application/com.github.proto-openapi.spec.v2@v1.0+protobuf``) gets the 406 kube-openapi's handler answers
for a type it cannot produce.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from fakekube.apimodel import openapi as model
from fakekube.apimodel.definitions import definitions
from fakekube.apimodel.versions import KubernetesVersion, kubernetes_version
from fakekube.resources import Registry, ResourceType
from fakekube.server import encoding
from fakekube.server.discovery import RegistryCache

JSON_TYPE = "application/json"
_SERVED_SUBRESOURCES = ("status", "scale")
_PATCH_TYPES = ("application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json",
                "application/strategic-merge-patch+json")
_CUSTOM_PATCH_TYPES = _PATCH_TYPES[:3]
_RESPONSE_TYPES = ("application/json", "application/yaml")


def gv_path(group: str, version: str) -> str:
    return f"api/{version}" if not group else f"apis/{group}/{version}"


def accepts_json(accept: str | None) -> bool:
    """Whether an Accept header allows a JSON answer (no header, ``*/*``, ``application/*``, JSON)."""
    if not accept:
        return True
    for media_range in accept.split(","):
        media = media_range.split(";", 1)[0].strip().lower()
        if media in ("*/*", "application/*", JSON_TYPE, "application/json+v3", ""):
            return True
    return False


# -- query parameters (described in fakekube's words) ---------------------------------------------------

def _param(name: str, description: str, kind: str = "string", where: str = "query") -> dict[str, Any]:
    return {"name": name, "in": where, "description": description, "schema": {"type": kind, "uniqueItems": True}}


_DRY_RUN = _param("dryRun", "When All, the request is validated and answered without being persisted.")
_FIELD_MANAGER = _param("fieldManager", "The name of the actor making the change, recorded in managedFields.")
_FIELD_VALIDATION = _param(
    "fieldValidation",
    "What to do with unknown or duplicate fields in the request: Ignore drops them silently, Warn (the "
    "default) drops them and answers with a Warning header per field, Strict fails the request.")
_FORCE = _param("force", "Apply requests only: take over fields other managers own.", "boolean")
_PRETTY = _param("pretty", "Indent the response.")
_LIST_PARAMS = [
    _param("allowWatchBookmarks", "Ask for BOOKMARK events in a watch.", "boolean"),
    _param("continue", "The token of the previous page of a paginated list."),
    _param("fieldSelector", "Only objects whose fields match this selector."),
    _param("labelSelector", "Only objects whose labels match this selector."),
    _param("limit", "At most this many objects per page.", "integer"),
    _param("resourceVersion", "The resourceVersion the list or watch starts from."),
    _param("resourceVersionMatch", "How resourceVersion applies to a list: Exact or NotOlderThan."),
    _param("sendInitialEvents", "Start a watch with the current objects as ADDED events.", "boolean"),
    _param("timeoutSeconds", "End the list or watch after this many seconds.", "integer"),
    _param("watch", "Watch for changes instead of listing.", "boolean"),
]
_DELETE_PARAMS = [
    _DRY_RUN,
    _param("gracePeriodSeconds", "Seconds before the object is deleted; 0 deletes it now.", "integer"),
    _param("propagationPolicy", "Orphan, Background or Foreground: what happens to dependents."),
]


def _name_param(kind: str) -> dict[str, Any]:
    return {**_param("name", f"name of the {kind}", where="path"), "required": True}


_NAMESPACE_PARAM = {**_param("namespace", "the namespace of the object", where="path"), "required": True}


# -- documents -----------------------------------------------------------------------------------------------

def _content(ref: str, types: tuple[str, ...] = _RESPONSE_TYPES) -> dict[str, Any]:
    return {t: {"schema": {"$ref": ref}} for t in types}


def _operation(verb: str, op_id: str, description: str, gvk: dict[str, str], response: str, tag: str, *,
               params: list[dict[str, Any]] | None = None, body: str | None = None,
               patch_types: tuple[str, ...] | None = None, created: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {"description": description, "operationId": op_id, "tags": [tag]}
    if params:
        op["parameters"] = params
    if patch_types is not None:
        op["requestBody"] = {"content": _content(_ref(model.PATCH), patch_types), "required": True}
    elif body is not None:
        op["requestBody"] = {"content": {"*/*": {"schema": {"$ref": body}}}, "required": verb != "delete"}
    responses: dict[str, Any] = {"200": {"description": "OK", "content": _content(response)}}
    if created:
        responses["201"] = {"description": "Created", "content": _content(response)}
    responses["401"] = {"description": "Unauthorized"}
    op["responses"] = responses
    op["x-kubernetes-action"] = verb
    op["x-kubernetes-group-version-kind"] = gvk
    return op


def _ref(name: str) -> str:
    return "#/components/schemas/" + name


def _camel(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in text.replace("-", ".").split(".") if part)


def _resource_paths(rt: ResourceType, schema_name: str, list_name: str | None) -> dict[str, Any]:
    """The paths of one resource and its served subresources, with the verbs discovery lists."""
    prefix = "/" + gv_path(rt.group, rt.version)
    scope = "Namespaced" if rt.namespaced else ""
    tag = f"{(rt.group.split('.')[0] if rt.group else 'core')}_{rt.version}"
    op_base = f"{_camel(rt.group.split('.')[0]) if rt.group else 'Core'}{_camel(rt.version)}{scope}{rt.kind}"
    gvk = {"group": rt.group, "version": rt.version, "kind": rt.kind}
    verbs = set(rt.verbs)
    ref, list_ref = _ref(schema_name), _ref(list_name or model.STATUS)
    status = _ref(model.STATUS)
    custom = rt.custom
    collection = f"{prefix}/namespaces/{{namespace}}/{rt.plural}" if rt.namespaced else f"{prefix}/{rt.plural}"
    item = f"{collection}/{{name}}"
    scope_params = [_NAMESPACE_PARAM] if rt.namespaced else []
    paths: dict[str, Any] = {}

    ops: dict[str, Any] = {}
    if "list" in verbs:
        ops["get"] = _operation("list", f"list{op_base}", f"list or watch objects of kind {rt.kind}", gvk,
                                list_ref, tag, params=_LIST_PARAMS)
    if "create" in verbs:
        ops["post"] = _operation("post", f"create{op_base}", f"create a {rt.kind}", gvk, ref, tag,
                                 params=[_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION], body=ref, created=True)
    if "deletecollection" in verbs:
        ops["delete"] = _operation("deletecollection", f"deleteCollection{op_base}",
                                   f"delete a collection of {rt.kind}", gvk, status, tag,
                                   params=_DELETE_PARAMS + _LIST_PARAMS, body=_ref(model.DELETE_OPTIONS))
    if ops:
        paths[collection] = {**ops, "parameters": [*scope_params, _PRETTY]}

    ops = {}
    if "get" in verbs:
        ops["get"] = _operation("get", f"read{op_base}", f"read the specified {rt.kind}", gvk, ref, tag)
    if "update" in verbs:
        ops["put"] = _operation("put", f"replace{op_base}", f"replace the specified {rt.kind}", gvk, ref, tag,
                                params=[_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION], body=ref, created=True)
    if "patch" in verbs:
        ops["patch"] = _operation("patch", f"patch{op_base}", f"partially update the specified {rt.kind}", gvk,
                                  ref, tag, params=[_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION, _FORCE],
                                  patch_types=_CUSTOM_PATCH_TYPES if custom else _PATCH_TYPES, created=True)
    if "delete" in verbs:
        ops["delete"] = _operation("delete", f"delete{op_base}", f"delete a {rt.kind}", gvk, status, tag,
                                   params=_DELETE_PARAMS, body=_ref(model.DELETE_OPTIONS))
    if "patch" not in verbs and "create" in verbs:
        # Create-only kinds (reviews, bindings) have no PATCH upstream. kubectl's field-validation check reads
        # only PATCH operations and, finding none, falls back to the protobuf /openapi/v2 document (which
        # fakekube cannot produce) — so one is declared here; a PATCH request there is still a 405.
        ops["patch"] = _operation("patch", f"patch{op_base}", f"(not served) {rt.kind} is create-only", gvk,
                                  ref, tag, params=[_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION])
    if ops:
        paths[item] = {**ops, "parameters": [_name_param(rt.kind), *scope_params, _PRETTY]}

    if rt.namespaced and "list" in verbs:
        paths[f"{prefix}/{rt.plural}"] = {
            "get": _operation("list", f"list{op_base.replace('Namespaced', '')}ForAllNamespaces",
                              f"list or watch objects of kind {rt.kind} in every namespace", gvk, list_ref, tag,
                              params=_LIST_PARAMS),
            "parameters": [_PRETTY]}

    for sub in rt.discovery_subresources:
        if sub.name not in _SERVED_SUBRESOURCES or sub.name not in rt.subresources:
            continue
        sub_gvk = {"group": sub.group, "version": sub.version, "kind": sub.kind} if sub.group is not None else gvk
        sub_ref = _ref("io.k8s.api.autoscaling.v1.Scale") if sub.name == "scale" else ref
        sub_base = f"{op_base}{_camel(sub.name)}"
        ops = {}
        if "get" in sub.verbs:
            ops["get"] = _operation("get", f"read{sub_base}", f"read {sub.name} of the specified {rt.kind}",
                                    sub_gvk, sub_ref, tag)
        if "update" in sub.verbs:
            ops["put"] = _operation("put", f"replace{sub_base}", f"replace {sub.name} of the specified {rt.kind}",
                                    sub_gvk, sub_ref, tag, params=[_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION],
                                    body=sub_ref, created=True)
        if "patch" in sub.verbs:
            ops["patch"] = _operation("patch", f"patch{sub_base}",
                                      f"partially update {sub.name} of the specified {rt.kind}", sub_gvk, sub_ref,
                                      tag, params=[_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION, _FORCE],
                                      patch_types=_CUSTOM_PATCH_TYPES if custom else _PATCH_TYPES, created=True)
        if ops:
            paths[f"{item}/{sub.name}"] = {**ops, "parameters": [_name_param(rt.kind), *scope_params, _PRETTY]}
    return paths


def custom_schema_name(rt: ResourceType, suffix: str = "") -> str:
    """apiextensions-apiserver's definition name: the group reversed, the version, the kind."""
    return ".".join([*reversed(rt.group.split(".")), rt.version, rt.kind + suffix])


def _custom_components(rt: ResourceType) -> dict[str, dict[str, Any]]:
    """A CRD version's schema as a component (its kind and list), with the metadata it shares with built-ins."""
    source = dict(rt.schema.source) if rt.schema is not None else {"type": "object"}
    properties = dict(source.get("properties") or {})
    properties["apiVersion"] = {"type": "string", "description": "APIVersion defines the versioned schema of "
                                                                 "this representation of an object."}
    properties["kind"] = {"type": "string", "description": "Kind is the REST resource this object represents."}
    properties["metadata"] = {"allOf": [{"$ref": _ref(model.OBJECT_META)}],
                              "description": "Standard object's metadata."}
    gvk = [{"group": rt.group, "kind": rt.kind, "version": rt.version}]
    name = custom_schema_name(rt)
    return {
        name: {**source, "type": "object", "properties": properties, "x-kubernetes-group-version-kind": gvk},
        custom_schema_name(rt, "List"): {
            "description": f"{rt.kind}List is a list of {rt.kind}", "type": "object", "required": ["items"],
            "properties": {
                "apiVersion": properties["apiVersion"], "kind": properties["kind"],
                "items": {"type": "array", "items": {"$ref": _ref(name)}},
                "metadata": {"allOf": [{"$ref": _ref(model.LIST_META)}]},
            },
            "x-kubernetes-group-version-kind": [{**gvk[0], "kind": rt.kind + "List"}],
        },
    }


def _builtin_roots(version: KubernetesVersion, types: list[ResourceType]) -> list[str]:
    roots = list(model.COMMON)
    for rt in types:
        if rt.model is None:
            continue
        roots.append(rt.model.definition)
        list_name = model.list_definition(version, rt.model.definition)
        if list_name:
            roots.append(list_name)
        if "scale" in rt.subresources:
            roots.append("io.k8s.api.autoscaling.v1.Scale")
    return roots


def build_v3(version: KubernetesVersion, group: str, gv_version: str, types: list[ResourceType]) -> dict[str, Any]:
    """The ``/openapi/v3/<group>/<version>`` document of ``types`` (one group-version's resources)."""
    defs = definitions(version)
    schemas = {name: model.component(defs, name) for name in model.closure(version, _builtin_roots(version, types))}
    paths: dict[str, Any] = {}
    for rt in sorted(types, key=lambda t: t.plural):
        if rt.model is not None:
            list_name = model.list_definition(version, rt.model.definition)
            paths.update(_resource_paths(rt, rt.model.definition, list_name))
        else:
            schemas.update(_custom_components(rt))
            paths.update(_resource_paths(rt, custom_schema_name(rt), custom_schema_name(rt, "List")))
    resources = {"get": {"description": "get available resources", "operationId":
                         f"get{_camel(group.split('.')[0]) if group else 'Core'}{_camel(gv_version)}APIResources",
                         "responses": {"200": {"description": "OK", "content": _content(
                             _ref(model.META + "APIResourceList"))}, "401": {"description": "Unauthorized"}}}}
    if model.META + "APIResourceList" in defs:
        schemas.update({n: model.component(defs, n) for n in model.closure(version, [model.META + "APIResourceList"])})
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": version.git_version},
        "paths": {f"/{gv_path(group, gv_version)}/": resources, **paths},
        "components": {"schemas": dict(sorted(schemas.items()))},
    }


def build_v2(version: KubernetesVersion, registry: Registry) -> dict[str, Any]:
    """The ``/openapi/v2`` (Swagger 2.0) document of every served resource."""
    defs = definitions(version)
    types = list(registry)
    definitions_v2 = {name: model.component(defs, name, "v2")
                      for name in model.closure(version, _builtin_roots(version, types))}
    paths: dict[str, Any] = {}
    for rt in types:
        if rt.model is not None:
            v3_paths = _resource_paths(rt, rt.model.definition, model.list_definition(version, rt.model.definition))
        else:
            for name, schema in _custom_components(rt).items():
                definitions_v2[name] = json.loads(json.dumps(schema).replace("#/components/schemas/", "#/definitions/"))
            v3_paths = _resource_paths(rt, custom_schema_name(rt), custom_schema_name(rt, "List"))
        paths.update({path: _v2_path(item) for path, item in v3_paths.items()})
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": version.git_version},
            "paths": paths, "definitions": dict(sorted(definitions_v2.items()))}


def _v2_param(param: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in param.items() if k != "schema"}
    out.update(param.get("schema") or {})
    return out


def _v2_path(item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for method, op in item.items():
        if method == "parameters":
            out["parameters"] = [_v2_param(p) for p in op]
            continue
        v2 = {k: v for k, v in op.items() if k not in ("requestBody", "responses", "parameters")}
        params = [_v2_param(p) for p in op.get("parameters", ())]
        body = op.get("requestBody")
        if body is not None:
            media = next(iter(body["content"].values()))
            params.append({"name": "body", "in": "body", "required": True,
                           "schema": {"$ref": media["schema"]["$ref"].replace("#/components/schemas/", "#/definitions/")}})
            v2["consumes"] = list(body["content"]) if "*/*" not in body["content"] else ["*/*"]
        if params:
            v2["parameters"] = params
        v2["produces"] = ["application/json", "application/yaml"]
        v2["responses"] = {
            code: {"description": r["description"], **({"schema": {"$ref": next(iter(r["content"].values()))["schema"]
                                                                  ["$ref"].replace("#/components/schemas/",
                                                                                   "#/definitions/")}}
                                                       if "content" in r else {})}
            for code, r in op["responses"].items()}
        out[method] = v2
    return out


@cache
def _builtin_gv_document(version: KubernetesVersion, group: str, gv_version: str,
                         types: tuple[ResourceType, ...]) -> bytes:
    return _dumps(build_v3(version, group, gv_version, list(types)))


def _dumps(document: dict[str, Any]) -> bytes:
    return encoding.marshal(document)  # kube-openapi's json.Marshal: compact, Go's escapes


class OpenAPIDocuments:
    """The serialised documents of one registry, rebuilt when it changes (a CRD is created...)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._cache = RegistryCache(registry)

    @property
    def version(self) -> KubernetesVersion:
        return self.registry.kubernetes_version or kubernetes_version()

    def _types(self, group: str, version: str) -> list[ResourceType]:
        return [rt for rt in self.registry if rt.group == group and rt.version == version]

    def has(self, group: str, version: str) -> bool:
        return version in self.registry.groups().get(group, ())

    def group_version(self, group: str, version: str) -> bytes:
        types = self._types(group, version)
        if all(rt.model is not None for rt in types):
            return _builtin_gv_document(self.version, group, version, tuple(types))
        return self._cache.get(("v3", group, version), lambda: _dumps(build_v3(self.version, group, version, types)))

    def index(self) -> bytes:
        def build() -> bytes:
            paths = {}
            for group, versions in self.registry.groups().items():
                for version in versions:
                    digest = hashlib.sha512(self.group_version(group, version)).hexdigest().upper()[:128]
                    path = gv_path(group, version)
                    paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest}"}
            return _dumps({"paths": paths})

        return self._cache.get("index", build)

    def v2(self) -> bytes:
        return self._cache.get("v2", lambda: _dumps(build_v2(self.version, self.registry)))
