"""Which requests have a handler, and what the real server answers when one has none.

kube-apiserver serves its built-in groups with go-restful web services (one per ``/api``, ``/apis/<group>``
and ``/apis/<group>/<version>``) and custom resources with the apiextensions handler; a path that neither
claims falls through to a mux whose not-found handler writes Go's ``http.NotFound``
(apiserver ``pkg/server/handler.go`` ``director``, v0.37.2):

- under a built-in web service's root, a path no route matches is a JSON ``NotFound`` Status and a route that
  does not take the method a ``MethodNotAllowed`` one, both from ``serviceErrorHandler`` →
  ``NewGenericServerResponse``: the generic message and empty ``details: {}``. Routes exist per resource for
  the verbs discovery lists (``pkg/endpoints/installer.go``): the collection (GET for list/watch, POST for
  create, DELETE for deletecollection; across namespaces GET only), the object (GET, PUT, PATCH, DELETE for
  get, update, patch, delete), each subresource for its own verbs, ``/watch/...`` for watch;
- anywhere else — an unknown group, an unknown resource or version of a custom resource group, a namespaced
  custom resource addressed without its namespace — ``404 page not found`` as text/plain;
- the apiextensions handler (``customresource_handler.go``) routes by ``RequestInfo``: a PUT or PATCH of a
  collection is a 400 ``name must be provided``, an unknown subresource a ``NotFound`` of the object, a
  method its subresource does not take ``NewMethodNotSupported`` (``delete is not supported on resources of
  kind "widgets.example.com"``, details group and resource), a POST to a named path creates;
- a list handler asked for a watch its kind does not offer answers ``NewMethodNotSupported(..., "watch")``.
"""

from __future__ import annotations

from fakekube import errors
from fakekube.resources import Registry, ResourceType
from fakekube.server.params import Query
from fakekube.server.routing import ResourcePath

NOT_FOUND_MESSAGE = "the server could not find the requested resource"
NOT_ALLOWED_MESSAGE = "the server does not allow this method on the requested resource"
PAGE_NOT_FOUND = b"404 page not found\n"

# HTTP method of each verb on an object path and on a subresource path
_OBJECT_METHODS = {"get": "GET", "update": "PUT", "patch": "PATCH", "delete": "DELETE"}
_SUBRESOURCE_METHODS = {**_OBJECT_METHODS, "create": "POST"}


class PageNotFound(errors.ApiError):
    """Go's ``http.NotFound``: a text/plain ``404 page not found``, not a Status."""

    def __init__(self) -> None:
        super().__init__(404, "", "404 page not found")


def no_route() -> errors.ApiError:
    return errors.ApiError(404, "NotFound", NOT_FOUND_MESSAGE, {})


def method_not_allowed() -> errors.ApiError:
    return errors.ApiError(405, "MethodNotAllowed", NOT_ALLOWED_MESSAGE, {})


class HandlerRefusal(errors.ApiError):
    """A refusal by the resource's own handler (its route exists): it carries the route's warnings."""


def not_supported(rt: ResourceType, verb: str) -> errors.ApiError:
    """``NewMethodNotSupported``: a handler that has no such operation."""
    return HandlerRefusal(405, "MethodNotAllowed",
                           f'{verb} is not supported on resources of kind "{errors.qualified(rt.plural, rt.group)}"',
                           {"group": rt.group, "kind": rt.plural})


def restful_group(registry: Registry, group: str) -> bool:
    """Whether a go-restful web service owns ``/apis/<group>`` (a built-in group)."""
    return any(rt.group == group and not rt.custom for rt in registry)


def missing(registry: Registry, path: str) -> errors.ApiError:
    """The answer for a path nothing serves: JSON under a built-in web service's root, text elsewhere."""
    segments = [s for s in path.split("?", 1)[0].split("/") if s]
    if segments[:1] == ["api"] or segments == ["apis"]:
        return no_route()
    if segments[:1] == ["apis"] and restful_group(registry, segments[1]):
        return no_route()
    return PageNotFound()


def endpoint_is_restful(registry: Registry, kind: str, parts: tuple[str, ...]) -> bool:
    """Whether a discovery endpoint is a go-restful route, which takes GET only (a 405 for other methods).
    ``/apis``, ``/apis/<group>`` (but the aggregator's own group), custom resource group versions, health and
    OpenAPI documents are plain handlers that answer any method."""
    if kind in ("version", "api_versions"):
        return True
    if kind == "group":
        return parts[0] == "apiregistration.k8s.io"
    if kind == "group_version":
        return parts[0] == "" or restful_group(registry, parts[0])
    return False


def resolve(registry: Registry, path: ResourcePath) -> ResourceType:
    """The resource a path addresses, or the error the real server gives when nothing serves it."""
    rt = registry.get(path.group, path.version, path.plural)
    addressable = rt is not None and (
        (path.namespace is None or rt.namespaced)  # a cluster-scoped kind has no namespaced URL
        and not (rt.namespaced and path.namespace is None and path.name is not None)
    )
    if rt is None or not addressable:
        if path.group == "" or restful_group(registry, path.group):
            raise no_route()
        raise PageNotFound()
    return rt


def verb(rt: ResourceType, method: str, path: ResourcePath, query: Query) -> str:
    """The verb a request asks for, after the route checks of the server that owns ``rt``."""
    if rt.custom:
        return _custom_verb(rt, method, path, query)
    return _builtin_verb(rt, method, path, query)


def _builtin_verb(rt: ResourceType, method: str, path: ResourcePath, query: Query) -> str:
    if path.watch_prefix:
        if path.subresource is not None or "watch" not in rt.verbs:
            raise no_route()
        if method != "GET":
            raise method_not_allowed()
        return "watch"
    if path.subresource is not None:
        sub = next((s for s in rt.discovery_subresources if s.name == path.subresource), None)
        if sub is None:
            raise no_route()
        allowed = {_SUBRESOURCE_METHODS[v]: v for v in sub.verbs if v in _SUBRESOURCE_METHODS}
        if method not in allowed:
            raise method_not_allowed()
        return {"GET": "get", "PUT": "update", "PATCH": "patch", "POST": "create", "DELETE": "delete"}[method]
    if path.name is not None:
        allowed = {m: v for v, m in _OBJECT_METHODS.items() if v in rt.verbs}
        if not allowed:
            raise no_route()
        if method not in allowed:
            raise method_not_allowed()
        return allowed[method]
    across = rt.namespaced and path.namespace is None
    methods: dict[str, str] = {}
    if "list" in rt.verbs or "watch" in rt.verbs:
        methods["GET"] = "list"
    if not across:
        if "create" in rt.verbs:
            methods["POST"] = "create"
        if "deletecollection" in rt.verbs:
            methods["DELETE"] = "deletecollection"
    if not methods:
        raise no_route()
    if method not in methods:
        raise method_not_allowed()
    if method == "GET" and query.bool("watch"):
        if "watch" not in rt.verbs:
            raise not_supported(rt, "watch")
        return "watch"
    if method == "GET" and "list" not in rt.verbs:
        raise not_supported(rt, "list")
    return methods[method]


def _custom_verb(rt: ResourceType, method: str, path: ResourcePath, query: Query) -> str:
    if rt.namespaced and path.namespace is None and method != "GET":
        raise PageNotFound()  # across namespaces a custom resource only lists and watches
    if path.watch_prefix:
        return "watch"
    if path.name is None:
        if method in ("PUT", "PATCH"):
            raise errors.BadRequest("name must be provided")
        if method == "GET":
            return "watch" if query.bool("watch") else "list"
        return {"POST": "create", "DELETE": "deletecollection"}[method]
    verb = {"GET": "get", "PUT": "update", "PATCH": "patch", "POST": "create", "DELETE": "delete"}[method]
    if path.subresource is not None:
        if path.subresource not in rt.subresources:
            raise errors.NotFound(rt.plural, rt.group, path.name)
        if verb not in ("get", "update", "patch"):
            raise not_supported(rt, verb)
    return verb
