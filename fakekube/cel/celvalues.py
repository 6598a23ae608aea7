"""CEL values between the steps of fakekube.cel.runtimecost's interpreter, and one function call run by cel-cpp.

The cost interpreter walks a checked expression itself (for cel-go's control flow, attributes and costs) but has
cel-cpp compute each function's result: ``call`` compiles ``f(v0, v1)`` once per function, shape and argument
types, and runs it on the argument values. cel-expr-python hands values back as plain Python values, which lose a
few CEL types; those travel wrapped: ``Uint``, ``Kube`` (fakekube.cel.k8slib's stand-ins for a URL, IP, CIDR or
quantity), ``TypeVal``, ``Opt`` (optionals, which cel-expr-python cannot pass at all: their functions are here)
and ``Err`` (an evaluation error, carried on as CEL carries it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from fakekube.cel import k8slib
from fakekube.cel.env import environment

T = cel.Type


class Uint(int):
    """A CEL uint."""


@dataclass(frozen=True)
class Kube:
    """A Kubernetes library value: its stand-in and that stand-in's CEL type."""

    value: Any
    type: Any


@dataclass(frozen=True)
class TypeVal:
    """A type value (``type(x)``, ``int``): its name as an expression spells it."""

    name: str


@dataclass(frozen=True)
class Opt:
    present: bool
    value: Any = None


@dataclass(frozen=True)
class Err:
    message: str


NONE = Opt(False)
_OPERATORS = {"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_==_": "==", "_!=_": "!=", "_<_": "<",
              "_<=_": "<=", "_>_": ">", "_>=_": ">=", "@in": "in"}
_UNARY = {"!_": "!", "-_": "-"}
_TYPE_NAMES = {"INT": "int", "UINT": "uint", "DOUBLE": "double", "STRING": "string", "BOOL": "bool",
               "BYTES": "bytes", "LIST": "list", "MAP": "map", "NULL": "null_type", "TYPE": "type",
               "TIMESTAMP": "google.protobuf.Timestamp", "DURATION": "google.protobuf.Duration"}
_KUBE_TYPES = {("message", "kubernetes.URL"): k8slib.URL, ("opaque", "net.IP"): k8slib.IP,
               ("opaque", "net.CIDR"): k8slib.CIDR, ("message", "kubernetes.Quantity"): k8slib.QUANTITY}


def kube_type(kind: str, name: str) -> Any:
    """The stand-in type of a Kubernetes type cel-go names so (fakekube.cel.cost's undisguised names)."""
    return _KUBE_TYPES.get((kind, name))


def _scalar_type(value: Any) -> Any:
    if isinstance(value, datetime):
        return T.TIMESTAMP
    if isinstance(value, timedelta):
        return T.DURATION
    if isinstance(value, Uint):
        return T.UINT
    if isinstance(value, Kube):
        return value.type
    return None


def cel_type(value: Any) -> Any:
    """The type to declare a variable holding ``value`` with (dyn unless cel-expr-python needs to know)."""
    found = _scalar_type(value)
    if found is not None:
        return found
    if isinstance(value, list) and value:
        first = _scalar_type(value[0])
        if first is not None and all(_same_type(_scalar_type(v), first) for v in value):
            return T.List(first)
    return T.DYN


def _same_type(a: Any, b: Any) -> bool:
    return a is not None and b is not None and a.name() == b.name()


def plain(value: Any) -> Any:
    """The value cel-expr-python is given for a variable."""
    if isinstance(value, Kube):
        return value.value
    if isinstance(value, Uint):
        return int(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _template(fn: str, member: bool, arity: int) -> str:
    names = [f"v{i}" for i in range(arity)]
    if fn in _OPERATORS and arity == 2:
        return f"v0 {_OPERATORS[fn]} v1"
    if fn in _UNARY and arity == 1:
        return f"{_UNARY[fn]}v0"
    if member and arity:
        return f"v0.{fn}({', '.join(names[1:])})"
    return f"{fn}({', '.join(names)})"


_TYPES: dict[str, Any] = {}


@lru_cache(maxsize=2048)
def _program(text: str, signature: tuple[tuple[str, str], ...]) -> Any:
    env = environment({name: _TYPES[t] for name, t in signature})
    try:
        return env.compile(text)
    except RuntimeError:  # e.g. int < double, which cel-cpp's checker lacks and its runtime has
        return env.compile(text, disable_check=True)


def _signature(passed: list[tuple[str, Any]]) -> tuple[tuple[str, str], ...]:
    out = []
    for name, value in passed:
        t = cel_type(value)
        key = t.name()
        _TYPES.setdefault(key, t)
        out.append((name, key))
    return tuple(out)


def _text(fn: str, member: bool, args: list[Any]) -> tuple[str, list[Any]]:
    """The expression for a call and the variables it reads: type values are written out (they cannot be passed
    as data), and so is a list holding timestamps or durations among other values, one variable per element
    (cel-expr-python takes those only in a variable declared with their type)."""
    text = _template(fn, member, len(args))
    passed = []
    for i in range(len(args) - 1, -1, -1):
        arg = args[i]
        if isinstance(arg, TypeVal):
            text = text.replace(f"v{i}", arg.name)
        elif _mixed(arg):
            text = text.replace(f"v{i}", "[" + ", ".join(f"v{i}_{k}" for k in range(len(arg))) + "]")
            passed += [(f"v{i}_{k}", item) for k, item in enumerate(arg)]
        else:
            passed.append((f"v{i}", arg))
    return text, passed


def _mixed(value: Any) -> bool:
    return (isinstance(value, list) and any(_scalar_type(v) is not None for v in value)
            and cel_type(value).name() == T.DYN.name())


def call(fn: str, member: bool, args: list[Any], kube: Any = None) -> Any:
    """``fn`` (a member function when ``member``, the target first in ``args``) applied by cel-cpp; ``kube``: the
    stand-in type of its result when the checker says it is a Kubernetes type."""
    for arg in args:
        if isinstance(arg, Err):
            return arg
        if isinstance(arg, Opt):
            return Err("no such overload")
    text, passed = _text(fn, member, args)
    try:
        program = _program(text, _signature(passed))
        result = program.eval(data={name: plain(v) for name, v in passed})
    except RuntimeError as exc:
        return Err(str(exc))
    return from_cel(result, kube)


def from_cel(result: Any, kube: Any = None) -> Any:
    """A cel-expr-python result as a value here."""
    kind = result.type()
    if kind == T.ERROR:
        return Err(str(result.value()))
    if kind == T.TYPE:
        return TypeVal(_TYPE_NAMES.get(str(result.value()), str(result.value())))
    try:
        value = result.plain_value()
    except (TypeError, RuntimeError) as exc:
        return Err(str(exc))
    if kind == T.UINT:
        return Uint(value)
    if kube is not None:
        return Kube(_frozen(value), kube)
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_frozen(v) for v in value]
    return value


def not_zero(value: Any) -> bool:
    """Whether ``optional.ofNonZeroValue`` keeps ``value``."""
    if isinstance(value, bool):
        return value
    return value not in (None, 0, 0.0, "", b"") and value != [] and value != {}


def optional_call(fn: str, member: bool, args: list[Any]) -> tuple[bool, Any]:
    """(True, result) for the optional library's functions (bar ``or``/``orValue``, which short-circuit)."""
    if fn == "optional.of" and len(args) == 1 and not member:
        return True, args[0] if isinstance(args[0], Err) else Opt(True, args[0])
    if fn == "optional.none" and not args:
        return True, NONE
    if fn == "optional.ofNonZeroValue" and len(args) == 1:
        return True, args[0] if isinstance(args[0], Err) else Opt(not_zero(args[0]), args[0])
    if member and args and isinstance(args[0], Opt):
        opt = args[0]
        if fn == "hasValue":
            return True, opt.present
        if fn == "value":
            return True, opt.value if opt.present else Err("optional.none() dereference")
    return False, None
