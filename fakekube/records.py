"""What the store keeps: records of stored objects, their keys, and the constants the verbs share."""

from __future__ import annotations

import json
from typing import Any

from fakekube.jsonvalues import json_copy
from fakekube.resources import ResourceType

Key = tuple[str, str]  # (namespace or "", name)

GC_FINALIZERS = ("orphan", "foregroundDeletion")
CRD_STORAGE = "apiextensions.k8s.io/customresourcedefinitions"
MAX_GENERATE_NAME_ATTEMPTS = 8  # maxNameGenerationCreateAttempts in apiserver store.go


class Record:
    """A stored object and, lazily, its JSON text (decoding it is the fastest deep copy there is)."""

    __slots__ = ("obj", "_text")

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = json.dumps(self.obj, separators=(",", ":"))
        return self._text

    def read(self) -> dict[str, Any]:
        """A copy for a read: reads repeat, so the text is encoded once and decoded from then on."""
        return json.loads(self.text)

    def copy(self) -> dict[str, Any]:
        # Decoding cached text is the cheapest copy; encoding first would cost more than it saves.
        return json.loads(self._text) if self._text is not None else json_copy(self.obj)

    @property
    def rv(self) -> str:
        return self.obj["metadata"]["resourceVersion"]


def sort_key(key: Key) -> str:
    # etcd keys are /<prefix>/<namespace>/<name>: lists come back in that byte order.
    return f"{key[0]}/{key[1]}" if key[0] else key[1]



def record_key(rt: ResourceType, obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"]) if rt.namespaced else ("", meta["name"])
