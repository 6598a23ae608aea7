"""Decoding a write's body over a stored version: the typed decode with some top-level fields taken as given.

A PUT body is mostly the stored object it replaces. A top-level field that is the stored field byte for byte
decoded cleanly when that version was written, so its decoded copy is known without walking it
(``fakekube.verbs.unchanged`` finds such fields and makes the copies). ``copy_over`` is the root struct's
walk (``fakekube.apimodel.decoder``) with that question asked first, in the same pass: the other fields are
decoded, and errors and unknown fields found, in document order, exactly as a whole decode finds them.
Fields whose decoding is one look at each value's JSON type (``flat_fields``) are cheaper to decode than to
compare, and are not offered.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from fakekube.apimodel.decode_errors import TypeMismatch, unknown_locations
from fakekube.apimodel.decoder import _DROP, Decoded, Decoder, _Map, _Node, _Scalar, _Struct, _Walk
from fakekube.apimodel.goform import fresh


def flat_fields(decoder: Decoder) -> frozenset[str]:
    """The root's fields that are scalars or maps of scalars needing no other check (a ConfigMap's ``data``,
    not its base64 ``binaryData``)."""
    return _flat_fields(decoder.root)


@cache
def _flat_fields(root: _Node) -> frozenset[str]:
    fields = root.fields if isinstance(root, _Struct) else {}
    return frozenset(key for key, node in fields.items() if _flat(node))


def _flat(node: _Node) -> bool:
    if isinstance(node, _Map):
        node = node.value
    return isinstance(node, _Scalar) and node.plain


def copy_over(decoder: Decoder, obj: Any, kept: Callable[[str, Any], Any]) -> Decoded:
    """``decoder.copy(obj)``, but a top-level map or list field (not a flat one) for which ``kept(key, value)``
    gives a value is taken as that value: the caller vouches that it is the field's decoded copy and that the
    field has nothing to report."""
    root = decoder.root
    if type(obj) is not dict or not isinstance(root, _Struct):
        return decoder.copy(obj)
    walk = _Walk()
    flat, plain, ints, steps, empty = _flat_fields(root), root.plain, root.ints, root.copiers, root.empty
    out: dict[str, Any] = {}
    key = ""
    try:
        for key, element in obj.items():  # the struct walk's steps, with ``kept`` asked before walking a field
            if element is None and key in root.nulls:  # (as the struct walk: Go's zero value, as Go writes it)
                action = root.nulls[key]
                if action is not _DROP:
                    out[key] = fresh(action)
                continue
            accepted = plain.get(key)
            if accepted is not None and type(element) in accepted:
                pass
            else:
                bounds = ints.get(key)
                if not (bounds is not None and type(element) is int and bounds[0] <= element <= bounds[1]):
                    step = steps.get(key)
                    if step is None:
                        walk.unknown.append((obj, key))
                        continue
                    value = None
                    if key not in flat and type(element) in (dict, list):
                        value = kept(key, element)
                    element = value if value is not None else step(element, walk)
            if not element and key in empty:  # (as the struct walk: omitempty)
                continue
            out[key] = element
    except TypeMismatch as mismatch:
        mismatch.location.append(key)
        raise mismatch.error(root) from None
    for key, zero in root.absent:
        if key not in obj:
            out[key] = fresh(zero)
    return Decoded(out, unknown_locations(obj, walk.unknown) if walk.unknown else [])
