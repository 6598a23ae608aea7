"""Patch engines, applied by the store to the main resource and the status subresource alike.

Contract used by the store (keep these signatures):

- ``apply_patch(current, body, patch_type, *, schema, custom, share=False) -> dict``: JSON patch, merge patch or
  strategic merge patch applied to a copy of ``current``; raises ``ApiError`` with the status the real server
  gives. ``share``: a merge or strategic merge patch's result keeps ``current``'s unchanged subtrees.
- ``PATCH_TYPES`` / ``CUSTOM_RESOURCE_PATCH_TYPES``: content types accepted for built-ins and custom resources.

Modules (each small and single-purpose):

- ``schema``: :class:`~fakekube.patch.schema.PatchSchema`, per-field patch metadata (SMP strategy and merge
  key, SSA list/map semantics); ``PatchSchema.from_openapi`` for CRDs.
- built-in kinds get their PatchSchema from ``fakekube.apimodel.patch_schemas`` (derived from OpenAPI data).
- ``json_patch``: RFC 6902 as kube-apiserver applies it (``decode_json_patch``, ``apply_json_patch``,
  ``create_json_patch``); ``evanphx``: the port of evanphx/json-patch v4 it applies patches with.
- ``merge``: RFC 7386 (``merge_patch``, ``create_merge_patch``).
- ``strategic``: strategic merge patch (``strategic_merge``); ``strategic_diff``: the two-way
  ``create_strategic_merge_patch``.
- ``fieldpath``: field sets (FieldsV1) and their paths; ``managed_fields``: ``record_update`` and the
  managedFields entries; ``apply``: ``server_side_apply``, ``validate_apply_request``, ``parse_apply_body``.
- ``jsonutil`` / ``gofmt``: JSON copying and body decoding; Go-style renderings for error messages.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.patch import evanphx
from fakekube.patch.json_patch import apply_json_patch, create_json_patch, decode_json_patch
from fakekube.patch.jsonutil import decode_json, go_json_kind
from fakekube.patch.merge import create_merge_patch, merge_patch
from fakekube.patch.schema import PatchSchema
from fakekube.patch.strategic import SmpError, strategic_merge
from fakekube.patch.strategic_diff import create_strategic_merge_patch

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
CUSTOM_RESOURCE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)

__all__ = [
    "APPLY_PATCH",
    "CUSTOM_RESOURCE_PATCH_TYPES",
    "JSON_PATCH",
    "MERGE_PATCH",
    "PATCH_TYPES",
    "STRATEGIC_MERGE_PATCH",
    "PatchSchema",
    "apply_patch",
    "create_json_patch",
    "create_merge_patch",
    "create_strategic_merge_patch",
    "decode_body",
    "merge_patch",
    "normalize_patch_type",
]


_TYPE_META_ERROR = ("couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
                    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
                    'Kind string "json:\\"kind,omitempty\\"" }')
_ALIASES = {"json": JSON_PATCH, "merge": MERGE_PATCH, "strategic": STRATEGIC_MERGE_PATCH, "apply": APPLY_PATCH}
_NORMALIZED = {name: name for name in PATCH_TYPES}  # every request names one of a few types: each done once


def normalize_patch_type(patch_type: str) -> str:
    """Strip ``; charset=...`` and accept short aliases (json, merge, strategic, apply)."""
    known = _NORMALIZED.get(patch_type)
    if known is not None:
        return known
    base = patch_type.split(";", 1)[0].strip().lower()
    normalized = _ALIASES.get(base, base)
    if len(_NORMALIZED) < 256:
        _NORMALIZED[patch_type] = normalized
    return normalized


def decode_body(body: Any) -> Any:
    """Decode a JSON request body (bytes, str, or an already decoded document, which is copied)."""
    return decode_json(body)


def apply_patch(
    current: dict,
    body: bytes | str | dict | list,
    patch_type: str,
    *,
    schema: PatchSchema | None = None,
    custom: bool = False,
    share: bool = False,
    raw_body: Any = None,
) -> dict:
    """Apply a JSON, merge or strategic merge patch to a copy of ``current``.

    ``share``: a merge or strategic merge patch's result may share, by identity, the subtrees of ``current``
    the patch did not change (see :func:`fakekube.patch.strategic.strategic_merge`); a JSON patch's never does.
    ``raw_body``: a JSON patch as it was sent, when ``body`` is the document decoded from it (a ``test`` operation
    compares the texts of values).

    Server-side apply is not a transform of this shape (it needs the field manager); the store calls
    :func:`fakekube.patch.apply.server_side_apply` for ``APPLY_PATCH``.
    """
    patch_type = normalize_patch_type(patch_type)
    accepted = CUSTOM_RESOURCE_PATCH_TYPES if custom else PATCH_TYPES
    if patch_type not in accepted:
        raise errors.UnsupportedMediaType(list(accepted))
    if patch_type == JSON_PATCH:
        result = apply_json_patch(current, decode_json_patch(body),
                                  raw_body=raw_body if raw_body is not None else body)
        if not isinstance(result, dict):
            # A whole-document replace by an array: the codec's DecodeInto reads apiVersion/kind first
            # (handlers/patch.go jsonPatcher → 422 on field "patch"; observed on kube-apiserver v1.37.2).
            shown = evanphx.marshal(result).decode("utf-8", "replace")
            raise errors.Invalid("", "", "", [errors.invalid("patch", shown, _TYPE_META_ERROR)])
    elif patch_type == MERGE_PATCH:
        # A body that is already a document is copied once, by the engine; a text is decoded into its own.
        raw = isinstance(body, dict | list)
        result = merge_patch(current, body if raw else decode_json(body), share=share, patch_owned=not raw)
    elif patch_type == STRATEGIC_MERGE_PATCH:
        result = _strategic(current, body, schema, share)
    else:
        raise errors.InternalError("apply patches go through fakekube.patch.apply.server_side_apply")
    if not isinstance(result, dict):
        # The patched JSON must decode into the object type (handlers/patch.go → 422 on field "patch").
        raise errors.Invalid(
            "",
            "",
            "",
            [errors.invalid("patch", _compact(result),
                            f"json: cannot unmarshal {go_json_kind(result)} into Go value of type map[string]interface {{}}")],
        )
    return result


def _strategic(current: dict, body: Any, schema: PatchSchema | None, share: bool) -> dict:
    patch = decode_json(body)
    if patch is None:
        # Go decodes a `null` patch into an empty map: nothing changes.
        return dict(current) if share else decode_json(current)
    if not isinstance(patch, dict):
        raise errors.BadRequest(
            f"json: cannot unmarshal {go_json_kind(patch)} into Go value of type map[string]interface {{}}"
        )
    try:
        return strategic_merge(current, patch, schema, patch_owned=True, share=share)  # decode_json copied it
    except SmpError as exc:
        raise smp_api_error(exc) from None


def smp_api_error(exc: SmpError) -> errors.ApiError:
    """``interpretStrategicMergePatchError``: 400 / 422 generic / raw 500 with an empty reason."""
    if exc.code == 400:
        return errors.BadRequest(str(exc))
    if exc.code == 422:
        return errors.GenericInvalid(str(exc))
    return errors.InternalError(str(exc))


def _compact(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))

