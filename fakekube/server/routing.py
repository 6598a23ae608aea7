"""URL parsing: a request path becomes either a fixed endpoint (discovery, openapi, health) or a resource
request (group, version, namespace, plural, name, subresource).

Layout (https://kubernetes.io/docs/reference/using-api/api-concepts/): ``/api/v1/...`` for the core group,
``/apis/{group}/{version}/...`` otherwise, ``namespaces/{ns}/`` inserted for namespaced kinds, and the legacy
``watch/`` prefix. Trailing slashes are dropped (kr8s sends ``/version/`` and ``/apis/``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from urllib.parse import unquote


@dataclass(frozen=True, slots=True)
class ResourcePath:
    group: str
    version: str
    plural: str
    namespace: str | None = None
    name: str | None = None
    subresource: str | None = None
    watch_prefix: bool = False  # the deprecated /watch/ form


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A path that is not a resource: ``kind`` names the handler, ``parts`` carries its arguments."""

    kind: str  # version | health | api | api_versions | apis | group | group_version | openapi_v2 | openapi_v3 | openapi_v3_doc
    parts: tuple[str, ...] = ()


Route = ResourcePath | Endpoint | None  # None: the server could not find the requested resource


def split_path(path: str) -> list[str]:
    path = path.split("?", 1)[0]
    if "%" not in path:  # nothing to unescape (nearly every path a client sends)
        return [p for p in path.split("/") if p]
    return [unquote(p) for p in path.split("/") if p]


def parse(path: str) -> Route:
    return _parse(path.partition("?")[0])


@functools.lru_cache(maxsize=1024)
def _parse(path: str) -> Route:
    # Routes are immutable and clients address the same paths again and again (bounded: a client may send any
    # number of distinct ones).
    if "%" in path and "%2f" in path.lower():
        return None  # an escaped slash splits no segment of a route (go-restful matches the escaped path)
    if "//" in path:
        return None  # an empty segment matches no route's (observed on kube-apiserver v1.37.2: /api//v1 is a 404)
    segments = split_path(path)
    if not segments:
        return None
    head = segments[0]
    if head == "version" and len(segments) == 1:
        return Endpoint("version")
    if head in ("healthz", "livez", "readyz"):
        return Endpoint("health")
    if head == "openapi":
        return _openapi(segments[1:])
    if head == "api":
        if len(segments) == 1:
            return Endpoint("api_versions")
        if segments[1] != "v1":
            return None
        if len(segments) == 2:
            return Endpoint("group_version", ("", "v1"))
        return _resource("", "v1", segments[2:])
    if head == "apis":
        if len(segments) == 1:
            return Endpoint("apis")
        if len(segments) == 2:
            return Endpoint("group", (segments[1],))
        if len(segments) == 3:
            return Endpoint("group_version", (segments[1], segments[2]))
        return _resource(segments[1], segments[2], segments[3:])
    return None


def _openapi(rest: list[str]) -> Route:
    if rest == ["v2"]:
        return Endpoint("openapi_v2")
    if rest[:1] != ["v3"]:
        return None
    if len(rest) == 1:
        return Endpoint("openapi_v3")
    doc = rest[1:]
    if doc[:1] == ["api"] and len(doc) == 2:
        return Endpoint("openapi_v3_doc", ("", doc[1]))
    if doc[:1] == ["apis"] and len(doc) == 3:
        return Endpoint("openapi_v3_doc", (doc[1], doc[2]))
    return None


def _resource(group: str, version: str, rest: list[str]) -> Route:
    watch_prefix = False
    if rest[0] == "watch":
        watch_prefix = True
        rest = rest[1:]
        if not rest:
            return None
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        # namespaces/{name}/status|finalize is the Namespace's own subresource, not a collection in it.
        if len(rest) == 3 and group == "" and rest[2] in ("status", "finalize"):
            return ResourcePath(group, version, "namespaces", None, rest[1], rest[2], watch_prefix)
        namespace = rest[1]
        rest = rest[2:]
    if len(rest) > 3:
        return None
    plural = rest[0]
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    return ResourcePath(group, version, plural, namespace, name, subresource, watch_prefix)
