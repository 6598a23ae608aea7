"""Request bodies: size limit, content-type negotiation and safe decoding (JSON, or YAML via safe_load).

The real API server decodes JSON, YAML and protobuf; fakekube speaks JSON and YAML only, so protobuf (which
kubectl's imperative generators send) gets the 415 the real server gives for an unknown format.
"""

from __future__ import annotations

from typing import Any

import yaml

from fakekube import errors
from fakekube.decoding import json_body

JSON = "application/json"
YAML = "application/yaml"
OBJECT_TYPES = (JSON, YAML)

# kube-apiserver's default --max-request-body-bytes is 3 MiB (apiserver pkg/server/config.go).
DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024


def media_type(content_type: str | None) -> str:
    """The bare media type, lower-cased, parameters (``; charset=utf-8``) stripped; "" when absent."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def decode_object(body: bytes, content_type: str | None) -> Any:
    """The body of a create or update: JSON (also when no Content-Type is sent) or YAML."""
    kind = media_type(content_type)
    if kind in ("", JSON, "*/*", "text/plain"):
        # `kubernetes` 37 posts without a Content-Type; the real server falls back to its first type, JSON.
        return decode_json(body)
    if kind in (YAML, "application/x-yaml", "text/yaml"):
        return decode_yaml(body)
    raise errors.UnsupportedMediaType(list(OBJECT_TYPES))


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
    """DeleteOptions bodies: empty is fine."""
    if not body.strip():
        return None
    return decode_object(body, content_type)
