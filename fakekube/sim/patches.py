"""Patch options for ``Client.patch``, modelled on controller-runtime ``pkg/client/patch.go``.

Each option turns (the caller's modified object) into a request body, a content type and, for the
stale-overwrite detector, the resourceVersion the patch was computed from (``based_on``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakekube.jsonvalues import json_copy
from fakekube.patch import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    create_merge_patch,
    create_strategic_merge_patch,
)
from fakekube.patch.schema import PatchSchema

Obj = dict[str, Any]


def _rv(obj: Obj | None) -> str | None:
    if not obj:
        return None
    rv = (obj.get("metadata") or {}).get("resourceVersion")
    return str(rv) if rv not in (None, "") else None


class Patch:
    content_type: str = MERGE_PATCH

    def body(self, obj: Obj, schema: PatchSchema | None = None) -> Any:
        """The request body for ``obj``; ``schema`` is the kind's patch metadata (strategic merge needs it)."""
        raise NotImplementedError

    def based_on(self, obj: Obj) -> str | None:
        return _rv(obj)

    def options(self) -> dict[str, Any]:
        return {}


class MergeFrom(Patch):
    """``client.MergeFrom(base)``: RFC 7386 diff base → obj; no resourceVersion, so never a 409 on a stale base.

    ``optimistic_lock=True`` is ``MergeFromWithOptions(base, MergeFromWithOptimisticLock{})``: the body also
    carries base's resourceVersion, so a stale base gets 409.

    The patch keeps a private copy of ``base``, since callers typically go on mutating the object they
    derived it from. ``copy=False`` keeps ``base`` itself, as controller-runtime does: for a base nothing
    mutates until the patch is sent — an informer cache's shared object, or one built for the purpose.
    """

    content_type = MERGE_PATCH

    def __init__(self, base: Obj, optimistic_lock: bool = False, *, copy: bool = True) -> None:
        self.base = json_copy(base) if copy else base
        self.optimistic_lock = optimistic_lock

    def body(self, obj: Obj, schema: PatchSchema | None = None) -> Any:
        if not self.optimistic_lock:
            return create_merge_patch(self.base, obj)
        rv = _rv(self.base)
        if rv is None:
            raise ValueError("cannot use MergeFromWithOptimisticLock: the base object has no resourceVersion")
        # As upstream: the modified object gets base's RV, the base gets none, so the diff always carries it.
        base = {**self.base, "metadata": {**(self.base.get("metadata") or {}), "resourceVersion": ""}}
        modified = {**obj, "metadata": {**(obj.get("metadata") or {}), "resourceVersion": rv}}
        return create_merge_patch(base, modified)

    def based_on(self, obj: Obj) -> str | None:
        return _rv(self.base)


class StrategicMergeFrom(Patch):
    """``client.StrategicMergeFrom(base)``: a two-way strategic merge patch (built-in kinds only; CRs get 415)."""

    content_type = STRATEGIC_MERGE_PATCH

    def __init__(self, base: Obj, optimistic_lock: bool = False, *, copy: bool = True) -> None:
        self.base = json_copy(base) if copy else base  # copy=False: as MergeFrom's
        self.optimistic_lock = optimistic_lock

    def body(self, obj: Obj, schema: PatchSchema | None = None) -> Any:
        # With the kind's merge keys, as controller-runtime uses the Go struct's: lists merge by key and a
        # removed element is sent as a $patch: delete.
        body = create_strategic_merge_patch(self.base, obj, schema)
        if self.optimistic_lock:
            rv = _rv(self.base)
            if rv is None:
                raise ValueError("cannot use the optimistic lock: the base object has no resourceVersion")
            body.setdefault("metadata", {})["resourceVersion"] = rv
        return body

    def based_on(self, obj: Obj) -> str | None:
        return _rv(self.base)


@dataclass
class JSONPatch(Patch):
    """A JSON patch (RFC 6902) given as its list of operations; based on the caller object's RV."""

    ops: list[dict[str, Any]]
    content_type: str = field(default=JSON_PATCH, init=False)

    def body(self, obj: Obj, schema: PatchSchema | None = None) -> Any:
        return self.ops


@dataclass
class Apply(Patch):
    """Server-side apply of the caller's object (``client.Apply`` + ``FieldOwner`` + ``ForceOwnership``).

    An apply configuration is intent, not a diff from a read, so it carries no ``based_on`` unless given.
    """

    field_owner: str
    force: bool = True
    based_on_rv: str | None = None
    content_type: str = field(default=APPLY_PATCH, init=False)

    def body(self, obj: Obj, schema: PatchSchema | None = None) -> Any:
        return obj

    def based_on(self, obj: Obj) -> str | None:
        return self.based_on_rv

    def options(self) -> dict[str, Any]:
        return {"field_manager": self.field_owner, "force": self.force}


class RawPatch(Patch):
    """``client.RawPatch(type, data)``: a body sent as is (based on the caller object's RV)."""

    def __init__(self, content_type: str, body: Any) -> None:
        self.content_type = content_type
        self._body = body

    def body(self, obj: Obj, schema: PatchSchema | None = None) -> Any:
        return self._body

    def __repr__(self) -> str:
        return f"RawPatch({self.content_type!r}, {self._body!r})"
