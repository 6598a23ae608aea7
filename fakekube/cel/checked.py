"""A checked CEL expression as plain Python objects, read from cel-expr-python's ``Expression.serialize()``.

That is a ``google.protobuf.Any`` holding a ``cel.expr.CheckedExpr`` (cel-spec ``proto/cel/expr/checked.proto``
and ``syntax.proto``): the expression tree, the overloads the checker chose for each call (``reference_map``)
and each node's type (``type_map``). Only what the cost estimator reads is kept (fakekube.cel.cost). The
protobuf wire format is decoded here (a few dozen lines) rather than through the ``protobuf`` package, which
would be a dependency for this one message.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _fields(buf: bytes) -> list[tuple[int, Any]]:
    """The (field number, value) pairs of one message: ints for varints, bytes for length-delimited fields,
    floats for 64-bit fields."""
    out: list[tuple[int, Any]] = []
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        elif wire == 1:
            value, pos = struct.unpack_from("<d", buf, pos)[0], pos + 8
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, value))
    return out


@dataclass(frozen=True)
class Type:
    """A checked type: ``kind`` is one of dyn, null, bool, int, uint, double, string, bytes, any, timestamp,
    duration, list, map, message, param, type, error, opaque; ``params`` its parameters (list element, map
    key and value, opaque parameters); ``name`` a message, parameter or opaque type's name."""

    kind: str
    params: tuple[Type, ...] = ()
    name: str = ""


DYN = Type("dyn")
_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}


def _type(buf: bytes) -> Type:
    for number, value in _fields(buf):
        if number == 1:
            return DYN
        if number == 2:
            return Type("null")
        if number == 3:
            return Type(_PRIMITIVES.get(value, "dyn"))
        if number == 4:  # a wrapper: its primitive, or null
            return Type(_PRIMITIVES.get(value, "dyn"))
        if number == 5:
            return Type(_WELL_KNOWN.get(value, "dyn"))
        if number == 6:
            elem = [_type(v) for n, v in _fields(value) if n == 1]
            return Type("list", (elem[0] if elem else DYN,))
        if number == 7:
            parts = dict(_fields(value))
            return Type("map", (_type(parts[1]) if 1 in parts else DYN, _type(parts[2]) if 2 in parts else DYN))
        if number == 9:
            return Type("message", name=value.decode())
        if number == 10:
            return Type("param", name=value.decode())
        if number == 11:
            return Type("type")
        if number == 12:
            return Type("error")
        if number == 14:
            name, params = "", []
            for n, v in _fields(value):
                if n == 1:
                    name = v.decode()
                elif n == 2:
                    params.append(_type(v))
            return Type("opaque", tuple(params), name)
    return DYN


@dataclass
class Expr:
    """One node. ``kind``: const, ident, select, call, list, map, struct, comprehension."""

    id: int
    kind: str
    value: Any = None              # const: the Python value (None for null)
    name: str = ""                 # ident name, select field, call function, iteration variable
    operand: Expr | None = None    # select operand, call target
    test_only: bool = False
    args: list[Expr] = field(default_factory=list)  # call args, list elements
    entries: list[tuple[Expr | None, Expr]] = field(default_factory=list)  # map/struct (key, value)
    iter_var2: str = ""
    accu_var: str = ""
    iter_range: Expr | None = None
    accu_init: Expr | None = None
    loop_condition: Expr | None = None
    loop_step: Expr | None = None
    result: Expr | None = None


class Duration(float):
    """A duration constant (seconds)."""


class Timestamp(float):
    """A timestamp constant (seconds since the epoch)."""


def _constant(buf: bytes) -> Any:
    for number, value in _fields(buf):
        if number == 1:
            return None
        if number == 2:
            return bool(value)
        if number == 3:
            return value - (1 << 64) if value >= 1 << 63 else value
        if number == 4:
            return _Uint(value)
        if number == 5:
            return float(value)
        if number == 6:
            return value.decode("utf-8", "surrogatepass")
        if number == 7:
            return bytes(value)
        if number == 8:
            return Duration(0)
        if number == 9:
            return Timestamp(0)
    return None


class _Uint(int):
    """A uint constant, told apart from an int one."""


def _expr(buf: bytes) -> Expr:
    node = Expr(0, "const")
    for number, value in _fields(buf):
        if number == 2:
            node.id = value
        elif number == 3:
            node.kind, node.value = "const", _constant(value)
        elif number == 4:
            node.kind = "ident"
            node.name = next((v.decode() for n, v in _fields(value) if n == 1), "")
        elif number == 5:
            node.kind = "select"
            for n, v in _fields(value):
                if n == 1:
                    node.operand = _expr(v)
                elif n == 2:
                    node.name = v.decode()
                elif n == 3:
                    node.test_only = bool(v)
        elif number == 6:
            node.kind = "call"
            for n, v in _fields(value):
                if n == 1:
                    node.operand = _expr(v)
                elif n == 2:
                    node.name = v.decode()
                elif n == 3:
                    node.args.append(_expr(v))
        elif number == 7:
            node.kind = "list"
            node.args = [_expr(v) for n, v in _fields(value) if n == 1]
        elif number == 8:
            node.kind = "map"
            for n, v in _fields(value):
                if n == 1 and v:
                    node.kind = "struct"
                elif n == 2:
                    key, val = None, None
                    for en, ev in _fields(v):
                        if en == 3:
                            key = _expr(ev)
                        elif en == 4:
                            val = _expr(ev)
                    if val is not None:
                        node.entries.append((key, val))
        elif number == 9:
            node.kind = "comprehension"
            for n, v in _fields(value):
                if n == 1:
                    node.name = v.decode()
                elif n == 2:
                    node.iter_range = _expr(v)
                elif n == 3:
                    node.accu_var = v.decode()
                elif n == 4:
                    node.accu_init = _expr(v)
                elif n == 5:
                    node.loop_condition = _expr(v)
                elif n == 6:
                    node.loop_step = _expr(v)
                elif n == 7:
                    node.result = _expr(v)
                elif n == 8:
                    node.iter_var2 = v.decode()
    return node


@dataclass
class Checked:
    """A checked expression: its tree, each call's overload ids and each node's type (empty when the
    expression was compiled unchecked)."""

    expr: Expr
    overloads: dict[int, tuple[str, ...]]
    raw_types: dict[int, bytes]  # decoded when asked: the estimator reads few of them
    types: dict[int, Type] = field(default_factory=dict)

    def type_of(self, node: Expr) -> Type:
        found = self.types.get(node.id)
        if found is None:
            raw = self.raw_types.get(node.id)
            found = self.types[node.id] = _type(raw) if raw is not None else DYN
        return found


def _map_entry(buf: bytes) -> tuple[int, bytes]:
    if buf[:1] == b"\x08":  # the usual layout, key then value: read in place
        key, pos = _varint(buf, 1)
        if buf[pos:pos + 1] == b"\x12":
            size, pos = _varint(buf, pos + 1)
            return key, buf[pos:pos + size]
    parts = dict(_fields(buf))
    return parts.get(1, 0), parts.get(2, b"")


@lru_cache(maxsize=1024)
def decode(serialized: bytes) -> Checked:
    """A ``CheckedExpr`` (wrapped in an ``Any``, as ``Expression.serialize()`` returns it), or a ``ParsedExpr``
    for an expression compiled without the checker. Cached: a CRD's rules are estimated each time it is
    created or updated, and test suites create the same CRDs again and again."""
    parts = _fields(serialized)
    type_url = next((v for n, v in parts if n == 1), b"")
    body = next((v for n, v in parts if n == 2), serialized)
    if type_url.endswith(b".ParsedExpr"):  # compiled unchecked: the tree alone (field 2)
        tree = next((v for n, v in _fields(body) if n == 2), b"")
        return Checked(_expr(tree), {}, {})
    expr: Expr | None = None
    overloads: dict[int, tuple[str, ...]] = {}
    types: dict[int, bytes] = {}
    for number, value in _fields(body):
        if number == 2:
            key, ref = _map_entry(value)
            ids = tuple(v.decode() for n, v in _fields(ref) if n == 3)
            if ids:
                overloads[key] = ids
        elif number == 3:
            key, t = _map_entry(value)
            types[key] = t
        elif number == 4:
            expr = _expr(value)
    return Checked(expr if expr is not None else Expr(0, "const"), overloads, types)


def of(program: Any) -> Checked:
    """The checked form of a compiled cel-expr-python ``Expression``."""
    return decode(program.serialize())
