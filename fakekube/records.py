"""What the store keeps: records of stored objects, their keys, and the constants the verbs share."""

from __future__ import annotations

from typing import Any

from fakekube.jsonvalues import copy_with_text, decode_json_bytes, encode_json, json_text, walk_copy
from fakekube.resources import ResourceType

Key = tuple[str, str]  # (namespace or "", name)

GC_FINALIZERS = ("orphan", "foregroundDeletion")
CRD_STORAGE = "apiextensions.k8s.io/customresourcedefinitions"
MAX_GENERATE_NAME_ATTEMPTS = 8  # maxNameGenerationCreateAttempts in apiserver store.go


class Record:
    """A stored object and, once it has been answered or read, its JSON bytes: a stored object is never mutated,
    so it is encoded once (most often for the answer of the write that stored it) and each copy after that is
    one C decode (``fakekube.jsonvalues``)."""

    __slots__ = ("obj", "rv", "checked", "_data", "_fields", "noop")

    def __init__(self, obj: dict[str, Any], checked: Any = None) -> None:
        self.obj = obj
        # Its resourceVersion, read several times by every write over it (preconditions, the audit entry).
        self.rv: str = obj["metadata"]["resourceVersion"]
        # The custom resource schema (fakekube.schema.StructuralSchema) the whole object is known to pass, or
        # None: an update validates only what it changes against it (StructuralSchema.check).
        self.checked = checked
        self._data: bytes | None = None
        self._fields: dict[str, bytes | None] | None = None
        # What a PUT of this very version back over it was, when it was a no-op that nothing but the request
        # and this version decided (fakekube.verbs.noop); None until one was.
        self.noop: Any = None

    def json(self) -> bytes:
        """The object's JSON bytes, kept for the next read (empty when it cannot be encoded exactly)."""
        data = self._data
        if data is None:
            data = self._data = encode_json(self.obj) or b""
        return data

    def same_text(self, value: Any) -> bool:
        """Whether ``value``, already compared equal (``==``) to this version, encodes to its very bytes: the same
        keys in the same order and the same literals (``true`` is not ``1``, ``1`` not ``1.0``)."""
        data = self.json()
        if not data:
            return False
        obj = self.obj
        # A controller builds its PUT body over its cache's objects, which are the stored ones: a field that is
        # the stored field itself is its text, and only the others need encoding (against each field's kept
        # bytes). The whole text is its keys in order and each member's text.
        own = [key for key, member in value.items() if member is not obj.get(key)]
        if len(own) == len(value):
            return json_text(value) == data
        if list(value) != list(obj):
            return False
        for key in own:
            text = json_text(value[key])
            if text is None or text != self.field_json(key):
                return False
        return True

    def read(self) -> dict[str, Any]:
        """A copy for a read (get, list): the encoded bytes are kept for the next read."""
        data = self._data
        if data is None:
            data = self._data = encode_json(self.obj) or b""
        return decode_json_bytes(data) if data else walk_copy(self.obj)

    def copy(self) -> dict[str, Any]:
        """A caller's deep copy (a write's answer, a delete's). Its copy is a round trip through the object's
        JSON bytes, so those are kept (``json``'s very bytes): the next use of this version — a no-op PUT's
        ``same_text`` over it, a read, another copy — does not encode it again."""
        data = self._data
        if data is None:
            copy, data = copy_with_text(self.obj)
            self._data = b"" if data is None else data  # b"": no exact text, as ``json`` records it
            return copy
        return decode_json_bytes(data) if data else walk_copy(self.obj)

    def field_json(self, key: str) -> bytes | None:
        """The JSON bytes of the top-level field ``key`` (None when it cannot be encoded exactly), kept for the
        next write over this version: a controller PUTs the same stored version back again and again."""
        fields = self._fields
        if fields is None:
            fields = self._fields = {}
        elif key in fields:
            return fields[key]
        data = fields[key] = encode_json(self.obj[key])
        return data


def sort_key(key: Key) -> str:
    # etcd keys are /<prefix>/<namespace>/<name>: lists come back in that byte order.
    return f"{key[0]}/{key[1]}" if key[0] else key[1]



def record_key(rt: ResourceType, obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"]) if rt.namespaced else ("", meta["name"])
