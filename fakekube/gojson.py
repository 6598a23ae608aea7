"""Request JSON read the way kube-apiserver's Go decoders read it.

Python's ``json`` module accepts what Go refuses and refuses what Go accepts, and words its errors its own
way. This module closes the gap for request bodies:

- Syntax: Go's scanner (``encoding/json/scanner.go``, and its copy in sigs.k8s.io/json) decides validity
  and words the error: ``invalid character 'N' looking for beginning of value``, ``unexpected end of JSON
  input``, ``invalid character '[' exceeded max depth`` beyond 10,000 nested arrays and objects. ``NaN``,
  ``Infinity`` and ``-Infinity`` are syntax errors, as in Go. The scanner here runs only on a body Python's
  parser refused (or that holds one of those words), so valid bodies pay nothing for it.
- Text: invalid UTF-8 inside a string becomes U+FFFD, one per bad byte (Go's ``unquote``), and so does an
  escaped lone surrogate (``"\\ud800"``); outside a string an invalid byte is a syntax error.
- Numbers: Go decodes every number of an unstructured object (a custom resource, a patch document) as an
  ``int64`` when its text is an integer that fits, else as a ``float64``
  (``UnmarshalCaseSensitivePreserveInts``); a number no ``float64`` holds (``1e400``) is the error
  ``json: cannot unmarshal number 1e400 into Go value of type float64``. The parser keeps integers that
  do not fit in 64 bits, and floats that overflow, as :class:`BigNumber` (a ``float`` that remembers its
  text), so the typed decoder of a built-in kind can word its own error; :func:`unstructured` gives a
  document the values Go's unstructured decoding would (and a float that is a whole number becomes an
  ``int``, since Go writes ``float64(1)`` as ``1`` and reads it back as an ``int64``).
- Depth: a valid body nested deeper than Python's recursion limit (Go allows 10,000 levels) is parsed by
  an iterative parser instead of failing.

Sources (Go 1.26 / kube-apiserver v1.37.2): ``encoding/json/scanner.go`` (``checkValid``, ``quoteChar``,
``maxNestingDepth``), ``encoding/json/decode.go`` (``unquote``, ``convertNumber``), sigs.k8s.io/json
``internal/golang/encoding/json/kubernetes_patch.go`` (``convertNumber`` into int64 or float64).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import Any

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DEPTH = 10000  # encoding/json maxNestingDepth


class GoJSONError(ValueError):
    """A body Go's decoder refuses; ``str(exc)`` is Go's message (without any handler's prefix)."""


class JSONSyntaxError(GoJSONError):
    """Go's ``*json.SyntaxError``."""


class BigNumber(float):
    """A JSON number Go cannot hold as it reads it: an integer beyond int64, or a float beyond float64
    (whose value here is infinite). ``text`` is the literal, which Go's errors quote."""

    text: str

    def __new__(cls, text: str) -> BigNumber:
        try:
            value = float(text)
        except (OverflowError, ValueError):  # (a valid JSON number always converts; defensive)
            value = float("inf") if not text.startswith("-") else float("-inf")
        number = super().__new__(cls, value)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text

    @property
    def finite(self) -> bool:
        return self not in (float("inf"), float("-inf"))


def _go_replace(exc: UnicodeError) -> tuple[str, int]:
    # Go replaces each byte of an invalid UTF-8 sequence with its own U+FFFD (utf8.DecodeRune: size 1).
    assert isinstance(exc, UnicodeDecodeError)
    return "\ufffd" * (exc.end - exc.start), exc.end


codecs.register_error("fakekube-go-replace", _go_replace)


def go_text(data: bytes) -> str:
    """Bytes as Go reads them into a string: UTF-8, each invalid byte a U+FFFD."""
    return data.decode("utf-8", "fakekube-go-replace")


class Flags:
    """What one parse met that a caller may have to look at again (cheap to ask, set by the hooks)."""

    __slots__ = ("big", "floats", "surrogates")

    def __init__(self) -> None:
        self.big = False
        self.floats = False
        self.surrogates = False


def _reject_constant(name: str) -> Any:
    raise _Constant(name)


class _Constant(Exception):
    pass


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def loads(data: bytes | bytearray | memoryview | str, *,
          object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
          flags: Flags | None = None) -> Any:
    """Parse one JSON text as Go's ``json.Unmarshal`` into ``interface{}`` would accept it; a syntax error
    raises :class:`JSONSyntaxError` with Go's words. Integers beyond int64 and overflowing floats come back
    as :class:`BigNumber`; ``flags`` (optional) records whether any float, big number or lone surrogate
    was met."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    seen = flags if flags is not None else Flags()

    def parse_float(text: str) -> float:
        seen.floats = True
        value = float(text)
        if value in (_INF, _NEG_INF):
            seen.big = True
            return BigNumber(text)
        return value

    def parse_int(text: str) -> int | float:
        if len(text) < 19:
            return int(text)
        if len(text) < 4000:  # (Python refuses to convert longer digit strings)
            value = int(text)
            if INT64_MIN <= value <= INT64_MAX:
                return value
        seen.big = True
        return BigNumber(text)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = go_text(raw)
    try:
        value = json.loads(text, parse_float=parse_float, parse_int=parse_int, parse_constant=_reject_constant,
                           object_pairs_hook=object_pairs_hook)
    except (ValueError, _Constant, RecursionError) as exc:
        message = syntax_error(raw)
        if message is not None:
            raise JSONSyntaxError(message) from None
        if not isinstance(exc, RecursionError):  # pragma: no cover - Python refused what Go accepts
            raise JSONSyntaxError(str(exc)) from None
        value = _parse_deep(text, parse_float, parse_int, object_pairs_hook)
    if len(raw) > 2 * MAX_DEPTH and raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        # Python's parser has no depth limit of its own (with the server's recursion limit): Go's is 10,000.
        message = syntax_error(raw)
        if message is not None:
            raise JSONSyntaxError(message)
    if _SURROGATE_ESCAPE.search(raw) is not None:
        seen.surrogates = True
        value = replace_surrogates(value)
    return value


_INF, _NEG_INF = float("inf"), float("-inf")


def replace_surrogates(value: Any) -> Any:
    """Go's ``unquote`` turns an escaped lone surrogate into U+FFFD (Python's parser keeps it)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = replace_surrogates(item)
        return value
    if isinstance(value, dict):
        items = [(replace_surrogates(k), replace_surrogates(v)) for k, v in value.items()]
        value.clear()
        value.update(items)
        return value
    return value


def unstructured(value: Any) -> Any:
    """A parsed document as Go's unstructured decoding holds it (``map[string]interface{}``): integers
    beyond int64 become floats, a float that is a whole number within int64 becomes an int (Go writes it
    as an integer and reads it back as one), and a number beyond float64 is Go's error. Changed in place;
    the (possibly new) value is returned."""
    t = type(value)
    if t is dict or (t is not list and isinstance(value, dict)):  # (a RequestBody is a dict)
        for key, item in value.items():
            if type(item) in (dict, list, float, BigNumber):
                value[key] = unstructured(item)
        return value
    if t is list:
        for i, item in enumerate(value):
            if type(item) in (dict, list, float, BigNumber):
                value[i] = unstructured(item)
        return value
    if t is BigNumber:
        if not value.finite:
            raise GoJSONError(f"json: cannot unmarshal number {value.text} into Go value of type float64")
        value = float(value)
        t = float
    if t is float and value.is_integer() and -(2.0**63) <= value < 2.0**63:
        return int(value)
    return value


def first_overflow(value: Any) -> BigNumber | None:
    """The first number (in document order) that no float64 holds, if any."""
    if isinstance(value, BigNumber):
        return None if value.finite else value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list | BigNumber):
                found = first_overflow(item)
                if found is not None:
                    return found
    return None


# -- Go's scanner: validity and the words of its errors ------------------------------------------------------

_SPACE = frozenset(b" \t\r\n")
_DIGITS = frozenset(b"0123456789")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_ESCAPES = frozenset(b'bfnrt\\/"')
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}


def quote_char(c: int) -> str:
    """``quoteChar``: the byte as a Go rune literal (a byte >= 0x80 is the rune of that value)."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    if c == 0x5C:
        return "'\\\\'"
    ch = chr(c)
    if ch.isprintable():  # (Python's and Go's notions agree on U+0000-U+00FF)
        return f"'{ch}'"
    if c == 0x07:
        return "'\\a'"
    named = {0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v"}
    if c in named:
        return f"'{named[c]}'"
    return f"'\\x{c:02x}'" if c < 0x80 else f"'\\u{c:04x}'"


class _Stop(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def _error(c: int, context: str) -> _Stop:
    return _Stop(f"invalid character {quote_char(c)} {context}")


def syntax_error(data: bytes) -> str | None:
    """``checkValid``: None when ``data`` is one valid JSON value, else Go's error message."""
    n = len(data)
    i = 0
    stack: list[int] = []  # 0: object key, 1: object value, 2: array value
    try:
        i = _skip_space(data, i)
        if i >= n:
            raise _Stop("unexpected end of JSON input")
        i = _value(data, i, stack)
        while True:
            # After a value: close containers, or continue them.
            i = _skip_space(data, i)
            if not stack:
                if i < n:
                    raise _error(data[i], "after top-level value")
                return None
            if i >= n:
                raise _Stop("unexpected end of JSON input")
            c = data[i]
            state = stack[-1]
            if state == 0:
                if c != 0x3A:  # ':'
                    raise _error(c, "after object key")
                stack[-1] = 1
                i = _skip_space(data, i + 1)
                if i >= n:
                    raise _Stop("unexpected end of JSON input")
                i = _value(data, i, stack)
            elif state == 1:
                if c == 0x2C:  # ','
                    stack[-1] = 0
                    i = _skip_space(data, i + 1)
                    if i >= n:
                        raise _Stop("unexpected end of JSON input")
                    if data[i] != 0x22:
                        raise _error(data[i], "looking for beginning of object key string")
                    i = _string(data, i + 1)
                elif c == 0x7D:  # '}'
                    stack.pop()
                    i += 1
                else:
                    raise _error(c, "after object key:value pair")
            else:
                if c == 0x2C:
                    i = _skip_space(data, i + 1)
                    if i >= n:
                        raise _Stop("unexpected end of JSON input")
                    i = _value(data, i, stack)
                elif c == 0x5D:  # ']'
                    stack.pop()
                    i += 1
                else:
                    raise _error(c, "after array element")
    except _Stop as stop:
        return stop.message


def _skip_space(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _SPACE:
        i += 1
    return i


def _value(data: bytes, i: int, stack: list[int]) -> int:
    """Scan the value starting at ``data[i]`` (not a space). A container is opened (pushed) and scanned up
    to its first member or its end; the caller's loop does the rest. Returns the index after what was read."""
    n = len(data)
    while True:
        c = data[i]
        if c == 0x7B:  # '{'
            stack.append(0)
            if len(stack) > MAX_DEPTH:
                raise _error(c, "exceeded max depth")
            i = _skip_space(data, i + 1)
            if i >= n:
                raise _Stop("unexpected end of JSON input")
            if data[i] == 0x7D:
                stack.pop()
                return i + 1
            if data[i] != 0x22:
                raise _error(data[i], "looking for beginning of object key string")
            return _string(data, i + 1)
        if c == 0x5B:  # '['
            stack.append(2)
            if len(stack) > MAX_DEPTH:
                raise _error(c, "exceeded max depth")
            i = _skip_space(data, i + 1)
            if i >= n:
                raise _Stop("unexpected end of JSON input")
            if data[i] == 0x5D:
                stack.pop()
                return i + 1
            continue  # the first element
        if c == 0x22:
            return _string(data, i + 1)
        if c == 0x2D or c in _DIGITS:
            return _number(data, i)
        literal = _LITERALS.get(c)
        if literal is not None:
            for k in range(1, len(literal)):
                got = data[i + k] if i + k < n else 0x20  # at the end, eof() feeds a space
                if got != literal[k]:
                    raise _error(got, f"in literal {literal.decode()} (expecting {quote_char(literal[k])})")
            return i + len(literal)
        raise _error(c, "looking for beginning of value")


def _string(data: bytes, i: int) -> int:
    """Scan a string's body from after its opening quote; the index after the closing quote."""
    n = len(data)
    while i < n:
        c = data[i]
        if c == 0x22:
            return i + 1
        if c == 0x5C:  # backslash
            i += 1
            if i >= n:
                raise _error(0x20, "in string escape code")  # eof() feeds a space
            e = data[i]
            if e == 0x75:  # 'u'
                for k in range(1, 5):
                    if i + k >= n:
                        raise _error(0x20, "in \\u hexadecimal character escape")
                    if data[i + k] not in _HEX:
                        raise _error(data[i + k], "in \\u hexadecimal character escape")
                i += 5
                continue
            if e not in _ESCAPES:
                raise _error(e, "in string escape code")
            i += 1
            continue
        if c < 0x20:
            raise _error(c, "in string literal")
        i += 1
    raise _Stop("unexpected end of JSON input")


def _number(data: bytes, i: int) -> int:
    """Scan a number; at the end of the input, Go's eof() feeds a space, so an unfinished number is an
    error about that space rather than "unexpected end"."""
    n = len(data)
    if data[i] == 0x2D:
        i += 1
        if (data[i] if i < n else 0x20) not in _DIGITS:
            raise _error(data[i] if i < n else 0x20, "in numeric literal")
    if data[i] == 0x30:
        i += 1
    else:
        while i < n and data[i] in _DIGITS:
            i += 1
    if i < n and data[i] == 0x2E:  # '.'
        i += 1
        if (data[i] if i < n else 0x20) not in _DIGITS:
            raise _error(data[i] if i < n else 0x20, "after decimal point in numeric literal")
        while i < n and data[i] in _DIGITS:
            i += 1
    if i < n and data[i] in (0x65, 0x45):  # e E
        i += 1
        if i < n and data[i] in (0x2B, 0x2D):
            i += 1
        if (data[i] if i < n else 0x20) not in _DIGITS:
            raise _error(data[i] if i < n else 0x20, "in exponent of numeric literal")
        while i < n and data[i] in _DIGITS:
            i += 1
    return i


# -- an iterative parser for valid documents deeper than Python's recursion limit ---------------------------

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")
_WS = re.compile(r"[ \t\n\r]*")


def _parse_deep(text: str, parse_float: Callable[[str], Any], parse_int: Callable[[str], Any],
                object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None) -> Any:
    """Parse a document the scanner has already found valid, without recursion."""
    scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
    make_object = object_pairs_hook or dict
    # Each frame: [container (list of pairs or list), pending key or None, is_object]
    stack: list[list[Any]] = []
    i = _WS.match(text, 0).end()  # type: ignore[union-attr]
    while True:
        c = text[i]
        if c == "{" or c == "[":
            is_object = c == "{"
            stack.append([[], None, is_object])
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            if text[i] in "}]":
                value = make_object([]) if is_object else []
                stack.pop()
                i += 1
            elif is_object:
                key, i = scanstring(text, i + 1)
                i = _WS.match(text, i).end() + 1  # type: ignore[union-attr] # past ':'
                stack[-1][1] = key
                i = _WS.match(text, i).end()  # type: ignore[union-attr]
                continue
            else:
                continue
        elif c == '"':
            value, i = scanstring(text, i + 1)
        elif c in "tfn":
            word = {"t": "true", "f": "false", "n": "null"}[c]
            value = {"true": True, "false": False, "null": None}[word]
            i += len(word)
        else:
            match = _NUMBER.match(text, i)
            assert match is not None
            literal = match.group(0)
            value = parse_float(literal) if match.group(1) or match.group(2) else parse_int(literal)
            i = match.end()
        # Hand the finished value to its container, closing the containers it completes.
        while True:
            if not stack:
                return value
            frame = stack[-1]
            if frame[2]:
                frame[0].append((frame[1], value))
            else:
                frame[0].append(value)
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i] == ",":
                i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
                if frame[2]:
                    key, i = scanstring(text, i + 1)
                    i = _WS.match(text, i).end() + 1  # type: ignore[union-attr]
                    frame[1] = key
                    i = _WS.match(text, i).end()  # type: ignore[union-attr]
                break
            # '}' or ']': the container is complete.
            i += 1
            stack.pop()
            value = make_object(frame[0]) if frame[2] else frame[0]
