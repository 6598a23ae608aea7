"""Request bodies: size limit, content-type negotiation and safe decoding (JSON, YAML via safe_load, and
protobuf for the built-in kinds of the protobuf table — what kubectl's generators and Go clients send).

Protobuf bodies fail as the real server's create and update handlers fail them (``transformDecodeError`` in
kubernetes/apiserver pkg/endpoints/handlers/rest.go): a 400 ``<Kind> in version "v1" cannot be handled as a
<Kind>: <reason>`` once the envelope names a kind, ``the object provided is unrecognized (must be of type
<Kind>): <reason> (<hex of the first 30 bytes>)`` before. Custom resources: their handler lists protobuf but
cannot unmarshal into an unstructured object, a 400 as well (apiextensions-apiserver customresource_handler.go).
Kinds fakekube serves without a protobuf schema (CustomResourceDefinition) get a 415 naming JSON and YAML.
"""

from __future__ import annotations

from typing import Any

import yaml

from fakekube import errors
from fakekube.decoding import json_body
from fakekube.resources import ResourceType
from fakekube.server.protobuf import MEDIA_TYPE as PROTOBUF
from fakekube.server.protobuf import CodecError, UnknownKind, default_codec

JSON = "application/json"
YAML = "application/yaml"
OBJECT_TYPES = (JSON, YAML)
ALL_OBJECT_TYPES = (JSON, YAML, PROTOBUF)

# kube-apiserver's default --max-request-body-bytes is 3 MiB (apiserver pkg/server/config.go).
DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024


def media_type(content_type: str | None) -> str:
    """The bare media type, lower-cased, parameters (``; charset=utf-8``) stripped; "" when absent."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def speaks_protobuf(rt: ResourceType | None) -> bool:
    """Whether the resource's endpoint lists protobuf among its media types (custom resources do, in name)."""
    return rt is not None and (rt.custom or default_codec().serves(rt.api_version, rt.kind))


def object_types(rt: ResourceType | None) -> tuple[str, ...]:
    return ALL_OBJECT_TYPES if speaks_protobuf(rt) else OBJECT_TYPES


def _parameters_parse(content_type: str) -> bool:
    """Whether Go's ``mime.ParseMediaType`` takes the parameters: each ``key=value`` (a trailing ``;`` is fine)."""
    params = content_type.split(";")[1:]
    for i, param in enumerate(params):
        if not param.strip():
            if i == len(params) - 1:
                continue
            return False
        key, eq, _ = param.partition("=")
        if not eq or not key.strip():
            return False
    return True


def decode_object(body: bytes, content_type: str | None, rt: ResourceType | None = None) -> Any:
    """The body of a create or update: JSON (also when no Content-Type is sent), YAML, or protobuf; any other
    media type, or one whose parameters do not parse, is a 415 (apiserver ``handlers/negotiation``
    ``NegotiateInputSerializer``: only the serializers' own types, ``text/plain`` and ``*/*`` included)."""
    kind = media_type(content_type)
    if kind and not _parameters_parse(content_type or ""):
        raise errors.UnsupportedMediaType(list(object_types(rt)))
    if kind in ("", JSON):
        # `kubernetes` 37 posts without a Content-Type; the real server falls back to its first type, JSON.
        return decode_json(body)
    if kind == YAML:
        return decode_yaml(body)
    if kind == PROTOBUF and rt is not None and speaks_protobuf(rt):
        return decode_protobuf(body, rt.api_version, rt.kind, custom=rt.custom)
    raise errors.UnsupportedMediaType(list(object_types(rt)))


def summarize(data: bytes, limit: int = 30) -> str:
    """apiserver's ``summarizeData``: what a decode error quotes of the body."""
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        text = data[:limit].decode("utf-8", "replace")
        return text + " ..." if len(data) > limit else text
    return data[:limit].hex() + (" ..." if len(data) > limit else "")


def decode_protobuf(body: bytes, api_version: str, kind: str, *, custom: bool = False) -> dict[str, Any]:
    """An enveloped protobuf body as the JSON object the server stores; TypeMeta defaults to the endpoint's."""
    codec = default_codec()
    try:
        sent_version, sent_kind, raw = codec.envelope(body)
    except CodecError as exc:
        raise errors.BadRequest(
            f"the object provided is unrecognized (must be of type {kind}): {exc} ({summarize(body)})") from None
    sent_kind = sent_kind or kind  # copyKindDefaults: an envelope without TypeMeta takes the endpoint's
    sent_version = sent_version or api_version
    version = sent_version.rpartition("/")[2]
    prefix = f'{sent_kind} in version "{version}" cannot be handled as a {kind}'
    if custom:
        raise errors.BadRequest(f"{prefix}: object *unstructured.Unstructured does not implement the protobuf "
                                "marshalling interface and cannot be encoded to a protobuf message")
    try:
        return codec.decode_raw(sent_version, sent_kind, raw)
    except UnknownKind:
        raise errors.BadRequest(f'{prefix}: no kind "{sent_kind}" is registered for version "{sent_version}" '
                                'in scheme "pkg/api/legacyscheme/scheme.go:30"') from None
    except CodecError as exc:
        raise errors.BadRequest(f"{prefix}: {exc}") from None


def decode_json(body: bytes) -> Any:
    """A JSON body; an object remembers its duplicate fields (``fakekube.decoding.RequestBody``), which the
    store reports as fieldValidation asks."""
    if not body.strip():
        raise errors.BadRequest("the request body is empty: expected a JSON object")
    try:
        return json_body(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.BadRequest(f"the body of the request could not be decoded as JSON: {exc}") from None


def decode_yaml(body: bytes) -> Any:
    try:
        # safe_load builds only plain data: no Python object tags from a client.
        value = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        raise errors.BadRequest(f"the body of the request could not be decoded as YAML: {exc}") from None
    if value is None:
        raise errors.BadRequest("the request body is empty: expected an object")
    return value


def decode_optional_json(body: bytes, content_type: str | None) -> Any:
    """DeleteOptions bodies: empty is fine; protobuf clients send them as protobuf (any group version)."""
    if not body.strip():
        return None
    if media_type(content_type) == PROTOBUF:
        return decode_protobuf(body, "v1", "DeleteOptions")
    return decode_object(body, content_type)
