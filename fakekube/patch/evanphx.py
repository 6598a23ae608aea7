"""JSON Patch as kube-apiserver applies it: a port of ``gopkg.in/evanphx/json-patch.v4`` (v4.13.0,
``patch.go``), which ``k8s.io/apiserver/pkg/endpoints/handlers/patch.go`` calls with
``SupportNegativeIndices`` on and ``AccumulatedCopySizeLimit`` = 3 MiB (``pkg/server/config.go``,
``JSONPatchMaxCopyBytes``).

Where v4 is not RFC 6902 (each observed on kube-apiserver v1.37.2):

- ``replace`` of a missing object member sets it (only an array index must exist);
- ``test`` of a missing or null member passes when the operation's value is ``null`` or absent;
- ``copy`` from a missing object member copies ``null``; ``add`` without a value adds ``null``;
- a path is split on ``/`` without checking that it starts with one (``spec/x`` sets ``x`` of the root),
  and an escape other than ``~0``/``~1`` is kept as it is (``/a~2`` names ``a~2``); ``add`` at ``""`` fails;
- array indices are ``strconv.Atoi`` (``01``, ``+1`` and ``-1`` are indices; ``-`` only appends);
- ``test`` compares scalars by their JSON text, compacted: ``1.0`` is not ``1``, ``"\\u0041"`` is not
  ``"A"``, and a stored ``<`` (which the server encodes as ``\\u003c``) is not ``"<"``;
- a ``test`` or whole-document ``replace`` without a value, and a ``test`` that meets ``null`` inside an
  array, dereference a nil pointer: the handler panics and the connection is closed without a reply
  (:class:`fakekube.errors.HandlerPanic`).

Every failure is ``NewGenericServerResponse(422)``: the generic message and empty details (the library's
own words are dropped), so this module only needs to know *whether* an operation fails.
"""

from __future__ import annotations

import re
from typing import Any

from fakekube import errors, gojson
from fakekube.gotext import go_float
from fakekube.jsonvalues import json_copy

COPY_SIZE_LIMIT = 3 * 1024 * 1024  # JSONPatchMaxCopyBytes
_ABSENT = object()  # an operation without "value"
_INT = re.compile(r"[+-]?[0-9]+\Z")
_ESCAPE = re.compile(r"~[01]")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class _Failed(Exception):
    """An operation that does not apply (the 422)."""


class Leaf:
    """A scalar taken from the patch body, with its JSON text as the library keeps it (``json.RawMessage``)
    and the value it decodes to. ``text`` is empty for an operation's top-level ``"value": null``, which Go
    holds as a nil ``RawMessage`` (its compacted form is nil)."""

    __slots__ = ("text", "value")

    def __init__(self, text: bytes, value: Any) -> None:
        self.text = text
        self.value = value


def apply(document: Any, ops: list[dict], raw_body: Any = None) -> Any:
    """Apply decoded operations to a copy of ``document``. ``raw_body``: the patch as it was sent, whose
    value texts a ``test`` compares (without it, values compare as Go writes them)."""
    doc = json_copy(document)
    last_test = -1
    for i, op in enumerate(ops):
        if type(op) is dict and op.get("op") == "test":
            last_test = i
    values: list[Any] = []
    wrapped = False  # raw nodes were set in the document (a later test may compare them)
    if last_test >= 0:
        values = _raw_values(ops[:last_test + 1], raw_body)
        wrapped = any(type(op) is dict and op.get("op") in ("add", "replace") and "value" in op
                      for op in ops[:last_test])
    copied = [0]
    try:
        for i, op in enumerate(ops):
            if op is None:
                op = {}
            if i <= last_test:
                value = values[i]
            else:
                value = op.get("value", _ABSENT)
                if value is not _ABSENT:
                    value = json_copy(value)
            doc = _operation(doc, op, value, copied)
    except _Failed as exc:
        # The API's patch handler shows the generic message; the library's own (``failure_text``) is kept as the
        # cause, for MutatingAdmissionPolicy's JSONPatch, which shows it.
        raise errors.GenericInvalid() from exc
    return _unwrap(doc) if wrapped else doc


def failure_text(exc: BaseException) -> str:
    """evanphx/json-patch v4's error text for an ``apply`` that failed (as far as it is known here)."""
    cause = exc.__cause__
    return str(cause.args[0]) if isinstance(cause, _Failed) and cause.args else "invalid state detected"


def _located(kind: str, doc: Any, path: Any) -> tuple[Any, str]:
    try:
        return _find(doc, path)
    except _Failed as exc:
        if exc.args:
            raise
        raise _Failed(f'{kind} operation does not apply: doc is missing path: "{path}": missing value') from None


def _operation(doc: Any, op: dict, value: Any, copied: list[int]) -> Any:  # noqa: PLR0912
    kind = op.get("op")
    path = op.get("path")
    if kind == "add":
        con, key = _located("add", doc, path)
        try:
            _add(con, key, None if value is _ABSENT else value)
        except _Failed:
            raise _Failed(f"error in add for path: '{path}': Unable to access invalid index: {key}: invalid index "
                          "referenced") from None
    elif kind == "remove":
        con, key = _located("remove", doc, path)
        try:
            _remove(con, key)
        except _Failed:
            detail = (f"Unable to remove nonexistent key: {key}: missing value" if type(con) is dict
                      else f"Unable to access invalid index: {key}: invalid index referenced")
            raise _Failed(f"error in remove for path: '{path}': {detail}") from None
    elif kind == "replace":
        if path == "":
            if value is _ABSENT:
                raise errors.HandlerPanic()
            if type(value) not in (dict, list):
                raise _Failed  # "replace operation value must be object or array"
            return value
        con, key = _find(doc, path)
        _get(con, key)
        _set(con, key, None if value is _ABSENT else value)
    elif kind == "move":
        con, key = _find(doc, op.get("from"))
        moved = _get(con, key)
        _remove(con, key)
        con, key = _find(doc, path)
        _add(con, key, moved)
    elif kind == "copy":
        con, key = _find(doc, op.get("from"))
        source = _get(con, key)
        con, key = _find(doc, path)
        duplicate, size = _deep_copy(source)
        copied[0] += size
        if copied[0] > COPY_SIZE_LIMIT:
            raise _Failed
        _add(con, key, duplicate)
    elif kind == "test":
        try:
            _test(doc, path, value)
        except _Failed:
            raise _Failed(f"testing value {path} failed: test failed") from None
    else:
        raise _Failed(f"Unexpected kind: {kind}")
    return doc


# -- containers (partialDoc / partialArray) ------------------------------------------------------------------


def _find(doc: Any, path: Any) -> tuple[Any, str]:
    """``findObject``: the container of the last token and that token, unescaped."""
    if type(path) is not str:
        raise _Failed  # "missing path"
    split = path.split("/")
    if len(split) < 2:
        raise _Failed
    node = doc
    for part in split[1:-1]:
        try:
            node = _get(node, _unescape(part))
        except _Failed:
            raise _Failed from None
        if type(node) is not dict and type(node) is not list:
            raise _Failed  # nil, a raw null, or a scalar that does not unmarshal into a map
    return node, _unescape(split[-1])


def _unescape(token: str) -> str:
    if "~" not in token:
        return token
    return _ESCAPE.sub(lambda m: "/" if m.group() == "~1" else "~", token)


def _index(key: str) -> int:
    if _INT.match(key) is None:
        raise _Failed
    idx = int(key)
    if not _INT64_MIN <= idx <= _INT64_MAX:
        raise _Failed
    return idx


def _get(con: Any, key: str) -> Any:
    if type(con) is dict:
        return con.get(key)
    idx = _index(key)
    if idx < 0:
        if idx < -len(con):
            raise _Failed
        idx += len(con)
    if idx >= len(con):
        raise _Failed
    return con[idx]


def _set(con: Any, key: str, value: Any) -> None:
    if type(con) is dict:
        con[key] = value
        return
    idx = _index(key)
    if idx < 0:
        idx += len(con)  # _get has checked it
    con[idx] = value


def _add(con: Any, key: str, value: Any) -> None:
    if type(con) is dict:
        con[key] = value
        return
    if key == "-":
        con.append(value)
        return
    idx = _index(key)
    size = len(con) + 1
    if idx >= size:
        raise _Failed
    if idx < 0:
        if idx < -size:
            raise _Failed
        idx += size
    con.insert(idx, value)


def _remove(con: Any, key: str) -> None:
    if type(con) is dict:
        if key not in con:
            raise _Failed
        del con[key]
        return
    idx = _index(key)
    if idx >= len(con):
        raise _Failed
    if idx < 0:
        if idx < -len(con):
            raise _Failed
        idx += len(con)
    del con[idx]


def _deep_copy(value: Any) -> tuple[Any, int]:
    """``deepCopy``: the value marshalled (a raw text is compacted with HTML escaping) and its size."""
    if value is None:
        return None, 0
    text = marshal(value)
    if type(value) is Leaf:
        return Leaf(text, value.value), len(text)
    return _wrap_copy(value), len(text)


def _wrap_copy(value: Any) -> Any:
    if type(value) is dict:
        return {k: _wrap_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_wrap_copy(v) for v in value]
    if type(value) is Leaf:
        return Leaf(marshal(value), value.value)
    return value


# -- test: lazyNode.equal on JSON texts ----------------------------------------------------------------------


def _test(doc: Any, path: Any, value: Any) -> None:
    if path == "":
        if value is _ABSENT:
            raise errors.HandlerPanic()
        if not _equal(doc, value):
            raise _Failed
        return
    con, key = _find(doc, path)
    current = _get(con, key)
    if current is None:
        if value is _ABSENT or value is None or (type(value) is Leaf and value.text == b""):
            return
        raise _Failed
    if value is _ABSENT or not _equal(current, value):
        raise _Failed


def _equal(n: Any, o: Any) -> bool:
    """``n.equal(o)``: ``n`` from the document, ``o`` from the operation (a raw node until compared)."""
    if n is None or o is None:
        raise errors.HandlerPanic()  # a nil *lazyNode (a null array element) dereferenced
    tn = type(n)
    if tn is dict:
        if type(o) is not dict or len(n) != len(o):
            return False
        for k, v in n.items():
            if k not in o:
                return False
            ov = o[k]
            if (v is None) != (ov is None):
                return False
            if v is not None and not _equal(v, ov):
                return False
        return True
    if tn is list:
        if type(o) is not list or len(n) != len(o):
            return False
        return all(_equal(v, ov) for v, ov in zip(n, o, strict=True))
    if type(o) is not Leaf:
        return False  # an object or array text is never a scalar's
    return _scalar_text(n) == o.text


def _scalar_text(value: Any) -> bytes:
    if type(value) is Leaf:
        return value.text
    return marshal(value)


def marshal(value: Any) -> bytes:
    """``json.Marshal``: Go's texts for the document's own values, a raw text compacted with HTML escaping."""
    t = type(value)
    if t is Leaf:
        return _html_escape(value.text) if value.text else b"null"
    if value is None:
        return b"null"
    if t is bool:
        return b"true" if value else b"false"
    if t is int:
        return str(value).encode()
    if t is float or t is gojson.BigNumber:
        return _go_json_float(float(value)).encode()
    if t is str:
        return _go_string(value)
    if t is dict:
        return b"{" + b",".join(_go_string(k) + b":" + marshal(v) for k, v in sorted(value.items())) + b"}"
    if t is list:
        return b"[" + b",".join(marshal(v) for v in value) + b"]"
    return _go_string(str(value))


def _go_string(text: str) -> bytes:
    import json

    return _html_escape(json.dumps(text, ensure_ascii=False).encode("utf-8", "replace"))


def _html_escape(text: bytes) -> bytes:
    for raw, escaped in ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
                         ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029")):
        if raw in text:
            text = text.replace(raw, escaped)
    return text


def _go_json_float(value: float) -> str:
    """encoding/json's float64: shortest digits, ``%f`` form unless below 1e-6 or from 1e21 on."""
    if value == 0:
        return "0" if str(value)[0] != "-" else "-0"
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        text = go_float(value).replace("e-0", "e-").replace("e+0", "e+")
        return text
    from decimal import Decimal

    text = format(Decimal(repr(value)), "f")
    return text


# -- raw values ----------------------------------------------------------------------------------------------


def _raw_values(ops: list[dict], raw_body: Any) -> list[Any]:
    """Each operation's value as the library holds it: containers of raw nodes whose scalars keep their text
    (``Leaf``); ``_ABSENT`` where there is none."""
    texts = None
    if isinstance(raw_body, str | bytes | bytearray | memoryview) and any(
            type(op) is dict and "value" in op for op in ops):
        data = raw_body.encode("utf-8", "surrogatepass") if isinstance(raw_body, str) else bytes(raw_body)
        try:
            texts = _raw_tree(data)
        except (ValueError, IndexError):  # pragma: no cover - the body was decoded already
            texts = None
        if type(texts) is not list or len(texts) < len(ops):
            texts = None
    out: list[Any] = []
    for i, op in enumerate(ops):
        if type(op) is not dict or "value" not in op:
            out.append(_ABSENT)
            continue
        decoded = op["value"]
        raw_op = texts[i] if texts is not None else None
        raw = raw_op.get("value", _ABSENT) if type(raw_op) is dict else _ABSENT
        raw = _canonical_tree(decoded) if raw is _ABSENT else _attach(raw, decoded)
        if decoded is None:
            raw = Leaf(b"", None)  # "value": null is a nil RawMessage
        out.append(raw)
    return out


def _canonical_tree(value: Any) -> Any:
    if type(value) is dict:
        return {k: _canonical_tree(v) for k, v in value.items()}
    if type(value) is list:
        return [_canonical_tree(v) for v in value]
    if value is None:
        return None
    return Leaf(marshal(value), value)


def _attach(raw: Any, decoded: Any) -> Any:
    """Give each ``Leaf`` of a raw tree the decoded value at its place (the body decoded as the server holds
    it: a custom resource's numbers already as Go's unstructured decoding has them)."""
    if type(raw) is Leaf:
        raw.value = decoded
        return raw
    if raw is None or type(raw) is not type(decoded):
        return _canonical_tree(decoded)
    stack = [(raw, decoded)]
    while stack:
        r, d = stack.pop()
        items = r.items() if type(r) is dict else enumerate(r)
        for k, v in list(items):
            dv = d[k] if (type(d) is dict and k in d) or (type(d) is list and k < len(d)) else None
            if type(v) is Leaf:
                v.value = dv
            elif v is not None:
                if type(v) is type(dv):
                    stack.append((v, dv))
                else:
                    r[k] = _canonical_tree(dv)
    return raw


def _unwrap(doc: Any) -> Any:
    """The patched document with each ``Leaf`` replaced by its value."""
    if type(doc) is Leaf:
        return doc.value
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if type(node) is dict else enumerate(node)
        for k, v in list(items):
            t = type(v)
            if t is Leaf:
                node[k] = v.value
            elif t is dict or t is list:
                stack.append(v)
    return doc


_SPACE = b" \t\r\n"


def _raw_tree(data: bytes) -> Any:
    """A valid JSON text as a tree of dicts and lists whose scalars are ``Leaf`` (text only) and whose nulls
    are None; a key repeated keeps its last value, as Go's map decoding does."""
    n = len(data)
    i = 0
    root: list[Any] = []
    stack: list[Any] = [root]  # containers being filled; root collects the top value
    keys: list[Any] = [None]

    def skip(i: int) -> int:
        while i < n and data[i] in _SPACE:
            i += 1
        return i

    def put(value: Any) -> None:
        top = stack[-1]
        if type(top) is dict:
            top[keys[-1]] = value
        else:
            top.append(value)

    while True:
        i = skip(i)
        c = data[i]
        if c == 0x7B:  # {
            container: Any = {}
            put(container)
            i = skip(i + 1)
            if data[i] == 0x7D:
                i += 1
            else:
                stack.append(container)
                keys.append(None)
                i = _read_key(data, i, keys, skip)
                continue
        elif c == 0x5B:  # [
            container = []
            put(container)
            i = skip(i + 1)
            if data[i] == 0x5D:
                i += 1
            else:
                stack.append(container)
                keys.append(None)
                continue
        elif c == 0x22:  # "
            j = _string_end(data, i)
            put(Leaf(data[i:j + 1], None))
            i = j + 1
        else:
            j = i
            while j < n and data[j] not in b",]} \t\r\n":
                j += 1
            text = data[i:j]
            put(None if text == b"null" else Leaf(text, None))
            i = j
        # after a value: a comma or the end of containers
        while True:
            i = skip(i)
            if len(stack) == 1:
                return root[0]
            c = data[i]
            if c == 0x2C:  # ,
                i += 1
                if type(stack[-1]) is dict:
                    i = _read_key(data, skip(i), keys, skip)
                break
            stack.pop()
            keys.pop()
            i += 1  # } or ]


def _string_end(data: bytes, i: int) -> int:
    """The index of the quote that closes the string opening at ``i``."""
    j = data.index(b'"', i + 1)
    while True:
        k = j - 1
        while data[k] == 0x5C:  # count the backslashes before it: an odd number escapes it
            k -= 1
        if (j - 1 - k) % 2 == 0:
            return j
        j = data.index(b'"', j + 1)


def _read_key(data: bytes, i: int, keys: list[Any], skip: Any) -> int:
    j = _string_end(data, i)
    raw = data[i + 1:j]
    try:
        keys[-1] = gojson.loads(data[i:j + 1]) if b"\\" in raw else raw.decode("utf-8")
    except UnicodeDecodeError:
        keys[-1] = gojson.loads(data[i:j + 1])
    i = skip(j + 1)
    return i + 1  # past ':'
