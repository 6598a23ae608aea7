"""YAML request bodies read as kube-apiserver reads them: sigs.k8s.io/yaml's ``YAMLToJSON`` on go-yaml v2.

kube-apiserver turns a YAML body into JSON before decoding it (apimachinery
``pkg/runtime/serializer/json/json.go`` ``Decode`` → sigs.k8s.io/yaml ``YAMLToJSON``, the same for
server-side apply's ``application/apply-patch+yaml``), and the JSON is then read like any JSON body. That
conversion is not PyYAML's ``safe_load``; this module follows go.yaml.in/yaml/v2 (``resolve.go``,
``decode.go``) and sigs.k8s.io/yaml v1.6.0 (``yaml.go`` ``convertToJSONableObject``):

- only the first document of a stream counts; an empty stream is ``null``;
- plain scalars resolve by YAML 1.1 rules of go-yaml v2: ``y``/``yes``/``on`` are true, ``n``/``no``/``off``
  false, ``0x1F``/``0o17``/``017``/``0b11``/``1_000`` integers, ``08`` the float 8, ``1:30`` a string; a
  timestamp (``2024-01-31``) stays the string it was written as; quoted scalars are strings;
- explicit tags: ``!!str``/``!!int``/``!!float``/``!!bool``/``!!null``/``!!timestamp`` resolve or fail
  (``yaml: cannot decode !!str `abc` as a !!int``); ``!!binary`` is base64-decoded into a string; any
  other tag (``!!set``, ``!!omap``, ``!foo``) is ignored, so a set is a map of nulls and an omap a list of
  one-key maps;
- ``<<`` merges in document order, each key overwriting the one before; keys that are not strings become
  strings (``1`` → ``"1"``, ``true`` → ``"true"``, ``1.5`` → ``"1.5"`` as a float32 is written), a null key
  or a key beyond int64 is an error, a map or list key ``yaml: invalid map key: ...``;
- the JSON writing refuses ``.nan``/``.inf`` (``json: unsupported value: NaN``), writes bytes that are not
  UTF-8 as U+FFFD, and what it writes is read back as Go reads JSON: whole floats within int64 as
  integers, integers beyond int64 as floats;
- errors are go-yaml's: ``yaml: line 4: found character that cannot start any token``, ``yaml: unknown
  anchor 'x' referenced``, ``yaml: anchor 'x' value contains itself``, ``yaml: document contains excessive
  aliasing`` (the billion-laughs guard), with the line numbering of libyaml's scanner (1-based) and
  parser (0-based) errors.

PyYAML's scanner and parser (libyaml's design, in Python) read the text; what is built from the events
follows go-yaml. Error texts are PyYAML's problems reworded as libyaml words them, for the errors clients
meet (tabs, bad indentation, unclosed quotes and brackets); rarer ones keep PyYAML's problem text.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from datetime import datetime
from typing import Any

import yaml
from yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from fakekube.gojson import INT64_MAX, INT64_MIN, go_text
from fakekube.gotext import go_float, go_quote, go_quote_bytes

_TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL, TIMESTAMP, BINARY, MERGE = (
    _TAG + name for name in ("str", "int", "float", "bool", "null", "timestamp", "binary", "merge"))
_RESOLVABLE = frozenset(("", STR, BOOL, INT, FLOAT, NULL, TIMESTAMP))
_PLAIN = ""  # the tag of an untagged plain scalar (go-yaml's implicit "")
UINT64_MAX = 2**64 - 1


class GoYAMLError(ValueError):
    """A YAML body ``YAMLToJSON`` refuses; ``str(exc)`` is its message (``yaml: ...``, ``json: ...``)."""


_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _words, _value, _tag in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True, BOOL),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False, BOOL),
    (("", "~", "null", "Null", "NULL"), None, NULL),
    ((".nan", ".NaN", ".NAN"), math.nan, FLOAT),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf, FLOAT),
    (("-.inf", "-.Inf", "-.INF"), -math.inf, FLOAT),
    (("<<",), "<<", MERGE),
):
    for _word in _words:
        _RESOLVE_MAP[_word] = (_tag, _value)

_HINTS = {c: "S" for c in "+-"} | {c: "D" for c in "0123456789"} | {c: "M" for c in "yYnNtTfFoO~"} | {".": "."}
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


def _short(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


_BASE_DIGITS = {16: frozenset("0123456789abcdefABCDEF"), 10: frozenset("0123456789"), 8: frozenset("01234567"),
                2: frozenset("01")}
_FLOAT_TEXT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _parse_go_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)`` then ``ParseUint``: base prefixes 0x, 0o, 0b and a leading 0 (octal);
    None when the text is not an integer or does not fit (a sign, or beyond uint64, or below int64)."""
    signed = text[:1] in "+-"
    negative = text[:1] == "-"
    body = text[1:] if signed else text
    lower = body[:2].lower()
    base, digits = 10, body
    if lower == "0x":
        base, digits = 16, body[2:]
    elif lower == "0o":
        base, digits = 8, body[2:]
    elif lower == "0b":
        base, digits = 2, body[2:]
    elif body.startswith("0") and len(body) > 1:
        base, digits = 8, body[1:]
    if not digits or not _BASE_DIGITS[base].issuperset(digits):
        return None
    number = -int(digits, base) if negative else int(digits, base)
    if INT64_MIN <= number <= INT64_MAX or (not signed and number <= UINT64_MAX):
        return number
    return None


def _parse_go_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for decimal text; None on a syntax error or an overflow."""
    if _FLOAT_TEXT.fullmatch(text) is None:
        return None
    value = float(text)
    return None if math.isinf(value) else value


_TS = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?)?$")


def _is_timestamp(text: str) -> bool:
    """go-yaml's ``parseTimestamp``: four digits and a dash, then one of its four layouts (a space-separated
    time has no zone; a T-separated one needs one)."""
    match = _TS.match(text)
    if match is None:
        return False
    year, month, day, sep, hour, minute, second, _fraction, zone = match.groups()
    if sep is not None and (sep == " ") == (zone is not None):
        return False
    try:
        datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    except ValueError:
        return False
    return zone is None or zone == "Z" or (int(zone[1:3]) < 24 and int(zone[4:6]) < 60)


def _resolve_untagged(text: str, tag: str) -> tuple[str, Any]:
    """go-yaml's ``resolve`` for a resolvable ``tag`` (``""`` for a plain scalar): the resolved tag and value
    (a timestamp resolves to its text, as go-yaml leaves it in an ``interface{}``)."""
    hint = _HINTS.get(text[:1], "N" if not text else None)
    if hint is not None and tag not in (STR, BINARY):
        known = _RESOLVE_MAP.get(text)
        if known is not None:
            return known
        if hint == ".":
            value = _parse_go_float(text)
            if value is not None:
                return FLOAT, value
        elif hint in ("D", "S"):
            if tag in (_PLAIN, TIMESTAMP) and _is_timestamp(text):
                return TIMESTAMP, text
            plain = text.replace("_", "")
            number = _parse_go_int(plain)
            if number is not None:
                return INT, number
            if _YAML_STYLE_FLOAT.match(plain):
                value = _parse_go_float(plain)
                if value is not None:
                    return FLOAT, value
    return STR, text


def _scalar(node: ScalarNode) -> Any:
    tag, text = node.tag, node.value
    if tag == _QUOTED:
        return text
    if tag != _PLAIN and tag not in _RESOLVABLE:
        if tag == BINARY:
            try:
                data = base64.b64decode("".join(text.split("\n")).replace("\r", ""), validate=True)
            except (binascii.Error, ValueError):
                raise GoYAMLError("yaml: !!binary value contains invalid base64 data") from None
            return _Binary(data)
        return text  # an unknown tag: the text itself
    rtag, value = _resolve_untagged(text, tag)
    if tag in (_PLAIN, rtag, STR):
        return value
    if tag == FLOAT and rtag == INT:
        return float(value)
    raise GoYAMLError(f"yaml: cannot decode {_short(rtag)} `{text}` as a {_short(tag)}")


_QUOTED = "!fakekube-quoted"  # the tag given here to a quoted (or otherwise non-plain) untagged scalar


class _Binary(str):
    """A ``!!binary`` value: Go holds its bytes as a string; JSON writes what is not UTF-8 as U+FFFD, ``%#v``
    escapes it."""

    raw: bytes

    def __new__(cls, data: bytes) -> _Binary:
        text = super().__new__(cls, go_text(data))
        text.raw = data
        return text


class _Alias(Node):
    """A reference to an anchored node (go-yaml counts the values decoded through aliases)."""

    def __init__(self, target: Node, anchor: str) -> None:
        super().__init__("", None, None, None)
        self.target = target
        self.anchor = anchor


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              yaml.resolver.BaseResolver):
    """PyYAML's reader, scanner, parser and composer; aliases kept as such, anchors redefinable (as in
    go-yaml), and untagged scalars marked plain or quoted instead of resolved by PyYAML's rules."""

    def __init__(self, stream: Any) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.resolver.BaseResolver.__init__(self)

    def scan_to_next_token(self) -> None:
        """libyaml's rule for whitespace between tokens (go-yaml ``yaml_parser_scan_to_next_token``): tabs are
        skipped too, in the flow context and where no simple key may start (after ``key:``); PyYAML skips
        only spaces."""
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " " or (self.peek() == "\t" and (self.flow_level or not self.allow_simple_key)):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if self.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                return

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _QUOTED
        return ""

    def compose_node(self, parent: Any, index: Any) -> Node:
        if self.check_event(AliasEvent):
            event = self.get_event()
            if event.anchor not in self.anchors:
                raise GoYAMLError(f"yaml: unknown anchor '{event.anchor}' referenced")
            return _Alias(self.anchors[event.anchor], event.anchor)
        event = self.peek_event()
        anchor = event.anchor
        if self.check_event(ScalarEvent):
            return self.compose_scalar_node(anchor)
        if self.check_event(SequenceStartEvent):
            return self.compose_sequence_node(anchor)
        assert self.check_event(MappingStartEvent)
        return self.compose_mapping_node(anchor)


class _Decoder:
    """go-yaml's ``decoder`` into ``interface{}``: maps as ordered (typed key, value) pairs, the alias guard."""

    def __init__(self) -> None:
        self.count = 0
        self.alias_count = 0
        self.alias_depth = 0
        self.expanding: set[int] = set()

    def value(self, node: Node) -> Any:
        self.count += 1
        if self.alias_depth > 0:
            self.alias_count += 1
        if self.alias_count > 100 and self.count > 1000 and self.alias_count / self.count > _alias_ratio(self.count):
            raise GoYAMLError("yaml: document contains excessive aliasing")
        if isinstance(node, _Alias):
            if id(node.target) in self.expanding:
                raise GoYAMLError(f"yaml: anchor '{node.anchor}' value contains itself")
            self.expanding.add(id(node.target))
            self.alias_depth += 1
            try:
                return self.value(node.target)
            finally:
                self.alias_depth -= 1
                self.expanding.discard(id(node.target))
        if isinstance(node, ScalarNode):
            return _scalar(node)
        if isinstance(node, SequenceNode):
            return [self.value(child) for child in node.value]
        assert isinstance(node, MappingNode)
        out = _GoMap()
        self.mapping(node, out)
        return out

    def mapping(self, node: MappingNode, out: _GoMap) -> None:
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.value == "<<" and key_node.tag in (_PLAIN, MERGE):
                self.merge(value_node, out)
                continue
            key = self.value(key_node)
            if isinstance(key, list | _GoMap):
                raise GoYAMLError(f"yaml: invalid map key: {go_sharp(key)}")
            out.set(key, self.value(value_node))

    def merge(self, node: Node, out: _GoMap) -> None:
        target = node.target if isinstance(node, _Alias) else node
        if isinstance(target, MappingNode):
            self.merge_one(node, out)
        elif isinstance(node, SequenceNode):
            for child in reversed(node.value):  # earlier maps take precedence: they are merged last
                item = child.target if isinstance(child, _Alias) else child
                if not isinstance(item, MappingNode):
                    raise GoYAMLError("yaml: map merge requires map or sequence of maps as the value")
                self.merge_one(child, out)
        else:
            raise GoYAMLError("yaml: map merge requires map or sequence of maps as the value")

    def merge_one(self, node: Node, out: _GoMap) -> None:
        merged = self.value(node)
        assert isinstance(merged, _GoMap)
        for key, value in merged.items:
            out.set(key, value)


def _alias_ratio(count: int) -> float:
    low, high = 400_000, 4_000_000
    if count <= low:
        return 0.99
    if count >= high:
        return 0.10
    return 0.99 - 0.89 * (count - low) / (high - low)


class _GoMap:
    """A ``map[interface{}]interface{}``: keys compare by Go type and value (1, 1.0, "1" and true differ)."""

    __slots__ = ("items", "index")

    def __init__(self) -> None:
        self.items: list[tuple[Any, Any]] = []
        self.index: dict[tuple[type, Any], int] = {}

    def set(self, key: Any, value: Any) -> None:
        slot = (type(key), key)
        at = self.index.get(slot)
        if at is None:
            self.index[slot] = len(self.items)
            self.items.append((key, value))
        else:
            self.items[at] = (key, value)


def go_sharp(value: Any, nested: bool = False) -> str:
    """Go's ``%#v`` of a value decoded into ``interface{}`` (for go-yaml's and sigs.k8s.io/yaml's errors); a nil
    inside a map or slice prints with its type."""
    if value is None:
        return "interface {}(nil)" if nested else "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _Binary):
        return go_quote_bytes(value.raw)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, int):
        return str(value) if value <= INT64_MAX else f"0x{value:x}"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_sharp(item, True) for item in value) + "}"
    assert isinstance(value, _GoMap)
    pairs = sorted(value.items, key=lambda kv: str(kv[0]))
    return ("map[interface {}]interface {}{" + ", ".join(f"{go_sharp(k, True)}:{go_sharp(v, True)}" for k, v in pairs)
            + "}")


def _key_string(key: Any, value: Any) -> str:
    """sigs.k8s.io/yaml ``convertToJSONableObject``: a map key as a JSON object key."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int) and INT64_MIN <= key <= INT64_MAX:
        return str(key)
    if isinstance(key, float):
        text = go_float(key, 32)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
    kind = "%!s(<nil>)" if key is None else "uint64"
    raise GoYAMLError(f"unsupported map key of type: {kind}, key: {go_sharp(key)}, value: {go_sharp(value)}")


def _to_json(value: Any) -> Any:
    """The go-yaml value as ``json.Marshal`` writes it and Go's JSON decoding reads it back."""
    if isinstance(value, _GoMap):
        out: dict[str, Any] = {}
        for key, item in value.items:
            out[_key_string(key, item)] = _to_json(item)
        return out
    if isinstance(value, list):
        return [_to_json(item) for item in value]
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return _NonFinite(value)
        if value.is_integer() and -(2.0**63) <= value < 2.0**63:
            return int(value)
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value > INT64_MAX:
        return float(value)  # a uint64 is written as its digits and read back as a float64
    if isinstance(value, _Binary):
        return str(value)
    return value


class _NonFinite(float):
    """A NaN or infinity on its way to ``json.Marshal``, which refuses it."""


def _first_non_finite(value: Any) -> _NonFinite | None:
    # json.Marshal writes map keys sorted, so the first refused value is the first in that order.
    if isinstance(value, _NonFinite):
        return value
    if isinstance(value, dict):
        for key in sorted(value):
            found = _first_non_finite(value[key])
            if found is not None:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _first_non_finite(item)
            if found is not None:
                return found
    return None


def yaml_to_json(data: bytes | str) -> Any:
    """``YAMLToJSON`` and the JSON read back: the value kube-apiserver decodes from a YAML body (a dict,
    list, scalar or None). Raises :class:`GoYAMLError` with Go's message."""
    loader = None
    try:
        loader = _Loader(data)  # (the reader decodes the text here: a bad byte is an error already)
        node = loader.get_node() if loader.check_node() else None
        value = None if node is None else _Decoder().value(node)
    except yaml.MarkedYAMLError as exc:
        raise GoYAMLError(libyaml_message(exc)) from None
    except yaml.reader.ReaderError as exc:
        raise GoYAMLError(_reader_message(exc)) from None
    except RecursionError:
        raise GoYAMLError("yaml: exceeded max depth") from None
    finally:
        if loader is not None:
            loader.dispose()
    result = _to_json(value)
    bad = _first_non_finite(result)
    if bad is not None:
        raise GoYAMLError(f"json: unsupported value: {go_float(bad)}")
    return result


def _reader_message(exc: yaml.reader.ReaderError) -> str:
    if exc.reason == "special characters are not allowed":
        return "yaml: control characters are not allowed"
    return "yaml: invalid leading UTF-8 octet"  # a byte the UTF-8 decoder refused


# PyYAML's problems as libyaml words them (go-yaml is a libyaml port): scanner problems and parser problems.
_SCANNER_PROBLEMS = (
    (re.compile(r"found character '.*' that cannot start any token"), "found character that cannot start any token"),
    (re.compile(r"found unknown escape character .*"), "found unknown escape character"),
    (re.compile(r"mapping values are not allowed here"), "mapping values are not allowed in this context"),
    (re.compile(r"found unexpected end of stream"), "found unexpected end of stream"),
    (re.compile(r"could not find expected ':'"), "could not find expected ':'"),
    (re.compile(r"found a tab character where an indentation space is expected"),
     "found a tab character that violates indentation"),
    (re.compile(r"expected alphabetic or numeric character, but found .*"),
     "did not find expected alphabetic or numeric character"),
    (re.compile(r"found undefined tag handle .*"), "found undefined tag handle"),
    (re.compile(r"found unexpected ':'"), "mapping values are not allowed in this context"),
    (re.compile(r"expected URI, but found .*"), "did not find expected tag URI"),
    (re.compile(r"expected escape sequence of \d+ hexadecimal numbers, but found .*"),
     "did not find expected hexdecimal number"),
    (re.compile(r"sequence entries are not allowed here"), "block sequence entries are not allowed in this context"),
)
_PARSER_PROBLEMS = (
    ("while parsing a block mapping", "expected <block end>", "did not find expected key"),
    ("while parsing a block collection", "expected <block end>", "did not find expected '-' indicator"),
    ("while parsing a flow sequence", "expected ',' or ']'", "did not find expected ',' or ']'"),
    ("while parsing a flow mapping", "expected ',' or '}'", "did not find expected ',' or '}'"),
    ("while parsing a block node", "expected the node content", "did not find expected node content"),
    ("while parsing a flow node", "expected the node content", "did not find expected node content"),
    (None, "expected '<document start>'", "did not find expected <document start>"),
)


def libyaml_message(exc: yaml.MarkedYAMLError) -> str:
    """A PyYAML scanner or parser error as go-yaml reports libyaml's: ``yaml: line N: <problem>``, N being
    the problem's line (1-based for scanner errors, 0-based for parser errors, as go-yaml prints them),
    else the context's line; no line when it is 0."""
    problem = exc.problem or ""
    scanner = isinstance(exc, yaml.scanner.ScannerError)
    if scanner:
        for pattern, words in _SCANNER_PROBLEMS:
            if pattern.fullmatch(problem):
                problem = words
                break
    else:
        for context, start, words in _PARSER_PROBLEMS:
            if (context is None or exc.context == context) and problem.startswith(start):
                problem = words
                break
    line = 0
    mark = exc.problem_mark
    problem_line = mark.line if mark is not None else 0
    at_end = mark is not None and mark.column != 0 and mark.buffer is not None and mark.pointer >= len(mark.buffer) - 1
    if at_end and (not scanner or problem == "could not find expected ':'"):
        problem_line += 1  # libyaml starts a new line at the end of a stream that does not end with one
    if problem_line != 0:
        line = problem_line + (1 if scanner else 0)
    elif exc.context_mark is not None:
        line = exc.context_mark.line
    where = f"line {line}: " if line else ""
    return f"yaml: {where}{problem or 'unknown problem parsing YAML content'}"
