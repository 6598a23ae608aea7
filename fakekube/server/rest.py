"""Resource requests: an HTTP method on a parsed path becomes exactly one store verb.

This module only translates (URL parts, query parameters, bodies and content types → verb arguments; the
verb's result → status code and body). Every rule about objects — conflicts, status, finalizers, patch
semantics, selectors, pagination, 410s — is the store's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakekube import errors
from fakekube.apimodel.decoder import DecodeError, decoder
from fakekube.fieldselectors import FieldSelector
from fakekube.gotext import go_quote
from fakekube.identity import ANONYMOUS, RequestAttributes, UserInfo
from fakekube.patch import CUSTOM_RESOURCE_PATCH_TYPES, PATCH_TYPES
from fakekube.patch.jsonutil import go_json_kind
from fakekube.resources import ResourceType
from fakekube.server import bodies, listoptions, routes
from fakekube.server import options as options_
from fakekube.server.params import Query
from fakekube.server.routing import ResourcePath
from fakekube.store import Store
from fakekube.verbs.read import parse_resource_version
from fakekube.watch import Watch, WatchEvent

DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
# Subresources created with POST on a named object (``pods/<name>/binding``), each served by its own store verb.
POST_SUBRESOURCES = {("", "pods", "binding"): "bind", ("", "pods", "eviction"): "evict"}


def path_not_found() -> errors.ApiError:
    return routes.no_route()


@dataclass(slots=True)
class Reply:
    code: int
    body: Any  # a JSON document


@dataclass(slots=True)
class WatchReply:
    watch: Watch
    resource: ResourceType
    timeout: float | None  # seconds; None: the server default
    bookmarks: bool
    render: Callable[[WatchEvent], Any] | None = None  # set by the handler when the client wants Tables
    start_rv: int = 0  # the revision the watch starts from (the current one when it sends initial events)


@dataclass(slots=True)
class Request:
    store: Store
    method: str
    path: ResourcePath
    query: Query
    body: bytes
    content_type: str | None
    actor: str
    user: UserInfo = ANONYMOUS
    extra: dict[str, Any] = field(default_factory=dict)


def resolve(store: Store, path: ResourcePath) -> ResourceType:
    return routes.resolve(store.registry, path)


def check_name(name: str | None) -> None:
    """The registry's key function refuses a name that cannot be a path segment (apiserver
    ``registry/generic/registry/store.go`` ``NamespaceKeyFunc``, apimachinery ``validate/content/path.go``)."""
    if name is None:
        return
    if name in (".", ".."):
        problems = [f"may not be '{name}'"]
    else:
        problems = [f"may not contain '{c}'" for c in "/%" if c in name]
    if problems:
        raise errors.BadRequest(f"Name parameter invalid: {go_quote(name)}: {';'.join(problems)}")


_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def request_info_verb(method: str, path: ResourcePath, query: Query) -> str:
    """The verb apiserver's ``RequestInfoFactory`` gives any resource path, served or not (authorization runs on
    it before the mux looks for a route; apiserver pkg/endpoints/request/requestinfo.go): the method's verb, a
    GET without a name ``list`` or ``watch``, a DELETE without one ``deletecollection``."""
    if path.watch_prefix:
        return "watch"
    verb = _METHOD_VERBS.get(method, "")
    if path.name is None and verb == "get":
        return "watch" if query.bool("watch") else "list"
    if path.name is None and verb == "delete":
        return "deletecollection"
    return verb


def verb_of(method: str, path: ResourcePath, query: Query) -> str:
    """The Kubernetes verb (what RBAC and the audit log call it) of a method on a path."""
    if method == "GET":
        if path.watch_prefix or (path.name is None and query.bool("watch")):
            return "watch"
        return "list" if path.name is None else "get"
    if method == "POST" and (path.name is None or path.subresource is not None):
        # A POST to a subresource of an object creates: pods/<name>/binding, serviceaccounts/<name>/token.
        return "create"
    if method == "PUT" and path.name is not None:
        return "update"
    if method == "PATCH" and path.name is not None:
        return "patch"
    if method == "DELETE":
        if path.name is None:
            return "deletecollection"
        if path.subresource is None:
            return "delete"
    raise errors.MethodNotSupported(path.plural, path.group, method)


def attributes(req: Request, rt: ResourceType, verb: str) -> RequestAttributes:
    p = req.path
    user = req.user
    return RequestAttributes(user.name, verb, rt.group, rt.plural, p.subresource, p.namespace, p.name,
                             groups=user.groups, uid=user.uid, version=rt.version, extra=user.extra)


def serve(req: Request, rt: ResourceType, verb: str) -> Reply | WatchReply:
    """Run ``verb`` (as ``routes.verb`` found it for the request) on ``rt``."""
    handler = _HANDLERS[verb]
    return handler(req, rt)


# -- reads -------------------------------------------------------------------------------------------------


def _get(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    if q.bool("export"):
        raise errors.BadRequest("the export parameter, deprecated since v1.14, is no longer supported")
    _check_resource_version(q)
    check_name(p.name)
    obj = req.store.get(rt, p.name, p.namespace, subresource=p.subresource, actor=req.actor)
    return Reply(200, obj)


def _check_resource_version(q: Query) -> None:
    """A get's resourceVersion the storage cannot parse: its error passed through as a 500 with no reason (a
    list's is the store's 400, a watch's the watcher's 500)."""
    try:
        parse_resource_version(q.str("resourceVersion") or "")
    except ValueError as exc:
        raise errors.InternalError(str(exc)) from None


def _list(req: Request, rt: ResourceType) -> Reply:
    opts = listoptions.decode(req.query, watch=False)
    result = req.store.list(
        rt, req.path.namespace,
        label_selector=opts.labels,
        field_selector=opts.fields,
        limit=opts.limit,
        continue_=opts.continue_ or None,
        resource_version=opts.resource_version or None,
        resource_version_match=opts.resource_version_match or None,
        actor=req.actor,
    )
    return Reply(200, result)


def _watch(req: Request, rt: ResourceType) -> WatchReply:
    opts = listoptions.decode(req.query, watch=True, name=req.path.name)
    field_selector = opts.fields
    if req.path.name is not None and field_selector.empty:  # /watch/.../{name}: a watch of one object
        field_selector = FieldSelector.parse(f"metadata.name={req.path.name}")
    watch = req.store.watch(
        rt, req.path.namespace,
        label_selector=opts.labels,
        field_selector=field_selector,
        resource_version=opts.resource_version or None,
        allow_bookmarks=opts.allow_bookmarks,
        send_initial_events=opts.send_initial_events,
        actor=req.actor,
    )
    timeout = opts.timeout_seconds
    rv = opts.resource_version
    start_rv = int(rv) if rv not in ("", "0") and not opts.send_initial_events else int(req.store.resource_version)
    # handlers/get.go: 0 (or none) is the server's default; a negative timeout has already passed
    return WatchReply(watch, rt, float(max(timeout, 0)) if timeout else None, opts.allow_bookmarks,
                      start_rv=start_rv)


def wire_list(rt: ResourceType, body: Any) -> Any:
    """A list as kube-apiserver writes it (observed on v1.37.2): a built-in kind's items are typed structs whose
    TypeMeta the encoder fills only on the list itself, so each item has no ``apiVersion`` nor ``kind``; a
    custom resource list is an unstructured object whose ``metadata.continue`` is always set, "" on the last
    page (apiextensions-apiserver serves it through ``unstructured.UnstructuredList``). Tables, watch events
    and single objects keep their TypeMeta."""
    if not isinstance(body, dict) or not isinstance(body.get("items"), list):
        return body
    if rt.custom:
        meta = body.get("metadata")
        if isinstance(meta, dict) and "continue" not in meta:
            body = {**body, "metadata": {**meta, "continue": ""}}
        return body
    items = [{k: v for k, v in item.items() if k != "apiVersion" and k != "kind"} if isinstance(item, dict)
             else item for item in body["items"]]
    return {**body, "items": items}


# -- writes ------------------------------------------------------------------------------------------------


def _object_body(req: Request, rt: ResourceType) -> Any:
    """The body of a write to the resource itself or its ``status``: decoded, then its apiVersion and kind as
    the endpoint's codec takes them (``bodies.check_type_meta``)."""
    sub = req.path.subresource
    expected = None if sub in (None, "status") else _subresource_kind(rt, sub)
    body = bodies.decode_object(req.body, req.content_type, rt, expected_kind=expected)
    if expected is None and req.content_type is not None and bodies.media_type(req.content_type) == bodies.PROTOBUF:
        pass  # the protobuf envelope names the kind; its decoder has checked it
    elif expected is None:
        body = bodies.check_type_meta(body, req.body, rt, req.store.registry, req.query.str("fieldValidation"))
    if not isinstance(body, dict):
        raise errors.BadRequest(f"the body of the request must be a JSON object, not {type(body).__name__}")
    return body


def _subresource_kind(rt: ResourceType, name: str) -> str:
    sub = next((s for s in rt.discovery_subresources if s.name == name), None)
    return sub.kind if sub is not None else rt.kind


def _write_options(req: Request, kind: str, patch_type: str | None = None) -> bool:
    """Check the request's Create/Update/PatchOptions (``kind``) before its body is read; whether it is a dry run."""
    q = req.query
    dry_run = q.all("dryRun")
    options_.check_write_options(kind, field_manager=q.str("fieldManager"), dry_run=dry_run,
                                field_validation=q.str("fieldValidation"), patch_type=patch_type,
                                force=q.bool("force", default=None))
    return bool(dry_run)


def _create(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    dry_run = _write_options(req, "CreateOptions")
    if p.subresource is not None and (rt.group, rt.plural, p.subresource) in POST_SUBRESOURCES:
        assert p.name is not None
        verb = getattr(req.store, POST_SUBRESOURCES[(rt.group, rt.plural, p.subresource)])
        return Reply(201, verb(p.name, _object_body(req, rt), p.namespace, actor=req.actor, dry_run=dry_run))
    if rt.namespaced and p.namespace is None:
        raise routes.method_not_allowed()
    q = req.query
    obj = req.store.create(rt, _object_body(req, rt), p.namespace, actor=req.actor, dry_run=dry_run,
                           field_manager=q.str("fieldManager") or None, user=req.user, name=p.name,
                           subresource=p.subresource, field_validation=q.str("fieldValidation"))
    return Reply(201, obj)


def _update(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    dry_run = _write_options(req, "UpdateOptions")
    body = _object_body(req, rt)
    check_name(p.name)
    obj = req.store.update(rt, body, p.namespace, name=p.name, subresource=p.subresource, actor=req.actor,
                           dry_run=dry_run, field_manager=q.str("fieldManager") or None,
                           field_validation=q.str("fieldValidation"), user=req.user)
    return Reply(200, obj)  # the handler turns it into 201 when the PUT created the object


def _patch(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    # The Content-Type names the patch type exactly (parameters dropped): a built-in kind's route refuses any
    # other in go-restful ("415: Unsupported Media Type", details {}); a custom resource's handler with
    # NewUnsupportedMediaTypeError (apiserver pkg/endpoints/handlers/patch.go).
    patch_type = (req.content_type or "").split(";", 1)[0].strip()  # case-sensitive, as observed
    accepted = CUSTOM_RESOURCE_PATCH_TYPES if rt.custom else PATCH_TYPES
    if patch_type not in accepted:
        if rt.custom:
            raise errors.UnsupportedMediaType(list(accepted))
        raise errors.ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {})
    dry_run = _write_options(req, "PatchOptions", patch_type)
    check_name(p.name)
    body: Any = req.body  # every patch type, apply's YAML or JSON included, is decoded by the store
    obj = req.store.patch(rt, p.name, body, p.namespace, patch_type=patch_type, subresource=p.subresource,
                          actor=req.actor, dry_run=dry_run, field_manager=q.str("fieldManager") or None,
                          force=q.bool("force", default=None), field_validation=q.str("fieldValidation"),
                          user=req.user)
    return Reply(200, obj)  # the handler turns it into 201 when an apply created the object


def delete_options(req: Request) -> dict[str, Any]:
    """DeleteOptions from the body when there is one, else from the query (kubectl and the SDK send a body, the
    Python clients query parameters), as apiserver ``pkg/endpoints/handlers/delete.go`` decides: a body is
    decoded into ``metav1.DeleteOptions`` (a value of the wrong type is the 400 with Go's words); the query
    has no preconditions."""
    body = bodies.decode_optional_json(req.body, req.content_type)
    if body is not None:
        if not isinstance(body, dict):
            raise errors.BadRequest(f"json: cannot unmarshal {go_json_kind(body)} into Go value of type "
                                    "v1.DeleteOptions")
        options_.check_delete_body_kind(body)  # the serializer reads the type before the fields
        _decode_delete_options(req.store.registry.kubernetes_version, body)
        preconditions = body.get("preconditions") or {}
        options = {
            "propagationPolicy": body.get("propagationPolicy"),
            "gracePeriodSeconds": body.get("gracePeriodSeconds"),
            "orphanDependents": body.get("orphanDependents"),
            "dryRun": body.get("dryRun") or [],
            "preconditions": {k: v for k, v in preconditions.items() if v},
        }
    else:
        q = req.query
        options = {
            "propagationPolicy": q.str("propagationPolicy"),
            "gracePeriodSeconds": q.int("gracePeriodSeconds"),
            "orphanDependents": q.bool("orphanDependents", default=None),
            "dryRun": q.all("dryRun"),
            "preconditions": {},
        }
    grace = options["gracePeriodSeconds"]
    if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
        raise errors.BadRequest("gracePeriodSeconds must be an integer")
    options_.check_delete_options(options)
    return options


# Go's named types of DeleteOptions fields, which the decoder (reading the OpenAPI schema) knows as strings.
_DELETE_OPTIONS_TYPES = (("DeleteOptions.propagationPolicy of type string", "DeleteOptions.propagationPolicy of type "
                                                                             "v1.DeletionPropagation"),
                         ("Preconditions.preconditions.uid of type string", "Preconditions.preconditions.uid of "
                                                                            "type types.UID"))


def _decode_delete_options(version: Any, body: dict[str, Any]) -> None:
    try:
        decoder(version, DELETE_OPTIONS).in_place(body, prune=False)
    except DecodeError as exc:
        message = str(exc)
        for generic, named in _DELETE_OPTIONS_TYPES:
            message = message.replace(generic, named)
        raise errors.BadRequest(message) from None


def _delete(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    options = delete_options(req)
    check_name(p.name)
    result = req.store.delete(
        rt, p.name, p.namespace,
        propagation_policy=options["propagationPolicy"],
        grace_period_seconds=options["gracePeriodSeconds"],
        preconditions=options["preconditions"] or None,
        orphan_dependents=options["orphanDependents"],
        dry_run=bool(options["dryRun"]),
        actor=req.actor,
    )
    # handlers/delete.go: 202 only when the object outlives the call and orphanDependents=false was asked.
    kept = result.get("kind") != "Status"
    code = 202 if kept and options["orphanDependents"] is False else 200
    return Reply(code, result)


def _delete_collection(req: Request, rt: ResourceType) -> Reply:
    q = req.query
    options = delete_options(req)
    result = req.store.delete_collection(
        rt, req.path.namespace,
        label_selector=q.str("labelSelector") or None,
        field_selector=q.str("fieldSelector") or None,
        propagation_policy=options["propagationPolicy"],
        grace_period_seconds=options["gracePeriodSeconds"],
        dry_run=bool(options["dryRun"]),
        actor=req.actor,
    )
    return Reply(200, result)


_HANDLERS = {
    "get": _get, "list": _list, "watch": _watch, "create": _create, "update": _update, "patch": _patch,
    "delete": _delete, "deletecollection": _delete_collection,
}
