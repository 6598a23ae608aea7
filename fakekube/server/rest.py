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
from fakekube.identity import ANONYMOUS, RequestAttributes, UserInfo
from fakekube.patch import (
    CUSTOM_RESOURCE_PATCH_TYPES,
    PATCH_TYPES,
    normalize_patch_type,
)
from fakekube.resources import ResourceType
from fakekube.server import bodies
from fakekube.server.params import Query, dry_run_values
from fakekube.server.routing import ResourcePath
from fakekube.store import Store
from fakekube.watch import Watch, WatchEvent

NOT_FOUND_MESSAGE = "the server could not find the requested resource"
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
    return rt


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
    obj = req.store.get(rt, p.name, p.namespace, subresource=p.subresource, actor=req.actor)
    return Reply(200, obj)


def _list(req: Request, rt: ResourceType) -> Reply:
    q = req.query
    result = req.store.list(
        rt, req.path.namespace,
        label_selector=q.str("labelSelector") or None,
        field_selector=q.str("fieldSelector") or None,
        limit=q.int("limit") or None,
        continue_=q.str("continue") or None,
        resource_version=q.str("resourceVersion"),
        resource_version_match=q.str("resourceVersionMatch") or None,
        actor=req.actor,
    )
    return Reply(200, result)


def _watch(req: Request, rt: ResourceType) -> WatchReply:
    q = req.query
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
    timeout = q.int("timeoutSeconds")
    return WatchReply(watch, rt, float(timeout) if timeout and timeout > 0 else None, bookmarks)


# -- writes ------------------------------------------------------------------------------------------------


def _object_body(req: Request, rt: ResourceType) -> Any:
    body = bodies.decode_object(req.body, req.content_type, rt)
    if not isinstance(body, dict):
        raise errors.BadRequest(f"the body of the request must be a JSON object, not {type(body).__name__}")
    return body


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
    obj = req.store.create(rt, _object_body(req, rt), p.namespace, actor=req.actor, dry_run=q.dry_run("CreateOptions"),
                           field_manager=q.str("fieldManager") or None, user=req.user, name=p.name,
                           subresource=p.subresource, field_validation=q.str("fieldValidation"))
    return Reply(201, obj)


def _update(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    q = req.query
    body = _object_body(req, rt)
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
    body: Any = req.body  # every patch type, apply's YAML or JSON included, is decoded by the store
    obj = req.store.patch(rt, p.name, body, p.namespace, patch_type=patch_type, subresource=p.subresource,
                          actor=req.actor, dry_run=q.dry_run("PatchOptions"),
                          field_manager=q.str("fieldManager") or None,
                          force=q.bool("force", default=None), field_validation=q.str("fieldValidation"))
    return Reply(200, obj)  # the handler turns it into 201 when an apply created the object


def delete_options(req: Request) -> dict[str, Any]:
    """DeleteOptions from the body when there is one, else from the query (kubectl and the SDK send a body, the
    Python clients query parameters), as apiserver ``pkg/endpoints/handlers/delete.go`` decides."""
    body = bodies.decode_optional_json(req.body, req.content_type)
    if body is not None:
        if not isinstance(body, dict):
            raise errors.BadRequest("the body of a DELETE must be a DeleteOptions object")
        preconditions = body.get("preconditions") or {}
        if not isinstance(preconditions, dict):
            raise errors.BadRequest("preconditions must be an object")
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
            "propagationPolicy": q.str("propagationPolicy") or None,
            "gracePeriodSeconds": q.int("gracePeriodSeconds"),
            "orphanDependents": q.bool("orphanDependents", default=None),
            "dryRun": q.all("dryRun"),
            "preconditions": {key: q.str(f"preconditions.{key}") for key in ("uid", "resourceVersion")
                              if q.str(f"preconditions.{key}")},
        }
    if isinstance(options["dryRun"], str):
        options["dryRun"] = [options["dryRun"]]
    grace = options["gracePeriodSeconds"]
    if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
        raise errors.BadRequest("gracePeriodSeconds must be an integer")
    if options["orphanDependents"] is not None and not isinstance(options["orphanDependents"], bool):
        raise errors.BadRequest("orphanDependents must be a boolean")
    return options


def _delete(req: Request, rt: ResourceType) -> Reply:
    p = req.path
    assert p.name is not None
    options = delete_options(req)
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
