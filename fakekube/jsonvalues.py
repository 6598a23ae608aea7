"""JSON-shaped values (dicts, lists, scalars): deep copies and JSON equality.

The store never hands out references to its own data, so every read and every write's answer pays for one
copy: ``json_copy`` is on every hot path. It is a round trip through orjson's C encoder and decoder (2.5-3×
faster than a Python walk on a Pod, docs/benchmarks.md; docs/dependencies.md says why orjson), falling back to
the Python walk (``walk_copy``) for a value that would not come back equal and of the same types: non-finite
floats, integers beyond 64 bits, non-string keys, lone surrogates, subclasses of str/int/dict/list,
datetimes, dataclasses, or no orjson installed. As from any JSON round trip, a tuple inside a document comes
back as a list (and a UUID or an Enum member as its JSON value).
"""

from __future__ import annotations

from typing import Any

try:  # an optional speed-up: everything works (slower) without it
    import orjson
except ImportError:  # pragma: no cover - exercised by tests that hide the module
    orjson = None  # type: ignore[assignment]

# Exact scalar types end the recursion with one set lookup, which is cheaper than ``isinstance`` against a
# union; anything else (containers, subclasses, odd values) takes the general path, so results are unchanged.
_SCALARS = frozenset((str, int, float, bool, type(None)))


def walk_copy(value: Any) -> Any:
    """A deep copy of a JSON document by a Python walk (no memo, no dispatch: JSON has no shared or cyclic
    parts); it keeps every value that is not a container as it is."""
    t = type(value)
    if t is dict or (t is not list and isinstance(value, dict)):
        return {k: (v if type(v) in _SCALARS else walk_copy(v)) for k, v in value.items()}
    if t is list or isinstance(value, list):
        return [v if type(v) in _SCALARS else walk_copy(v) for v in value]
    return value


# Types orjson would write in a form of its own (an ISO date, a dataclass's fields, a subclass as its base) are
# refused instead, so they take walk_copy's path and keep their type.
_PASSTHROUGH = (orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
                | orjson.OPT_PASSTHROUGH_SUBCLASS) if orjson is not None else 0
_dumps = orjson.dumps if orjson is not None else None
_loads = orjson.loads if orjson is not None else None


def encode_json(value: Any) -> bytes | None:
    """Compact JSON bytes that ``decode_json_bytes`` turns back into an equal copy of ``value``, or None
    when there is no such text (or no orjson): the caller then copies with ``walk_copy``."""
    if _dumps is None:
        return None
    try:
        data = _dumps(value, option=_PASSTHROUGH)
    except TypeError:  # a key that is not a string, an integer beyond 64 bits, a surrogate, a foreign type
        return None
    # orjson writes NaN and infinities as null: where the text has a null, the copy must equal the original.
    # (``find``, not ``in``: bytes' ``in`` first tries its operand as an integer, and formats and drops a
    # TypeError for every bytes operand, about as costly as the search itself.)
    if data.find(b"null") >= 0 and _loads(data) != value:
        return None
    return data


def json_text(value: Any) -> bytes | None:
    """``encode_json``'s bytes without its check for non-finite floats (written as null), for a caller that
    compares the values with ``==`` too: a NaN equals no null (nor itself), so equal texts of equal values are
    equal JSON. None when orjson cannot write the value exactly (or is missing)."""
    if _dumps is None:
        return None
    try:
        return _dumps(value, option=_PASSTHROUGH)
    except TypeError:
        return None


def decode_json_bytes(data: bytes) -> Any:
    """A fresh document from ``encode_json``'s bytes."""
    return _loads(data)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON document: the C round trip where it gives an equal copy, else ``walk_copy``.
    (``copy_with_text`` without the bytes, written out: this is the store's hottest call, and a call and a
    tuple more would cost it a few percent.)"""
    t = type(value)
    if (t is dict or t is list) and _dumps is not None:
        try:
            data = _dumps(value, option=_PASSTHROUGH)
        except TypeError:
            return walk_copy(value)
        copy = _loads(data)
        if data.find(b"null") >= 0 and copy != value:  # as in encode_json
            return walk_copy(value)
        return copy
    return walk_copy(value)


def copy_with_text(value: Any) -> tuple[Any, bytes | None]:
    """``json_copy(value)`` and the bytes it went through, which are ``encode_json(value)``'s; None, with the
    copy ``walk_copy``'s, when no text comes back equal. For a keeper of bytes that also wants a copy now."""
    if _dumps is None:
        return walk_copy(value), None
    try:
        data = _dumps(value, option=_PASSTHROUGH)
    except TypeError:
        return walk_copy(value), None
    copy = _loads(data)
    if data.find(b"null") >= 0 and copy != value:
        return walk_copy(value), None
    return copy, data


_PLAIN = frozenset((str, int, float, type(None)))


def same_json_text(a: Any, b: Any) -> bool:
    """Whether two values are written as the same JSON text: the same types all the way down (``true`` is not
    ``1``, ``1`` not ``1.0``, ``0.0`` not ``-0.0``) and, in containers, the same keys in the same order. Fast on
    what a write usually compares: the very same object, or equal strings and integers."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b) or a != b:
        return False
    if kind is str or kind is int or kind is bool:
        return True
    # Equal values (a NaN equals no null, so their texts cannot hide one) with equal texts.
    text = json_text(a)
    return text is not None and text == json_text(b)


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: 1 and 1.0 are the same number, but true is not 1."""
    ta = type(a)
    if ta is type(b) and ta in _PLAIN:
        return a == b
    if ta is bool or type(b) is bool:
        return ta is type(b) and a == b
    # JSON equality implies Python's (which also says True == 1): unequal values end here, in C. Equal
    # containers whose texts are the same bytes are JSON-equal too (same keys in the same order, the same
    # literals: `true` is not `1`, `1` is not `1.0`); anything else is walked.
    if a != b:
        return False
    if ta is dict or ta is list:
        text = encode_json(a)
        if text is not None and text == encode_json(b):
            return True
    return _walk_equal(a, b)


def _walk_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_walk_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_walk_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return a == b
