"""JSON Patch (RFC 6902) with kube-apiserver's behaviour, on top of the ``jsonpatch`` package.

kube-apiserver applies JSON patches with evanphx/json-patch v4 (kubernetes/apiserver
``pkg/endpoints/handlers/patch.go``). Differences from a plain RFC 6902 engine that we reproduce:

- negative array indices count from the end (``SupportNegativeIndices = true``): ``/list/-1`` is the
  last element for get/replace/remove, and for ``add`` it inserts before the position counted from the
  end of the *grown* list (so ``add /list/-1`` appends);
- more than 10000 operations → 413;
- an operation that fails (including a failed ``test``) → 422 with the generic message;
- a body that is not a JSON array of objects → 400.

The ``jsonpatch`` package does the RFC work; we resolve negative indices against the document just
before each operation, which is exactly when evanphx resolves them.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer

from fakekube import errors
from fakekube.jsonvalues import json_copy
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
        if not isinstance(op, dict):
            raise errors.BadRequest(
                f"json: cannot unmarshal {go_json_kind(op)} into Go value of type jsonpatch.Operation"
            )
    if len(ops) > MAX_OPERATIONS:
        raise errors.RequestEntityTooLarge(
            f"The allowed maximum operations in a JSON patch is {MAX_OPERATIONS}, got {len(ops)}"
        )
    return ops


def apply_json_patch(document: Any, ops: list[dict], *, negative_indices: bool = True) -> Any:
    """Apply decoded operations to a copy of ``document``; a failing operation raises 422."""
    doc = json_copy(document)
    for op in ops:
        try:
            if op.get("path") == "" and op.get("op") in ("add", "replace") and "value" in op:
                # Whole-document add/replace: the package stumbles when the document is a list.
                doc = json_copy(op["value"])
                continue
            if _set_member(doc, op):
                continue
            if negative_indices:
                op = _resolve_negative_indices(doc, op)
            doc = jsonpatch.JsonPatch([op]).apply(doc, in_place=True)
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, KeyError, TypeError,
                IndexError, ValueError, AttributeError) as exc:
            raise errors.GenericInvalid(_describe(op, exc)) from None
    return doc


def _set_member(doc: Any, op: dict) -> bool:
    """The commonest operation, done without building a ``jsonpatch`` patch: an ``add`` (or a ``replace`` of a
    member that exists) whose path runs through objects only, with no escapes. Sets a copy of the value, as the
    package does, and returns True; False (nothing done) for anything else, which the package then applies or
    refuses with its own message. Negative indices need no resolving on such a path (they are array indices)."""
    kind = op.get("op")
    path = op.get("path")
    if (kind != "add" and kind != "replace") or "value" not in op or type(path) is not str or "~" in path:
        return False
    parts = path.split("/")
    if len(parts) < 2 or parts[0] != "":
        return False
    node = doc
    for part in parts[1:-1]:
        if type(node) is not dict or part not in node:
            return False
        node = node[part]
    last = parts[-1]
    if type(node) is not dict or (kind == "replace" and last not in node):
        return False
    node[last] = json_copy(op["value"])
    return True


def _describe(op: dict, exc: Exception) -> str:
    kind = op.get("op", "unknown")
    if isinstance(exc, jsonpatch.JsonPatchTestFailed):
        return f"testing value {op.get('path')} failed: test failed"
    if kind not in ("add", "remove", "replace", "move", "copy", "test"):
        return f"Unexpected kind: {kind}"
    return f"{kind} operation does not apply: {exc}"


def _resolve_negative_indices(doc: Any, op: dict) -> dict:
    """Rewrite ``path``/``from`` so negative array indices become the index evanphx would use."""
    changed = None
    for field in ("from", "path"):
        pointer = op.get(field)
        if not isinstance(pointer, str) or "/-" not in pointer:
            continue
        # "from" is always read; "path" of an add inserts into a list that grows by one.
        growing = field == "path" and op.get("op") in ("add", "move", "copy")
        resolved = _resolve_pointer(doc, pointer, growing)
        if resolved != pointer:
            changed = changed or dict(op)
            changed[field] = resolved
    return changed or op


def _resolve_pointer(doc: Any, pointer: str, growing: bool) -> str:
    parts = pointer.split("/")[1:]
    node = doc
    out = []
    for i, raw in enumerate(parts):
        last = i == len(parts) - 1
        token = raw
        if isinstance(node, list) and raw.startswith("-") and raw[1:].isdigit():
            size = len(node) + (1 if (last and growing) else 0)
            idx = int(raw)
            if idx >= -size:
                token = str(idx + size)
        out.append(token)
        if last:
            break
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            break
    out.extend(parts[len(out):])
    return "/" + "/".join(out) if parts else pointer


def create_json_patch(original: Any, modified: Any) -> list[dict]:
    """A JSON patch that turns ``original`` into ``modified`` (as ``client.RawPatch`` users build them)."""
    return list(jsonpatch.make_patch(original, modified).patch)
