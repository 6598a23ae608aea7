"""JSON Merge Patch (RFC 7386) as kube-apiserver applies it, plus the diff controller-runtime sends.

The server applies merge patches with evanphx/json-patch v4 ``MergePatch`` (kubernetes/apiserver
``pkg/endpoints/handlers/patch.go``). Its null handling has one wrinkle beyond the RFC that we keep:
nulls are pruned from a value that lands on a *missing, null or non-object* live value (recursively,
including inside objects nested in arrays), but an array that replaces a live *object* is stored as
sent. See docs/patches/merge-patch.md for why ``jsonmerge`` is not used here.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.jsonvalues import decode_json_bytes, encode_json, json_copy, json_equal, json_text

INVALID_PATCH = "Invalid JSON Patch"


def merge_patch(target: Any, patch: Any, *, rfc: bool = False, share: bool = False,
                patch_owned: bool = False) -> Any:
    """Apply ``patch`` to ``target`` and return a new document; neither input is modified.

    A ``null`` or scalar top-level patch is rejected with 400 like the real server (``rfc=True`` follows
    RFC 7386 instead: such a patch replaces the document); an array patch replaces the whole document
    (the caller then rejects a non-object result). ``share``: the result is a new top-level dict that keeps,
    by identity, every subtree of ``target`` the patch does not reach (maps on the way to a change are
    copied, nothing else), so the caller must not change it below the top level without copying first.
    ``patch_owned``: ``patch`` is the caller's private copy (a freshly decoded body), which the result may keep.
    """
    if patch is None or not isinstance(patch, dict | list):
        if rfc:
            return patch
        raise errors.BadRequest(INVALID_PATCH)
    if patch_owned:
        nulls = True
    else:
        # The copy's text tells whether the patch holds a null anywhere: without one, there is nothing to
        # delete and nothing to prune, and the merge only places and descends.
        text = json_text(patch)
        nulls = text is None or b"null" in text
        patch = json_copy(patch) if nulls else decode_json_bytes(text)  # no null in the text: no NaN either
    if isinstance(patch, list) or not isinstance(target, dict):
        _prune_nulls(patch)
        return patch
    if share:
        doc = dict(target)
        _merge_docs(doc, patch, True, nulls)
        return doc
    doc = json_copy(target)
    _merge_docs(doc, patch, False, nulls)
    return doc


def _merge_docs(doc: dict, patch: dict, shared: bool = False, nulls: bool = True) -> None:
    """Merge ``patch`` (a private copy, which this consumes) into ``doc`` in place; ``shared``: ``doc``'s values
    are not ours to change, so a map merged into is copied first; ``nulls``: the patch may hold a null."""
    for key, value in patch.items():
        if value is None:
            doc.pop(key, None)
            continue
        current = doc.get(key)
        if current is None:
            if nulls:
                _prune_nulls(value)
            doc[key] = value
        else:
            doc[key] = _merge_value(current, value, shared, nulls)


def _merge_value(current: Any, value: Any, shared: bool, nulls: bool) -> Any:
    if not isinstance(current, dict):
        if nulls:
            _prune_nulls(value)
        return value
    if not isinstance(value, dict):
        return value
    if shared:
        current = dict(current)
    _merge_docs(current, value, shared, nulls)
    return current


def _prune_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for v in value.values():
            _prune_nulls(v)
    elif isinstance(value, list):
        for v in value:
            if v is not None:
                _prune_nulls(v)


def create_merge_patch(original: dict, modified: dict) -> dict:
    """The merge patch from ``original`` to ``modified``, as controller-runtime's ``MergeFrom`` builds it.

    Objects are diffed key by key, removed keys become ``null``, and any changed list is sent whole.
    """
    patch: dict[str, Any] = {}
    if len(original) > len(modified) or not original.keys() <= modified.keys():
        for key in original:
            if key not in modified:
                patch[key] = None
    for key, new in modified.items():
        old = original.get(key, _ABSENT)
        if old is new:
            continue  # one shared subtree (a modified object built around its base's unchanged parts)
        if old is _ABSENT:
            patch[key] = json_copy(new)
        elif type(old) is dict and type(new) is dict or isinstance(old, dict) and isinstance(new, dict):
            # Equal JSON texts mean no difference below (json_equal's rule); a different subtree is walked.
            if old == new and _same_text(old, new):
                continue
            sub = create_merge_patch(old, new)
            if sub:
                patch[key] = sub
        elif not json_equal(old, new):
            patch[key] = json_copy(new)
    return patch


_ABSENT: Any = object()


def _same_text(a: dict, b: dict) -> bool:
    text = encode_json(a)
    return text is not None and text == encode_json(b)
