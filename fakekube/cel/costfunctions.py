"""The estimated costs of the functions that have their own (fakekube.cel.cost), in cel-go's order of lookup:
the extensions' overload estimators (github.com/google/cel-go ``ext/lists.go`` version 3, ``ext/sets.go``,
v0.29.2; the strings extension is version 2 in Kubernetes' base environment, which has none), then Kubernetes'
estimator (k8s.io/apiserver ``pkg/cel/library/cost.go`` ``EstimateCallCost``, v0.37.2, by function name), then
cel-go's own (``checker/cost.go`` ``functionCost``, by overload id), else 1 plus the arguments' costs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fakekube.cel.checked import Expr, Type
from fakekube.cel.cost import (
    LIST_BASE,
    MAX,
    ONE,
    REGEX_FACTOR,
    STRING_FACTOR,
    UNKNOWN,
    ZERO,
    Range,
    _add,
    _Entry,
    _mul,
    _Node,
    fixed,
)

if TYPE_CHECKING:
    from fakekube.cel.cost import _Coster

Estimate = tuple[Range, Range | None]

# The operand kind an overload needs, to drop the candidates cel-expr-python keeps for a ``dyn`` operand that
# cel-go's checker, knowing the field's type, never had: (argument index, or -1 for the target; kind).
_NEEDS: dict[str, tuple[int, str]] = {
    "add_string": (0, "string"), "add_bytes": (0, "bytes"), "add_list": (0, "list"),
    "index_list": (0, "list"), "index_map": (0, "map"), "in_list": (1, "list"), "in_map": (1, "map"),
    "bytes_to_string": (0, "bytes"), "string_to_bytes": (0, "string"),
}
for _op in ("less", "less_equals", "greater", "greater_equals"):
    _NEEDS[f"{_op}_string"] = (0, "string")
    _NEEDS[f"{_op}_bytes"] = (0, "bytes")
_GUESSES = {  # overloads of an expression compiled unchecked (no reference map)
    "_+_": ("add_string", "add_bytes", "add_list", "add_int64"), "_[_]": ("index_list", "index_map"),
    "@in": ("in_list", "in_map"), "_==_": ("equals",), "_!=_": ("not_equals",), "_&&_": ("logical_and",),
    "_||_": ("logical_or",), "_?_:_": ("conditional",), "matches": ("matches_string",),
    "contains": ("contains_string",), "startsWith": ("starts_with_string",), "endsWith": ("ends_with_string",),
}
for _fn, _op in (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals")):
    _GUESSES[_fn] = (f"{_op}_string", f"{_op}_bytes", f"{_op}_int64")


_SORT_KEY_KINDS = {"google.protobuf.Duration": "duration", "google.protobuf.Timestamp": "timestamp"}


def overloads(c: _Coster, e: Expr, args: list[_Node]) -> tuple[str, ...]:
    ids = c.checked.overloads.get(e.id) or _GUESSES.get(e.name) or (e.name,)
    if len(ids) == 1:
        return ids
    kept = []
    for overload in ids:
        if overload.endswith("_sortByAssociatedKeys") and args:
            # cel-go knows the keys' type, which cel-expr-python leaves dyn for object members
            keys = args[0].type
            elem = keys.params[0].kind if keys.kind == "list" and keys.params else "dyn"
            key = overload.removeprefix("list_").removesuffix("_sortByAssociatedKeys")
            if elem not in ("dyn", "param", _SORT_KEY_KINDS.get(key, key)):
                continue
        need = _NEEDS.get(overload)
        if need is not None and need[0] < len(args):
            kind = args[need[0]].type.kind
            if kind not in ("dyn", "param", need[1]):
                continue
        kept.append(overload)
    return tuple(kept) or ids


def _literal_uint(n: _Node, default: int) -> int:
    # nodeAsUintValue: an int literal (negative as 0), else the default
    e = n.expr
    if e is None or e.kind != "const" or isinstance(e.value, bool) or type(e.value) is not int:
        return default
    return max(e.value, 0)


def _alloc_list(factor: float, size: Range) -> Estimate:
    return size.factor(factor).add(ONE).add(fixed(LIST_BASE)), size


def _extension(c: _Coster, overload: str, target: _Node | None, args: list[_Node]) -> Estimate | None:
    if overload in ("list_sets_contains_list", "list_sets_intersects_list", "list_sets_equivalent_list"):
        if len(args) != 2:
            return None
        factor = 2.0 if overload == "list_sets_equivalent_list" else 1.0
        return c.estimate_size(args[0]).mul(c.estimate_size(args[1])).factor(factor).add(ONE), None
    if overload == "lists_range":
        if target is not None or len(args) != 1:
            return None
        return _alloc_list(1, fixed(_literal_uint(args[0], MAX)))
    if target is None:
        return None
    if overload == "list_slice" and len(args) == 2:
        size = c.estimate_size(target)
        start, end = _literal_uint(args[0], 0), _literal_uint(args[1], size.max)
        return _alloc_list(1, fixed((end - start) % (MAX + 1)))
    if overload in ("list_flatten", "list_flatten_int") and len(args) <= 1:
        depth = _literal_uint(args[0], MAX) if args else 1
        return _alloc_list(float(depth), c.estimate_size(target))
    if overload == "list_reverse" and not args:
        return _alloc_list(1, c.estimate_size(target))
    if overload == "list_distinct" and not args:
        size = c.estimate_size(target)
        return _alloc_list(2.0, size.mul(size))
    if overload.endswith("_sortByAssociatedKeys") and len(args) == 1:
        # estimateListSortBy: the size of the keys list, squared; strings and bytes compare at a cost
        size = c.estimate_size(args[0])
        key = overload.removeprefix("list_").removesuffix("_sortByAssociatedKeys")
        return _alloc_list(2.0 + (STRING_FACTOR if key in ("string", "bytes") else 0), size.mul(size))
    if overload == "list_sort" and not args:
        size = c.estimate_size(target)
        elem = target.type.params[0].kind if target.type.params else ""
        return _alloc_list(2.0 + (STRING_FACTOR if elem in ("string", "bytes") else 0), size.mul(size))
    return None


def _kubernetes(c: _Coster, fn: str, overload: str, target: _Node | None, args: list[_Node]) -> Estimate | None:
    size = c.estimate_size
    if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes") and target is not None:
        el_cost = ONE
        elem = c.element(target)
        if elem is not None:
            if elem.type.kind in ("string", "bytes"):
                el_cost = el_cost.add(size(elem).factor(STRING_FACTOR))
            return size(target).mul(el_cost), None
        if fn == "includes":
            return size(target).mul(el_cost), None
        return size(target).factor(STRING_FACTOR), None
    if fn == "url" and len(args) == 1:
        sz = size(args[0])
        return sz.factor(STRING_FACTOR), sz
    if fn in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        sz = size(target)
        return sz.factor(STRING_FACTOR), sz
    if fn == "replace" and target is not None and len(args) >= 2:
        return _replace(size(target), size(args[0]), size(args[1]))
    if fn == "split" and target is not None:
        sz = size(target)
        top = sz.max
        if len(args) > 1:
            e = args[1].expr
            if e is not None and e.kind == "const" and type(e.value) is int:
                top = e.value % (MAX + 1)
        return sz.factor(2 * STRING_FACTOR), Range(0, top)
    if fn == "join" and target is not None:
        listed = size(target)
        total = ZERO
        elem = c.element(target)
        if elem is not None:
            total = listed.mul(size(elem))
        if args:
            sep = size(args[0])
            total = total.add(sep.mul(Range(max(listed.min - 1, 0), max(listed.max - 1, 0))))
        return total.factor(STRING_FACTOR), total
    if fn in ("find", "findAll") and target is not None and args:
        sz = size(target)
        str_cost = sz.add(ONE).factor(STRING_FACTOR)
        return str_cost.mul(size(args[0]).factor(REGEX_FACTOR)), Range(0, sz.max)
    if fn in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver") and args:
        return size(args[0]).factor(STRING_FACTOR), None
    if fn == "ip":
        if overload == "cidr_ip":
            return ONE, None
        if args:
            return size(args[0]).factor(STRING_FACTOR), None
    if fn == "ip.isCanonical" and args:
        return size(args[0]).factor(2 * STRING_FACTOR), None
    if fn in ("containsIP", "containsCIDR") and args:
        ip = Range(4, 16)
        cost = ip.add(ip).factor(STRING_FACTOR)
        if fn == "containsCIDR":
            cost = cost.add(ip.factor(STRING_FACTOR)).add(ONE)
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = cost.add(size(args[0]).factor(STRING_FACTOR))
        return cost, None
    if fn == "validate" and args:
        # MaxNameFormatRegexSize (128) times RegexStringLengthCostFactor
        return size(args[0]).factor(STRING_FACTOR).factor(128 * REGEX_FACTOR), None
    if fn == "_[?_]" and target is None and len(args) == 2 and _is_optional_call(args[0]):
        # fakekube.cel.formatlib's ``[?0]`` after format.named and validate: not in upstream's expression
        return ZERO, None
    if fn in ("masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
              "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger",
              "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor",
              "patch", "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"):
        return ONE, None
    if fn == "_==_" and len(args) == 2 and args[0].type == args[1].type:
        t = args[0].type
        if t.kind == "opaque" and t.name in ("net.IP", "net.CIDR"):
            return ONE, None
        if t.kind == "message" and t.name in ("kubernetes.Quantity", "kubernetes.Semver"):
            return ONE, None
        if t.kind == "message" and t.name == "kubernetes.NamedFormat":
            return Range(1, 64).factor(STRING_FACTOR), None  # MaxFormatSize
        if t.kind == "message" and t.name == "kubernetes.URL":
            # upstream reads the right-hand side's size twice (cost.go, "lhSize := rhs.ComputedSize()")
            rh = args[1].size
            top = rh.max if rh is not None else 1
            return Range(1, top).factor(STRING_FACTOR), None
    return None


def _is_optional_call(n: _Node) -> bool:
    e = n.expr
    return e is not None and e.kind == "call" and e.name in ("format.named", "validate")


def _replace(sz: Range, old: Range, new: Range) -> Estimate:
    count_min = count_max = retained_min = retained_max = 0
    if old.min == 0:
        count_max = sz.max + 1 if sz.max < MAX else sz.max
        retained_max = sz.max
    elif new.max <= old.min:
        retained_max = sz.max
    else:
        count_max = _ceil_div(sz.max, old.min)
    if old.max == 0:
        count_min = sz.min + 1 if sz.min < MAX else sz.min
        retained_min = sz.min
    elif old.max <= new.min:
        retained_min = sz.min
    else:
        count_min = _ceil_div(sz.min, old.max)
    result = Range(count_min, count_max).mul(new).add(Range(retained_min, retained_max))
    return sz.factor(2 * STRING_FACTOR), result


def _ceil_div(x: int, y: int) -> int:
    # uint64(math.Ceil(float64(x) / float64(y))) as Go computes it on amd64, where a float of 2**64 or more
    # converts to 2**63
    value = math.ceil(float(x) / float(y))
    return 2**63 if value >= float(2**64) else int(value)


def function_cost(c: _Coster, e: Expr, overload: str, target: _Node | None, args: list[_Node],
                  arg_costs: list[Range]) -> Estimate:
    arg_sum = ZERO
    for cost in arg_costs:
        arg_sum = arg_sum.add(cost)
    found = _extension(c, overload, target, args)
    if found is None:
        found = _kubernetes(c, e.name, overload, target, args)
    if found is not None:
        return found[0].add(arg_sum), found[1]
    return _builtin(c, e, overload, target, args, arg_costs, arg_sum)


def _builtin(c: _Coster, e: Expr, overload: str, target: _Node | None, args: list[_Node],
             arg_costs: list[Range], arg_sum: Range) -> Estimate:
    size = c.size_or_unknown
    if overload == "string_format" and target is not None:
        return size(target).factor(STRING_FACTOR).add(arg_sum), None
    if overload == "string_to_bytes" and len(args) == 1:
        sz = size(args[0])
        return sz.factor(STRING_FACTOR).add(arg_sum), Range(sz.min, _mul(sz.max, 4))
    if overload == "bytes_to_string" and len(args) == 1:
        sz = size(args[0])
        return sz.factor(STRING_FACTOR).add(arg_sum), Range(sz.min // 4, sz.max)
    if overload == "strings_quote" and len(args) == 1:
        sz = size(args[0])
        return sz.factor(STRING_FACTOR).add(arg_sum), Range(_add(sz.min, 2), _add(_mul(sz.max, 2), 2))
    if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
        return size(args[0]).factor(STRING_FACTOR).add(arg_sum), None
    if overload == "in_list" and len(args) == 2:
        return size(args[1]).factor(1).add(arg_sum), None
    if overload in ("matches", "matches_string"):
        pair = None
        if overload == "matches_string" and target is not None and len(args) == 1:
            pair = (target, args[0])
        elif overload == "matches" and target is None and len(args) == 2:
            pair = (args[0], args[1])
        if pair is not None:
            str_cost = size(pair[0]).add(ONE).factor(STRING_FACTOR)
            return str_cost.mul(size(pair[1]).factor(REGEX_FACTOR)).add(arg_sum), None
    if overload == "contains_string" and target is not None and len(args) == 1:
        return size(target).factor(STRING_FACTOR).mul(size(args[0]).factor(STRING_FACTOR)).add(arg_sum), None
    if overload in ("logical_or", "logical_and"):
        lhs, rhs = arg_costs[0], arg_costs[1]
        return Range(lhs.min, lhs.add(rhs).max), None
    if overload == "conditional":
        assert e.args[1] is not None
        result = size(args[1]).union(size(args[2]))
        a, b = c.entry(e.args[1]), c.entry(e.args[2])
        if a is not None and b is not None:
            c.entries[e.id] = _Entry(a.kind, a.key.union(b.key), a.val.union(b.val))
        return arg_costs[0].add(arg_costs[1].union(arg_costs[2])), result
    if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        result = size(args[0]).add(size(args[1]))
        a, b = c.entry(e.args[0]), c.entry(e.args[1])
        if a is not None and b is not None:
            c.entries[e.id] = _Entry(a.kind, a.key.union(b.key), a.val.union(b.val))
        if overload == "add_list":
            return ONE.add(arg_sum), result
        return result.factor(STRING_FACTOR).add(arg_sum), result
    if overload in _COMPARISONS and len(args) == 2:
        lhs, rhs = size(args[0]), size(args[1])
        smallest = min(lhs.max, rhs.max)
        return Range(1 if smallest > 0 else 0, smallest).factor(STRING_FACTOR).add(arg_sum), None
    return ONE.add(arg_sum), None


_COMPARISONS = frozenset({
    "less_string", "greater_string", "less_equals_string", "greater_equals_string", "less_bytes", "greater_bytes",
    "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals",
})

__all__ = ["Type", "UNKNOWN", "function_cost", "overloads"]
