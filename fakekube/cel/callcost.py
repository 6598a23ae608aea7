"""The actual cost of one function call, as cel-go's runtime cost tracker charges it.

github.com/google/cel-go ``interpreter/runtimecost.go`` ``CostTracker.costCall`` (v0.29.2, the release k8s.io/apiserver
v0.37.2 builds with) looks a call up in three places, in this order:

1. the extensions' overload trackers: the lists extension version 3 (``ext/lists.go``: ``slice``, ``flatten``,
   ``lists.range``, ``reverse``, ``distinct``, ``sort``) and the sets extension (``ext/sets.go``); the strings
   extension is version 2 in Kubernetes' base environment, which has none;
2. Kubernetes' ``CostEstimator.CallCost`` (k8s.io/apiserver ``pkg/cel/library/cost.go``), by function name;
3. cel-go's own table: string traversals at a tenth of their size (``common.StringTraversalCostFactor``), ``in`` a
   list its size, ``==``/``!=`` and string comparisons the smaller size, ``matches`` the string times a quarter of
   the pattern; everything else 1.

Sizes are ``actualSize``: a string's code points, a byte string's, list's or map's length, an optional's value's
size (cel-go's table only), anything else 1. Values here are fakekube.cel.celvalues': plain Python values,
``Uint``, ``Opt``, ``Kube`` (a URL, IP, CIDR or quantity) and ``Err``.
"""

from __future__ import annotations

import math
from typing import Any

from fakekube.cel.celvalues import Kube, Opt

STRING_FACTOR = 0.1   # common.StringTraversalCostFactor
REGEX_FACTOR = 0.25   # common.RegexStringLengthCostFactor
LIST_BASE = 10        # common.ListCreateBaseCost
_CALL = 1             # the extensions' callCost

# Kubernetes' functions whose cost is one traversal of their first argument (``traversalCost``).
_TRAVERSALS = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"})
_NOMINAL = frozenset({
    "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason", "error",
    "errored", "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger", "asApproximateFloat",
    "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch", "getScheme", "getHostname",
    "getHost", "getPort", "getEscapedPath", "getQuery"})
_STRING_PARSES = frozenset({"url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey", "cidr",
                            "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver"})
_COMPARISONS = frozenset({"_<_", "_<=_", "_>_", "_>=_"})
_SETS = {"sets.contains": 1.0, "sets.intersects": 1.0, "sets.equivalent": 2.0}
# Every function any table above or below prices; the others cost 1.
_PRICED = (_TRAVERSALS | _NOMINAL | _STRING_PARSES | _COMPARISONS | set(_SETS) | {
    "slice", "reverse", "lists.range", "flatten", "distinct", "sort", "replace", "split", "join", "find", "findAll",
    "ip", "ip.isCanonical", "containsIP", "containsCIDR", "_==_", "_!=_", "startsWith", "endsWith", "string",
    "bytes", "strings.quote", "format", "@in", "_+_", "matches", "contains", "@sortByAssociatedKeys",
    "__sortByAssociatedKeys"})


def _ceil(x: float) -> int:
    return int(math.ceil(x))


def size(value: Any, optional: bool = True) -> int:
    """``actualSize`` (cel-go's, which looks into an optional, or with ``optional=False`` Kubernetes')."""
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, (str, bytes, bytearray, list, dict)):
        return len(value)
    if isinstance(value, Opt):
        return size(value.value) if optional and value.present else 1
    return 1


def _traversal(value: Any) -> int:
    """Kubernetes' ``traversalCost``: a string's or bytes' UTF-8 length times a tenth, rounded down; a list's or
    map's the sum over its members (a map's keys and values); anything else 1."""
    if isinstance(value, str):
        return int(len(value.encode("utf-8", "surrogatepass")) * STRING_FACTOR)
    if isinstance(value, (bytes, bytearray)):
        return int(len(value) * STRING_FACTOR)
    if isinstance(value, list):
        return sum(_traversal(v) for v in value)
    if isinstance(value, dict):
        return sum(_traversal(k) + _traversal(v) for k, v in value.items())
    return 1


def _alloc(factor: float, n: int) -> int:
    return int(n * factor) + _CALL + LIST_BASE


def _self_compare(items: Any) -> int:
    if not isinstance(items, list):
        return _alloc(2.0, 0)
    factor = 2.0
    if items and isinstance(items[0], (str, bytes, bytearray)):
        factor += STRING_FACTOR
    return _alloc(factor, len(items) * len(items))


def _extension(fn: str, member: bool, args: list[Any], result: Any) -> int | None:
    if fn in ("slice", "reverse") and member or fn == "lists.range":
        return _alloc(1.0, size(result))
    if fn == "flatten" and member:
        depth = args[1] if len(args) == 2 and isinstance(args[1], int) else 1
        return _alloc(float(depth), size(args[0]))
    if fn in ("distinct", "sort") and member:
        return _self_compare(args[0])
    if fn in ("@sortByAssociatedKeys", "__sortByAssociatedKeys") and member and len(args) == 2:
        return _self_compare(args[1])  # trackListSortBy: the keys list compared with itself
    if fn in _SETS and len(args) == 2:
        return _CALL + int(size(args[0]) * size(args[1]) * _SETS[fn])
    return None


def _kubernetes(fn: str, overload: str, args: list[Any], result: Any) -> int | None:
    if fn in _NOMINAL:
        return 1
    if fn in _TRAVERSALS:
        return _traversal(args[0]) if args else 0
    if fn in _STRING_PARSES and args:
        return _ceil(size(args[0], False) * STRING_FACTOR)
    if fn in ("replace", "split") and args:
        return _ceil(size(args[0], False) * 2 * STRING_FACTOR)
    if fn == "join" and args:
        return _ceil(size(result, False) * 2 * STRING_FACTOR)
    if fn in ("find", "findAll") and len(args) >= 2:
        return _ceil((1.0 + size(args[0], False)) * STRING_FACTOR) * _ceil(size(args[1], False) * REGEX_FACTOR)
    if fn == "ip" and args:
        if isinstance(args[0], Kube) or "cidr" in overload:  # a CIDR's ip(): a field access
            return 1
        return _ceil(size(args[0], False) * STRING_FACTOR)
    if fn == "ip.isCanonical" and args:
        return _ceil(size(args[0], False) * 2 * STRING_FACTOR)
    if fn == "containsIP" and len(args) >= 2:
        cidr, other = size(args[0], False), size(args[1], False)
        cost = _ceil((cidr + cidr) * STRING_FACTOR)
        return cost + (_ceil(other * STRING_FACTOR) if isinstance(args[1], str) else 0)
    if fn == "containsCIDR" and len(args) >= 2:
        cidr, other = size(args[0], False), size(args[1], False)
        cost = _ceil((cidr + cidr) * STRING_FACTOR) + _ceil(cidr * STRING_FACTOR) + 1
        return cost + (_ceil(other * STRING_FACTOR) if isinstance(args[1], str) else 0)
    if fn == "_==_" and args and isinstance(args[0], Kube):
        return 1
    return None


def call_cost(fn: str, overloads: tuple[str, ...], member: bool, args: list[Any], result: Any) -> int:
    """What cel-go charges for calling ``fn`` (``member``: written ``x.fn(...)``; ``args``: the target first;
    ``overloads``: the checker's overload ids for the call)."""
    if fn not in _PRICED:
        return 1
    found = _extension(fn, member, args, result)
    if found is None:
        found = _kubernetes(fn, ",".join(overloads), args, result)
    if found is not None:
        return found
    if fn in ("startsWith", "endsWith") and len(args) == 2:
        return _ceil(size(args[1]) * STRING_FACTOR)
    if fn in ("string", "bytes") and len(args) == 1 and isinstance(args[0], (str, bytes, bytearray)) \
            and (fn == "string") == isinstance(args[0], (bytes, bytearray)):
        return _ceil(size(args[0]) * STRING_FACTOR)
    if fn in ("strings.quote", "format") and args and isinstance(args[0], str):
        return _ceil(size(args[0]) * STRING_FACTOR)
    if fn == "@in" and len(args) == 2 and isinstance(args[1], list):
        return size(args[1])
    if fn in ("_==_", "_!=_") and len(args) == 2 or fn in _COMPARISONS and len(args) == 2 \
            and isinstance(args[0], (str, bytes, bytearray)):
        return _ceil(min(size(args[0]), size(args[1])) * STRING_FACTOR)
    if fn == "_+_" and len(args) == 2 and isinstance(args[0], (str, bytes, bytearray)):
        return _ceil((size(args[0]) + size(args[1])) * STRING_FACTOR)
    if fn == "matches" and len(args) == 2:
        return _ceil((1.0 + size(args[0])) * STRING_FACTOR) * _ceil(size(args[1]) * REGEX_FACTOR)
    if fn == "contains" and len(args) == 2 and isinstance(args[0], str):
        return _ceil(size(args[0]) * STRING_FACTOR) * _ceil(size(args[1]) * STRING_FACTOR)
    return 1
