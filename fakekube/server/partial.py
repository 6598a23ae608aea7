"""``PartialObjectMetadata``: only the metadata of objects, when the client asks for it.

client-go's metadata client (controller-runtime's metadata-only caches and watches, the garbage collector's
informers) sends ``Accept: ...;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`` for an object and
``as=PartialObjectMetadataList`` for a list, on every verb it has (get, list, watch, patch, delete). Like a
Table, this is a presentation step after the verb (kubernetes/apiserver v0.37.2
``pkg/endpoints/handlers/response.go``: ``doTransformObject``, ``asPartialObjectMetadata``,
``asPartialObjectMetadataList``): the object's whole ``metadata`` under ``kind: PartialObjectMetadata`` of
the asked version (``meta.k8s.io/v1`` or ``v1beta1``); a list keeps its ``resourceVersion``, ``continue`` and
``remainingItemCount``, and an empty one has ``items: null``; a Status (an error, a delete's answer) is left alone; a watch event's object is
transformed one by one. Asking for the wrong one (an object for a list, a list for an object) is the 406 the
real server gives, whose message names the Go type the handler held.

The content type stays the plain one (``application/json``), as the real server's does. fakekube answers in
JSON or YAML; a protobuf clause is skipped (fakekube/server/negotiation.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube import errors
from fakekube.resources import ResourceType
from fakekube.watch import ERROR, WatchEvent

GROUP = "meta.k8s.io"
OBJECT, LIST = "PartialObjectMetadata", "PartialObjectMetadataList"

# The Go package of a built-in group's internal types, where it is not the group's first label
# (kubernetes pkg/apis/<package>): how %T prints the object in the 406's message.
_INTERNAL_PACKAGES = {"": "core", "events.k8s.io": "core", "internal.apiserver.k8s.io": "apiserverinternal"}


def transform(body: Any, target: str, version: str, rt: ResourceType) -> Any:
    """The answer ``body`` (an object or a list) as ``target`` (OBJECT or LIST) of ``meta.k8s.io/<version>``."""
    if not isinstance(body, dict) or body.get("kind") == "Status":
        return body
    is_list = isinstance(body.get("items"), list)
    if target == OBJECT:
        if is_list:
            raise _not_acceptable(f"you requested {OBJECT}, but the requested object is a list "
                                  f"({_go_type(rt, True)})")
        return partial_object(body, version)
    if not is_list:
        raise _not_acceptable(f"you requested {LIST}, but the requested object is not a list ({_go_type(rt, False)})")
    return partial_list(body, version)


def partial_object(obj: dict[str, Any], version: str) -> dict[str, Any]:
    return {"kind": OBJECT, "apiVersion": f"{GROUP}/{version}", "metadata": obj.get("metadata") or {}}


def partial_list(listing: dict[str, Any], version: str) -> dict[str, Any]:
    meta = listing.get("metadata") or {}
    metadata = {k: meta[k] for k in ("resourceVersion", "continue", "remainingItemCount") if meta.get(k) not in (None, "")}
    # The handler appends each item to a nil slice and ``items`` has no omitempty: no items is ``null``
    # (apimachinery v0.37.2 pkg/apis/meta/v1/types.go PartialObjectMetadataList).
    items = [partial_object(item, version) for item in listing.get("items") or []]
    return {"kind": LIST, "apiVersion": f"{GROUP}/{version}", "metadata": metadata, "items": items or None}


def event_renderer(version: str) -> Callable[[WatchEvent], dict[str, Any]]:
    """The object of each watch event as PartialObjectMetadata (bookmarks too); ERROR keeps its Status."""
    def render(event: WatchEvent) -> dict[str, Any]:
        if event.type == ERROR:
            return event.raw
        return partial_object(event.raw, version)

    return render


def _go_type(rt: ResourceType, is_list: bool) -> str:
    if rt.custom:
        return "*unstructured.UnstructuredList" if is_list else "*unstructured.Unstructured"
    package = _INTERNAL_PACKAGES.get(rt.group, rt.group.split(".")[0])
    return f"*{package}.{rt.kind}{'List' if is_list else ''}"


def _not_acceptable(message: str) -> errors.ApiError:
    return errors.ApiError(406, "NotAcceptable", message)
