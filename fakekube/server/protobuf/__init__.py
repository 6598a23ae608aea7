"""The Kubernetes protobuf wire format (``application/vnd.kubernetes.protobuf``) for the built-in kinds.

``Codec`` turns an enveloped protobuf body into the JSON object the real server would store, and a JSON object
(as the store keeps it) into the body a Go client expects; watch events are framed as the real server frames
them. Field numbers and types come from the upstream ``generated.proto`` files, through the table that
scripts/generate_protobuf_schema.py writes (``schema.json``). Custom resources have no protobuf form.

    codec = Codec()
    body = codec.encode({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}})
    codec.decode(body)   # {'kind': 'ConfigMap', 'apiVersion': 'v1', 'metadata': {'name': 'a', ...}, ...}
"""

from __future__ import annotations

from typing import Any

from fakekube.server.protobuf.cache import EncodedObjects
from fakekube.server.protobuf.decode import Decoder
from fakekube.server.protobuf.encode import encode_message, encode_stored
from fakekube.server.protobuf.envelope import frame, length_delimited, read_frames, unwrap, wrap
from fakekube.server.protobuf.schema import Message, Schema, default_schema
from fakekube.server.protobuf.wire import CodecError

__all__ = ["Codec", "CodecError", "EncodedObjects", "MEDIA_TYPE", "WATCH_MEDIA_TYPE", "UnknownKind", "frame",
           "read_frames", "default_codec"]

MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
WATCH_MEDIA_TYPE = MEDIA_TYPE + ";stream=watch"


class UnknownKind(CodecError):
    """The envelope names a kind the table does not have."""

    def __init__(self, api_version: str, kind: str) -> None:
        super().__init__(f'no kind "{kind}" is registered for version "{api_version}"')
        self.api_version = api_version
        self.kind = kind


class Codec:
    def __init__(self, schema: Schema | None = None) -> None:
        self.schema = schema if schema is not None else default_schema()
        self._decoder = Decoder(self.schema)

    # -- kinds --------------------------------------------------------------------------------------------

    def message_for(self, api_version: str, kind: str) -> Message | None:
        return self.schema.kind(api_version, kind)

    def serves(self, api_version: str, kind: str) -> bool:
        """True when objects of this kind have a protobuf form (a kind of the table)."""
        return self.schema.has_kind(api_version, kind)

    # -- objects ------------------------------------------------------------------------------------------

    def envelope(self, body: bytes) -> tuple[str, str, bytes]:
        """(apiVersion, kind, raw message) of an enveloped body."""
        return unwrap(body)

    def decode(self, body: bytes) -> dict[str, Any]:
        """An enveloped body → the JSON object, ``kind`` and ``apiVersion`` first."""
        api_version, kind, raw = unwrap(body)
        return self.decode_raw(api_version, kind, raw)

    def decode_raw(self, api_version: str, kind: str, raw: bytes) -> dict[str, Any]:
        message = self.schema.kind(api_version, kind)
        if message is None:
            raise UnknownKind(api_version, kind)
        try:
            return self._decoder.decode_object(raw, message, api_version, kind)
        except (IndexError, RecursionError) as exc:  # a defect guard: malformed input is a CodecError
            raise CodecError(f"malformed protobuf message: {type(exc).__name__}") from None

    def encode(self, obj: dict[str, Any], stored: EncodedObjects | None = None) -> bytes:
        """A JSON object with ``apiVersion`` and ``kind`` → the enveloped body.

        ``stored``: the object (or every item of a list) is as a store returned it, so its message may be
        reused from that cache of the store's encoded objects (see ``cache.py``). The bytes are the same.
        """
        api_version, kind = obj.get("apiVersion") or "", obj.get("kind") or ""
        message = self.schema.kind(api_version, kind)
        if message is None:
            raise UnknownKind(api_version, kind)
        raw = encode_message(message, obj) if stored is None else encode_stored(message, obj, stored)
        return wrap(api_version, kind, raw)

    # -- watch events -------------------------------------------------------------------------------------

    def encode_event(self, event_type: str, obj: dict[str, Any]) -> bytes:
        """One framed ``meta.v1.WatchEvent`` whose object is the enveloped ``obj``."""
        event = self.schema.message("apis.meta.v1.WatchEvent")
        extension = length_delimited(b"\x0a", self.encode(obj))  # RawExtension{raw: the enveloped object}
        return frame(encode_message(event, {"type": event_type}) + length_delimited(b"\x12", extension))

    def decode_event(self, payload: bytes) -> tuple[str, dict[str, Any]]:
        """(type, object) of one WatchEvent frame's payload (without the 4-byte length)."""
        event = self.schema.message("apis.meta.v1.WatchEvent")
        decoded = self._decoder.message(event, payload, 0, len(payload))
        obj = decoded.get("object")
        if not isinstance(obj, dict):
            raise CodecError("watch event without an object")
        return decoded.get("type", ""), obj


_DEFAULT: Codec | None = None


def default_codec() -> Codec:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Codec()
    return _DEFAULT
