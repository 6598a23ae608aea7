"""JSON Patch (RFC 6902): decoding, and applying as kube-apiserver does.

kube-apiserver applies JSON patches with evanphx/json-patch v4 (``k8s.io/apiserver``
``pkg/endpoints/handlers/patch.go``); :mod:`fakekube.patch.evanphx` is a port of it and lists where v4 is
not the RFC (negative indices, ``replace`` of a missing member, ``test`` of a missing member against null,
paths split without checks, values compared by their JSON text...).

- a body that is not a JSON array of objects → 400; more than 10000 operations → 413;
- an operation that fails (including a failed ``test``) → 422 with the generic message and empty details.

``negative_indices=False`` applies a patch by the RFC instead (the ``jsonpatch`` package), for the
conformance vectors' own expectations.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.patch import evanphx
from fakekube.patch.jsonutil import decode_json, go_json_kind

MAX_OPERATIONS = 10000


def decode_json_patch(body: Any) -> list[dict]:
    """Decode and shape-check a JSON patch body (→ 400 like ``jsonpatch.DecodePatch``)."""
    ops = decode_json(body)
    if ops is None:
        return []  # Go decodes ``null`` into an empty patch: nothing changes
    if not isinstance(ops, list):
        raise errors.BadRequest(
            f"json: cannot unmarshal {go_json_kind(ops)} into Go value of type jsonpatch.Patch"
        )
    for op in ops:
        if op is not None and not isinstance(op, dict):
            raise errors.BadRequest(
                f"json: cannot unmarshal {go_json_kind(op)} into Go value of type jsonpatch.Operation"
            )
    if len(ops) > MAX_OPERATIONS:
        raise errors.RequestEntityTooLarge(
            f"The allowed maximum operations in a JSON patch is {MAX_OPERATIONS}, got {len(ops)}"
        )
    return ops


def apply_json_patch(document: Any, ops: list[dict], *, negative_indices: bool = True,
                     raw_body: Any = None) -> Any:
    """Apply decoded operations to a copy of ``document`` as kube-apiserver does; a failing operation raises
    the 422. ``raw_body``: the patch as sent, whose value texts a ``test`` compares."""
    if negative_indices:
        return evanphx.apply(document, ops, raw_body)
    doc = json_copy(document)
    for op in ops:
        try:
            if op.get("path") == "" and op.get("op") in ("add", "replace") and "value" in op:
                # Whole-document add/replace: the package stumbles when the document is a list.
                doc = json_copy(op["value"])
                continue
            doc = jsonpatch.JsonPatch([op]).apply(doc, in_place=True)
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, KeyError, TypeError,
                IndexError, ValueError, AttributeError) as exc:
            raise errors.GenericInvalid(_describe(op, exc)) from None
    return doc


def _describe(op: dict, exc: Exception) -> str:
    kind = op.get("op", "unknown")
    if isinstance(exc, jsonpatch.JsonPatchTestFailed):
        return f"testing value {op.get('path')} failed: test failed"
    if kind not in ("add", "remove", "replace", "move", "copy", "test"):
        return f"Unexpected kind: {kind}"
    return f"{kind} operation does not apply: {exc}"


def create_json_patch(original: Any, modified: Any) -> list[dict]:
    """A JSON patch that turns ``original`` into ``modified`` (as ``client.RawPatch`` users build them)."""
    return list(jsonpatch.make_patch(original, modified).patch)
