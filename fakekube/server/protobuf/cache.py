"""Encoded messages of stored objects, reused while the object is unchanged.

A stored object never changes under one ``resourceVersion`` (every write gives it a new one), so within one
store the protobuf message of an object is a function of (message type, apiVersion, uid, resourceVersion).
The server keeps one ``EncodedObjects`` per store (``fakekube.server.replies``) and uses it only for objects
its reads (GET, LIST) answer, exactly as the store returned them; a list of unchanged objects is then not
re-encoded on every request. The cache holds immutable ``bytes`` only, so nothing a caller gets from it can
change stored data, and it is bounded by the size of what it holds (oldest entries go first).
"""

from __future__ import annotations

import threading
from typing import Any

Key = tuple[str, str | None, str, str]  # message name, apiVersion, uid, resourceVersion

DEFAULT_MAX_BYTES = 32 << 20


class EncodedObjects:
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0  # bytes held
        self._entries: dict[Key, bytes] = {}  # insertion order: the oldest first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Key) -> bytes | None:
        return self._entries.get(key)

    def put(self, key: Key, raw: bytes) -> None:
        if len(raw) > self.max_bytes:
            return
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self.size -= len(previous)
            self._entries[key] = raw
            self.size += len(raw)
            entries = self._entries
            while self.size > self.max_bytes:
                self.size -= len(entries.pop(next(iter(entries))))


def identity(message_name: str, obj: Any) -> Key | None:
    """The cache key of a stored object (its message, apiVersion, uid and resourceVersion), or None."""
    if obj.__class__ is not dict:
        return None
    meta = obj.get("metadata")
    if meta.__class__ is not dict:
        return None
    uid = meta.get("uid")
    rv = meta.get("resourceVersion")
    api_version = obj.get("apiVersion")
    if uid.__class__ is not str or rv.__class__ is not str or not uid or not rv:
        return None
    if api_version is not None and api_version.__class__ is not str:
        return None
    return (message_name, api_version, uid, rv)
