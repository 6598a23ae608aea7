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
from fakekube.gotext import go_quote
from fakekube.identity import ANONYMOUS, RequestAttributes, UserInfo
from fakekube.patch import (
    CUSTOM_RESOURCE_PATCH_TYPES,
    PATCH_TYPES,
    normalize_patch_type,
)
from fakekube.patch.jsonutil import go_json_kind
from fakekube.resources import ResourceType
from fakekube.server import bodies
from fakekube.server.params import (
    Query,
    dry_run_values,
    resource_version_error,
    validate_list_options,
    validate_write_options,
)
from fakekube.server.routing import ResourcePath
from fakekube.store import Store
from fakekube.watch import Watch, WatchEvent

NOT_FOUND_MESSAGE = "the server could not find the requested resource"
DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
# Subresources created with POST on a named object (``pods/<name>/binding``), each served by its own store verb.
POST_SUBRESOURCES = {("", "pods", "binding"): "bind", ("", "pods", "eviction"): "evict"}


def path_not_found() -> errors.ApiError:
    return errors.ApiError(404, "NotFound", NOT_FOUND_MESSAGE, {})


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
    rt = store.registry.get(path.group, path.version, path.plural)
    if rt is None:
        raise path_not_found()
    if path.namespace is not None and not rt.namespaced:
        raise path_not_found()  # a cluster-scoped kind has no namespaced URL
    if rt.namespaced and path.namespace is None and path.name is not None:
        raise path_not_found()  # namespaced objects are addressed inside their namespace
    if path.subresource is not None and (rt.group, rt.plural, path.subresource) not in POST_SUBRESOURCES and not any(
            s.name == path.subresource for s in rt.discovery_subresources):
        raise path_not_found()  # a subresource the kind does not have has no route, whatever the method
    return rt


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
    check_verb(rt, req.path, verb)
    handler = _HANDLERS[verb]
    return handler(req, rt)


def check_verb(rt: ResourceType, path: ResourcePath, verb: str) -> None:
    """A verb the resource (or subresource) does not list in discovery has no route on the real server: 405.
    (A subresource discovery does not know is left to the store, which answers 404.)"""
    if path.subresource is None:
        verbs = rt.verbs
    else:
        sub = next((s for s in rt.discovery_subresources if s.name == path.subresource), None)
        if sub is None:
            return
        verbs = sub.verbs
    if verb not in verbs:
        raise errors.MethodNotSupported(rt.plural, rt.group, verb)


# -- reads -------------------------------------------------------------------------------------------------


def _get(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    if q.bool("export"):
        raise errors.BadRequest("the export parameter, deprecated since v1.14, is no longer supported")
    _check_resource_version(q, status=500)
    check_name(p.name)
    obj = req.store.get(rt, p.name, p.namespace, subresource=p.subresource, actor=req.actor)
    return Reply(200, obj)


def _check_resource_version(q: Query, *, status: int) -> None:
    """A resourceVersion the storage cannot parse: a list's 400 (``invalid resource version: ...``), a get's
    or a watch's 500 with no reason (the storage error passed through)."""
    value = q.str("resourceVersion")
    problem = resource_version_error(value) if value else None
    if problem is not None:
        if status == 400:
            raise errors.BadRequest(f"invalid resource version: {problem}")
        raise errors.InternalError(problem)


def _list(req: Request, rt: ResourceType) -> Reply:
    q = req.query
    limit = q.int("limit")
    q.int("timeoutSeconds")  # parsed (and refused when it does not parse) though a list does not wait
    validate_list_options(q, watch=False)
    _check_resource_version(q, status=400)
    result = req.store.list(
        rt, req.path.namespace,
        label_selector=q.str("labelSelector") or None,
        field_selector=q.str("fieldSelector") or None,
        limit=limit if limit is not None and limit > 0 else None,  # zero or less: no limit
        continue_=q.str("continue") or None,
        resource_version=q.str("resourceVersion"),
        resource_version_match=q.str("resourceVersionMatch") or None,
        actor=req.actor,
    )
    return Reply(200, result)


def _watch(req: Request, rt: ResourceType) -> WatchReply:
    q = req.query
    timeout = q.int("timeoutSeconds")
    validate_list_options(q, watch=True)
    _check_resource_version(q, status=500)
    field_selector = q.str("fieldSelector") or None
    if req.path.name is not None:  # /watch/.../{name}: a watch of one object
        by_name = f"metadata.name={req.path.name}"
        field_selector = f"{by_name},{field_selector}" if field_selector else by_name
    bookmarks = bool(q.bool("allowWatchBookmarks"))
    watch = req.store.watch(
        rt, req.path.namespace,
        label_selector=q.str("labelSelector") or None,
        field_selector=field_selector,
        resource_version=q.str("resourceVersion"),
        allow_bookmarks=bookmarks,
        send_initial_events=q.bool("sendInitialEvents", default=None),
        actor=req.actor,
    )
    return WatchReply(watch, rt, float(timeout) if timeout and timeout > 0 else None, bookmarks)


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
        body = bodies.check_type_meta(body, req.body, rt, req.store.registry)
    if not isinstance(body, dict):
        raise errors.BadRequest(f"the body of the request must be a JSON object, not {type(body).__name__}")
    return body


def _subresource_kind(rt: ResourceType, name: str) -> str:
    sub = next((s for s in rt.discovery_subresources if s.name == name), None)
    return sub.kind if sub is not None else rt.kind


def _create(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    if p.subresource is not None and (rt.group, rt.plural, p.subresource) in POST_SUBRESOURCES:
        assert p.name is not None
        verb = getattr(req.store, POST_SUBRESOURCES[(rt.group, rt.plural, p.subresource)])
        return Reply(201, verb(p.name, _object_body(req, rt), p.namespace, actor=req.actor,
                               dry_run=req.query.dry_run("CreateOptions")))
    if rt.namespaced and p.namespace is None:
        raise errors.MethodNotSupported(rt.plural, rt.group, "create")
    q = req.query
    validate_write_options("CreateOptions", q)
    obj = req.store.create(rt, _object_body(req, rt), p.namespace, actor=req.actor, dry_run=q.dry_run("CreateOptions"),
                           field_manager=q.str("fieldManager") or None, user=req.user, name=p.name,
                           subresource=p.subresource, field_validation=q.str("fieldValidation"))
    return Reply(201, obj)


def _update(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    validate_write_options("UpdateOptions", q)
    body = _object_body(req, rt)
    check_name(p.name)
    obj = req.store.update(rt, body, p.namespace, name=p.name, subresource=p.subresource, actor=req.actor,
                           dry_run=q.dry_run("UpdateOptions"), field_manager=q.str("fieldManager") or None,
                           field_validation=q.str("fieldValidation"))
    return Reply(200, obj)


def _patch(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    patch_type = normalize_patch_type(req.content_type or "")
    accepted = CUSTOM_RESOURCE_PATCH_TYPES if rt.custom else PATCH_TYPES
    if patch_type not in PATCH_TYPES:
        raise errors.UnsupportedMediaType(list(accepted))
    validate_write_options("PatchOptions", q, patch_type=patch_type)
    check_name(p.name)
    body: Any = req.body  # every patch type, apply's YAML or JSON included, is decoded by the store
    obj = req.store.patch(rt, p.name, body, p.namespace, patch_type=patch_type, subresource=p.subresource,
                          actor=req.actor, dry_run=q.dry_run("PatchOptions"),
                          field_manager=q.str("fieldManager") or None,
                          force=q.bool("force", default=None), field_validation=q.str("fieldValidation"))
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


def validate_delete_options(options: dict[str, Any]) -> None:
    """``ValidateDeleteOptions``: one 422 on ``DeleteOptions.meta.k8s.io``."""
    found = []
    policy = options["propagationPolicy"]
    if options["orphanDependents"] is not None and policy is not None:
        found.append(errors.invalid("propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be "
                                                                 "both set"))
    if policy is not None and policy not in ("Foreground", "Background", "Orphan"):
        found.append(errors.not_supported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]))
    found += [errors.not_supported("dryRun", value, ["All"]) for value in options["dryRun"] if value != "All"]
    if found:
        raise errors.Invalid("DeleteOptions", "meta.k8s.io", "", found)


def _delete(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    options = delete_options(req)
    validate_delete_options(options)
    check_name(p.name)
    result = req.store.delete(
        rt, p.name, p.namespace,
        propagation_policy=options["propagationPolicy"],
        grace_period_seconds=options["gracePeriodSeconds"],
        preconditions=options["preconditions"] or None,
        orphan_dependents=options["orphanDependents"],
        dry_run=dry_run_values(options["dryRun"], "DeleteOptions"),
        actor=req.actor,
    )
    # handlers/delete.go: 202 only when the object outlives the call and orphanDependents=false was asked.
    kept = result.get("kind") != "Status"
    code = 202 if kept and options["orphanDependents"] is False else 200
    return Reply(code, result)


def _delete_collection(req: Request, rt: ResourceType) -> Reply:
    q = req.query
    options = delete_options(req)
    validate_delete_options(options)
    result = req.store.delete_collection(
        rt, req.path.namespace,
        label_selector=q.str("labelSelector") or None,
        field_selector=q.str("fieldSelector") or None,
        propagation_policy=options["propagationPolicy"],
        grace_period_seconds=options["gracePeriodSeconds"],
        dry_run=dry_run_values(options["dryRun"], "DeleteOptions"),
        actor=req.actor,
    )
    return Reply(200, result)


_HANDLERS = {
    "get": _get, "list": _list, "watch": _watch, "create": _create, "update": _update, "patch": _patch,
    "delete": _delete, "deletecollection": _delete_collection,
}
