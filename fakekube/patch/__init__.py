"""Patch engines, applied by the store to the main resource and the status subresource alike.

Contract used by the store (keep these signatures):

- ``apply_patch(current, body, patch_type, *, schema, custom) -> dict``: JSON patch, merge patch or strategic
  merge patch applied to a copy of ``current``; raises ``ApiError`` with the status the real server gives.
- ``PATCH_TYPES`` / ``CUSTOM_RESOURCE_PATCH_TYPES``: content types accepted for built-ins and custom resources.
"""

from __future__ import annotations

import json
from typing import Any

from fakekube import errors

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
CUSTOM_RESOURCE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)


def normalize_patch_type(patch_type: str) -> str:
    """Strip ``; charset=...`` and accept short aliases (json, merge, strategic, apply)."""
    base = patch_type.split(";", 1)[0].strip().lower()
    return {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH, "apply": APPLY_PATCH}.get(
        base, base
    )


def decode_body(body: Any) -> Any:
    if isinstance(body, bytes | bytearray):
        body = body.decode("utf-8")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError as exc:
            raise errors.BadRequest(f"error decoding patch: {exc}") from None
    return body


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch; returns a new document and never mutates ``target``."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def apply_patch(current: dict, body: Any, patch_type: str, *, schema: Any = None, custom: bool = False) -> dict:
    patch_type = normalize_patch_type(patch_type)
    accepted = CUSTOM_RESOURCE_PATCH_TYPES if custom else PATCH_TYPES
    if patch_type not in accepted or patch_type == APPLY_PATCH:
        raise errors.UnsupportedMediaType(list(accepted))
    patch = decode_body(body)
    if patch_type == MERGE_PATCH:
        result = merge_patch(current, patch)
        if not isinstance(result, dict):
            raise errors.BadRequest("merge patch must produce an object")
        return result
    raise errors.UnsupportedMediaType(list(accepted))
