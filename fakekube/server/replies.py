"""Response bodies in the negotiated media type: JSON, YAML or protobuf, for objects, errors and watch events.

``Encoder.offered(rt)`` lists the media types a resource's endpoint has (the order decides what ``*/*`` gets,
JSON first as in the real server's codec factory); ``Encoder.standard(rt)`` those that answer without a
transformation (custom resources: not protobuf). A stored object that has no protobuf form after all (a kind
missing from the protobuf table, a value its Go type could not hold) is answered in JSON, which every client
decodes by the response's Content-Type, and logged.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import yaml

from fakekube.resources import ResourceType
from fakekube.server import bodies, encoding
from fakekube.server.negotiation import JSON, PROTOBUF, YAML
from fakekube.server.protobuf import WATCH_MEDIA_TYPE, CodecError, EncodedObjects, default_codec
from fakekube.server.watchstream import encode_event
from fakekube.store import Store
from fakekube.watch import WatchEvent

logger = logging.getLogger("fakekube.server")
Render = Callable[[WatchEvent], Any] | None


class Encoder:
    JSON: ClassVar[Encoder]
    YAML: ClassVar[Encoder]
    PROTOBUF: ClassVar[Encoder]

    def __init__(self, media_type: str) -> None:
        self.media_type = media_type
        self.watch_content_type = WATCH_MEDIA_TYPE if media_type == PROTOBUF else JSON

    @staticmethod
    def offered(rt: ResourceType) -> tuple[str, ...]:
        return (JSON, YAML, PROTOBUF) if bodies.speaks_protobuf(rt) else (JSON, YAML)

    @staticmethod
    def standard(rt: ResourceType) -> tuple[str, ...]:
        return (JSON, YAML) if rt.custom else Encoder.offered(rt)

    @classmethod
    def for_media_type(cls, media_type: str) -> Encoder:
        return {JSON: cls.JSON, YAML: cls.YAML, PROTOBUF: cls.PROTOBUF}[media_type]

    def encode(self, document: Any, *, pretty: bool = False, store: Store | None = None) -> tuple[bytes, str]:
        """(body, Content-Type) of one response object; ``pretty`` indents JSON (``?pretty=true``).

        ``store``: the document is an object or a list exactly as that store's read returned it, so protobuf
        messages of its objects may be reused from the store's cache of encoded objects.
        """
        if self.media_type == PROTOBUF and isinstance(document, dict):
            codec = default_codec()
            if codec.message_for(document.get("apiVersion") or "", document.get("kind") or "") is not None:
                try:
                    return codec.encode(document, encoded_objects(store) if store is not None else None), PROTOBUF
                except CodecError as exc:
                    logger.warning("answering in JSON: %s %s has no protobuf form: %s",
                                   document.get("kind"), (document.get("metadata") or {}).get("name"), exc)
        elif self.media_type == YAML:
            # sigs.k8s.io/yaml JSONToYAML: the JSON read into a map and written with its keys sorted.
            return yaml.safe_dump(document, sort_keys=True).encode(), YAML
        return encoding.encode(document, pretty=pretty), JSON

    def watch_event(self, event: WatchEvent, render: Render = None) -> bytes:
        """One event of a watch stream: a JSON line, or a length-framed protobuf WatchEvent."""
        if self.media_type != PROTOBUF or render is not None:
            return encode_event(event, render)
        return default_codec().encode_event(event.type, event.raw)


_ENCODED: weakref.WeakKeyDictionary[Store, EncodedObjects] = weakref.WeakKeyDictionary()
_ENCODED_LOCK = threading.Lock()


def encoded_objects(store: Store) -> EncodedObjects:
    """The protobuf messages of a store's objects the server has answered, which live as long as the store."""
    cache = _ENCODED.get(store)
    if cache is None:
        with _ENCODED_LOCK:
            cache = _ENCODED.setdefault(store, EncodedObjects())
    return cache


Encoder.JSON = Encoder(JSON)
Encoder.YAML = Encoder(YAML)
Encoder.PROTOBUF = Encoder(PROTOBUF)
