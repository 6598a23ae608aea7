"""The estimated cost of a checked CEL expression, as cel-go's estimator computes it.

A port of the model of github.com/google/cel-go ``checker/cost.go`` (v0.29.2, the release k8s.io/apiserver
v0.37.2 builds with), written over fakekube.cel.checked's tree: every node costs a range ``[min, max]``;
identifiers and selections 1 (a presence test 0: k8s.io/apiserver ``pkg/cel/environment/base.go`` sets
``PresenceTestHasCost(false)``), constants 0, a list literal 10, a map 30, a call 1 plus its arguments unless
its function has a cost of its own, a comprehension its range's size times the cost of one step. Sizes (of
strings, bytes, lists and maps) come from literals, from what the expression computes, or from the variables'
model (``Model``); an unknown size is ``[0, 2**64-1]``. Sums and products saturate at ``2**64-1``.

The functions with costs of their own: cel-go's (``matches``, ``contains``, ``startsWith``, ``endsWith``,
``+`` of strings, bytes and lists, comparisons of strings and bytes, ``==``, ``in`` a list, ``?:``, ``&&``,
``||``, ``string.format``, ``strings.quote``, ``bytes``/``string`` conversions), the lists extension version 3
and the sets extension (``ext/lists.go``, ``ext/sets.go``), and Kubernetes' (k8s.io/apiserver
``pkg/cel/library/cost.go``: strings, lists, regex, URL, IP, CIDR, quantity).

cel-expr-python types an object's members as ``dyn``; cel-go knows them. A node whose field path leads from a
declared variable takes its type from the model, so it is costed as cel-go costs it. The API knows nothing of
CRDs: ``Model`` answers for paths (``["self", "spec", "@items", ...]``) and is what a caller (CRD rules,
fakekube.kinds.crdcost) provides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from fakekube.cel.checked import DYN, Checked, Expr, Type, _Uint

MAX = 2**64 - 1
_TWO64 = float(2**64)
STRING_FACTOR = 0.1      # common.StringTraversalCostFactor
REGEX_FACTOR = 0.25      # common.RegexStringLengthCostFactor
LIST_BASE, MAP_BASE, STRUCT_BASE = 10, 30, 40
_ACCUMULATORS = ("__result__", "@result")


def _add(x: int, y: int) -> int:
    return min(x + y, MAX)


def _mul(x: int, y: int) -> int:
    return min(x * y, MAX)


def _factor(x: int, f: float) -> int:
    # multiplyByCostFactor: float arithmetic, rounded up, saturating
    xf = float(x)
    if xf > 0 and f > 0 and xf > MAX / f:
        return MAX
    c = math.ceil(xf * f)
    return MAX if c >= _TWO64 else int(c)


class Range(NamedTuple):
    """A cost or size range (cel-go's ``CostEstimate`` and ``SizeEstimate``); a tuple, as many are made."""

    min: int
    max: int

    def add(self, o: Range) -> Range:
        lo, hi = self[0] + o[0], self[1] + o[1]
        return Range(lo if lo < MAX else MAX, hi if hi < MAX else MAX)

    def mul(self, o: Range) -> Range:
        return Range(_mul(self.min, o.min), _mul(self.max, o.max))

    def factor(self, f: float) -> Range:
        return Range(_factor(self.min, f), _factor(self.max, f))

    def union(self, o: Range) -> Range:
        return Range(min(self.min, o.min), max(self.max, o.max))


UNKNOWN = Range(0, MAX)
ZERO = Range(0, 0)
ONE = Range(1, 1)


def fixed(n: int) -> Range:
    return Range(n, n)


class Model(Protocol):
    """What the estimator knows of the variables: a path is a variable name followed by field names and
    ``@items``, ``@keys``, ``@values`` (cel-go's ``AstNode.Path``)."""

    def size(self, path: tuple[str, ...]) -> Range | None:
        """The size of the values at ``path``, or None when unknown (cel-go's ``EstimateSize``)."""

    def type(self, path: tuple[str, ...]) -> Type | None:
        """The declared type of the values at ``path``, or None when the model does not declare it."""


class _Slice:
    """A Go ``[]string``: cel-go builds paths with ``append``, so two paths appended to one with spare capacity
    share their last element, and the later append rewrites the earlier path (its size is then looked up at the
    rewritten path when it is read afterwards). Estimates depend on it, so it is kept: capacities grow as Go's
    ``append`` grows them (1, 2, 4, 8, ...: doubled, on size classes that are powers of two for 16-byte
    strings)."""

    __slots__ = ("arr", "n")

    def __init__(self, arr: list[str], n: int) -> None:
        self.arr = arr
        self.n = n

    def items(self) -> tuple[str, ...]:
        return tuple(self.arr[:self.n])


def _append(path: _Slice | None, name: str) -> _Slice:
    if path is None or path.n == 0 and not path.arr:
        return _Slice([name], 1)
    if path.n < len(path.arr):
        path.arr[path.n] = name
        return _Slice(path.arr, path.n + 1)
    grown = path.arr[:path.n] + [""] * max(len(path.arr), 1)
    grown[path.n] = name
    return _Slice(grown, path.n + 1)


@dataclass
class _Entry:
    kind: str  # "list" or "map"
    key: Range
    val: Range


@dataclass
class _Local:
    path: _Slice | None
    true_path: tuple[str, ...] | None
    size: Range | None
    entry: _Entry | None
    type: Type | None


@dataclass
class _Node:
    """cel-go's ``AstNode``: an expression with its path, type and computed size."""

    expr: Expr | None
    path: _Slice | None
    type: Type
    size: Range | None


# Kubernetes' types appear in cel-expr-python under container types no CRD value has (fakekube.cel.k8slib).
_DISGUISES = {
    Type("map", (Type("uint"), Type("string"))): Type("message", name="kubernetes.URL"),
    Type("map", (Type("int"), Type("string"))): Type("opaque", name="net.IP"),
    Type("list", (Type("list", (Type("string"),)),)): Type("opaque", name="net.CIDR"),
    Type("map", (Type("uint"), Type("bytes"))): Type("message", name="kubernetes.Quantity"),
    Type("list", (Type("map", (Type("bool"), Type("string"))),)): Type("message", name="kubernetes.Semver"),
    Type("map", (Type("bool"), Type("string"))): Type("message", name="kubernetes.NamedFormat"),
}
_SCALARS = ("bool", "double", "duration", "int", "timestamp", "uint")
_STRINGY = ("string", "bytes")


def _is_scalar(t: Type) -> bool:
    if t.kind in _SCALARS:
        return True
    return t.kind == "opaque" and t.name == "optional_type" and bool(t.params) and _is_scalar(t.params[0])


class _Coster:
    def __init__(self, checked: Checked, model: Model, presence_cost: int = 0) -> None:
        self.checked = checked
        self.model = model
        self.presence = fixed(presence_cost)
        self.paths: dict[int, _Slice | None] = {}
        self.true_paths: dict[int, tuple[str, ...]] = {}  # as written, for types: the checker's are exact
        self.type_overrides: dict[int, Type] = {}
        self.sizes: dict[int, Range] = {}
        self.entries: dict[int, _Entry] = {}
        self.locals: dict[str, list[_Local]] = {}

    # ------------------------------------------------------------------------------------------ helpers

    def local(self, name: str) -> _Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def push(self, name: str, local: _Local) -> None:
        self.locals.setdefault(name, []).append(local)

    def pop(self, name: str) -> None:
        self.locals[name].pop()

    def path(self, e: Expr) -> _Slice | None:
        if e.kind == "ident":
            v = self.local(e.name)
            if v is not None:
                return v.path
        return self.paths.get(e.id)

    def true_path(self, e: Expr) -> tuple[str, ...] | None:
        if e.kind == "ident":
            v = self.local(e.name)
            if v is not None:
                return v.true_path
        return self.true_paths.get(e.id)

    def set_path(self, e: Expr, path: _Slice | None) -> None:
        self.paths[e.id] = path
        if path is not None:
            self.true_paths[e.id] = path.items()

    def size_at(self, path: _Slice | None) -> Range | None:
        return self.model.size(path.items()) if path is not None and path.n else None

    def type(self, e: Expr) -> Type:
        """The type cel-go's checker gives ``e``: the model's for a path from a declared variable, else
        cel-expr-python's (Kubernetes' types undisguised)."""
        if e.id in self.type_overrides:
            return self.type_overrides[e.id]
        path = self.true_path(e)
        if path:
            declared = self.model.type(path)
            if declared is not None:
                return declared
        if e.kind == "ident":
            v = self.local(e.name)
            if v is not None and v.type is not None:
                return v.type
        t = self.checked.type_of(e)
        t = _DISGUISES.get(t, t)
        if e.kind == "call" and (t.kind == "dyn" or e.name == "__sortByAssociatedKeys"):
            return self.call_type(e)
        return t

    def call_type(self, e: Expr) -> Type:
        # Results cel-expr-python leaves dyn where cel-go's declarations are typed.
        if e.name in ("sum", "max", "min") and e.operand is not None:
            t = self.type(e.operand)
            if t.kind == "list" and t.params:
                return t.params[0]
        if e.name == "-_" and len(e.args) == 1:
            return self.type(e.args[0])
        if e.name == "__sortByAssociatedKeys" and e.operand is not None:  # fakekube.cel.macros' sortBy
            return self.type(e.operand)
        if e.name == "_[_]" and len(e.args) == 2:
            t = self.type(e.args[0])
            if t.kind == "list" and t.params:
                return t.params[0]
            if t.kind == "map" and len(t.params) == 2:
                return t.params[1]
        return DYN

    def node(self, e: Expr) -> _Node:
        path = self.path(e)
        if path is not None and path.n and path.arr[0] in _ACCUMULATORS:
            path = None
        return _Node(e, path, self.type(e), self.compute_size(e))

    def compute_size(self, e: Expr) -> Range | None:
        if e.id in self.sizes:
            return self.sizes[e.id]
        literal = _literal_size(e)
        if literal is not None:
            return literal
        found = self.size_at(self.path(e))
        if found is not None:
            self.sizes[e.id] = found
            return found
        if _is_scalar(self.type(e)):
            return ONE
        if e.kind == "ident":
            v = self.local(e.name)
            if v is not None and v.size is not None:
                return v.size
        return None

    def size_or_unknown(self, n: Expr | _Node) -> Range:
        size = self.compute_size(n) if isinstance(n, Expr) else n.size
        return size if size is not None else UNKNOWN

    def estimate_size(self, n: _Node) -> Range:
        """``estimateSize`` of the extensions and of Kubernetes' estimator: the computed size, else the
        model's by path."""
        if n.size is not None:
            return n.size
        found = self.size_at(n.path)
        return found if found is not None else UNKNOWN

    def element(self, n: _Node) -> _Node | None:
        """Kubernetes' ``listElementNode``: a list's element as a node of its own."""
        if not n.type.params:
            return None
        path = _Slice([*n.path.items(), "@items"], n.path.n + 1) if n.path is not None else None
        return _Node(None, path, n.type.params[0], None)

    def entry(self, e: Expr) -> _Entry | None:
        if e.id in self.entries:
            return self.entries[e.id]
        if e.kind == "ident":
            v = self.local(e.name)
            if v is not None and v.entry is not None:
                return v.entry
        return None

    # ------------------------------------------------------------------------------------------ nodes

    def cost(self, e: Expr | None) -> Range:
        if e is None:
            return ZERO
        if e.kind == "const":
            return ZERO
        if e.kind == "ident":
            v = self.local(e.name)
            self.set_path(e, _Slice([e.name], 1) if v is None else v.path)
            return ONE
        if e.kind == "select":
            return self.select(e)
        if e.kind == "call":
            return self.call(e)
        if e.kind == "list":
            return self.create_list(e)
        if e.kind in ("map", "struct"):
            return self.create_map(e)
        if e.kind == "comprehension":
            return self.bind(e) if _is_bind(e) else self.comprehension(e)
        return ZERO

    def select(self, e: Expr) -> Range:
        assert e.operand is not None
        if e.test_only:
            return self.presence.add(self.cost(e.operand))
        total = self.cost(e.operand)
        if self.type(e.operand).kind in ("map", "message", "param"):
            total = total.add(ONE)
        self.set_path(e, _append(self.path(e.operand), e.name))
        return total

    def create_list(self, e: Expr) -> Range:
        total = ZERO
        item = Range(MAX, 0) if e.args else ZERO
        for el in e.args:
            total = total.add(self.cost(el))
            item = item.union(self.size_or_unknown(el))
        self.entries[e.id] = _Entry("list", ONE, item)
        return total.add(fixed(LIST_BASE))

    def create_map(self, e: Expr) -> Range:
        total = ZERO
        if e.kind == "struct":
            for _, value in e.entries:
                total = total.add(self.cost(value))
            return total.add(fixed(STRUCT_BASE))
        key = val = Range(MAX, 0) if e.entries else ZERO
        for k, v in e.entries:
            total = total.add(self.cost(k)).add(self.cost(v))
            if k is not None:
                key = key.union(self.size_or_unknown(k))
            val = val.union(self.size_or_unknown(v))
        self.entries[e.id] = _Entry("map", key, val)
        return total.add(fixed(MAP_BASE))

    def _local_var(self, name: str, init: Expr) -> None:
        self.push(name, _Local(self.path(init), self.true_path(init), self.compute_size(init), self.entry(init),
                               self.type(init)))

    def _iter_var(self, name: str, rng: Expr, which: str) -> None:
        entry = self.entry(rng)
        rng_type = self.type(rng)
        container = entry.kind if entry is not None else rng_type.kind
        path = self.path(rng)
        elem: Type | None = None
        if rng_type.kind == "list" and rng_type.params:
            elem = Type("int") if which == "key" else rng_type.params[0]
        elif rng_type.kind == "map" and len(rng_type.params) == 2:
            elem = rng_type.params[1] if which == "value" else rng_type.params[0]
        if which == "key":
            size, sub = (entry.key if entry else None), ("@indices" if container == "list" else "@keys")
        elif which == "value":
            size, sub = (entry.val if entry else None), ("@items" if container == "list" else "@values")
        else:
            size, sub = (entry.key if entry else None), "@keys"
            if container == "list":
                size, sub = (entry.val if entry else None), "@items"
        new = _append(path, sub)
        self.push(name, _Local(new, new.items(), size, None, elem))

    def comprehension(self, e: Expr) -> Range:
        assert e.iter_range is not None and e.accu_init is not None
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self._local_var(e.accu_var, e.accu_init)
        if e.iter_var2:
            self._iter_var(e.name, e.iter_range, "key")
            self._iter_var(e.iter_var2, e.iter_range, "value")
        else:
            self._iter_var(e.name, e.iter_range, "single")
        loop = self.cost(e.loop_condition)
        step = self.cost(e.loop_step)
        self._result_type(e)
        self.pop(e.name)
        if e.iter_var2:
            self.pop(e.iter_var2)
        total = total.add(self.cost(e.result))
        self.pop(e.accu_var)
        count = self.size_or_unknown(e.iter_range)
        total = total.add(count.mul(step.add(loop)))
        if e.accu_init.kind == "const":
            size = self.compute_size(e.accu_init)
            if size is not None:
                self.sizes[e.id] = size
        elif e.accu_init.kind in ("list", "map"):
            self.sizes[e.id] = count
            step_entry = self.entry(e.loop_step) if e.loop_step is not None else None
            if step_entry is not None:
                self.entries[e.id] = step_entry
        return total

    def _result_type(self, e: Expr) -> None:
        # cel-expr-python types the list a map() or filter() builds from dyn members as list(dyn); cel-go
        # knows the element: the type of what the step appends (while the iteration variables are in scope).
        t = self.checked.type_of(e)
        if t.kind != "dyn" and not (t.kind == "list" and t.params and t.params[0].kind == "dyn"):
            return
        step = e.loop_step
        if step is not None and step.kind == "call" and step.name == "_?_:_" and len(step.args) == 3:
            step = step.args[1]
        if (step is not None and step.kind == "call" and step.name == "_+_" and len(step.args) == 2
                and step.args[1].kind == "list" and len(step.args[1].args) == 1):
            self.type_overrides[e.id] = Type("list", (self.type(step.args[1].args[0]),))

    def bind(self, e: Expr) -> Range:
        assert e.accu_init is not None and e.result is not None
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self._local_var(e.accu_var, e.accu_init)
        total = total.add(self.cost(e.result))
        t = self.checked.type_of(e)
        if t.kind == "dyn" or t.kind == "list" and t.params and t.params[0].kind == "dyn":
            self.type_overrides[e.id] = self.type(e.result)  # cel-go's: the result's, with the binding in scope
        self.pop(e.accu_var)
        size = self.compute_size(e.result)
        if size is not None:
            self.sizes[e.id] = size
        entry = self.entry(e.result)
        if entry is not None:
            self.entries[e.id] = entry
        return total

    def call(self, e: Expr) -> Range:
        if e.name == "dyn" and len(e.args) == 1:
            arg_cost = self.cost(e.args[0])
            size = self.compute_size(e.args[0])
            if size is not None:
                self.sizes[e.id] = size
            entry = self.entry(e.args[0])
            if entry is not None:
                self.entries[e.id] = entry
            return ONE.add(arg_cost)
        arg_costs: list[Range] = []
        args: list[_Node] = []
        for a in e.args:
            arg_costs.append(self.cost(a))
            args.append(self.node(a))
        overloads = costfunctions.overloads(self, e, args)
        if not overloads:
            return ZERO
        total = ZERO
        target = None
        if e.operand is not None:
            total = self.cost(e.operand)
            target = self.node(e.operand)
        fn = Range(MAX, 0)
        result: Range | None = None
        for overload in overloads:
            cost, size = costfunctions.function_cost(self, e, overload, target, args, arg_costs)
            fn = fn.union(cost)
            if size is not None:
                result = size if result is None else result.union(size)
            if overload in ("index_list", "index_map") and args:
                entry = self.entry(e.args[0])
                result = (entry.val if entry is not None else None)
                self.set_path(e, _append(self.path(e.args[0]), "@items" if overload == "index_list" else "@values"))
            if result is None:
                result = self.compute_size(e)
        if result is not None:
            self.sizes[e.id] = result
        return total.add(fn)


def _is_bind(e: Expr) -> bool:
    r, cond = e.iter_range, e.loop_condition
    return (r is not None and r.kind == "list" and not r.args and cond is not None and cond.kind == "const"
            and cond.value is False and e.accu_var != "__result__")


def _literal_size(e: Expr) -> Range | None:
    if e.kind == "const":
        v = e.value
        if isinstance(v, str):
            return fixed(len(v))
        if isinstance(v, bytes):
            return fixed(len(v))
        if v is None or isinstance(v, (bool, int, float, _Uint)):
            return ONE
        return None
    if e.kind == "list":
        return fixed(len(e.args))
    if e.kind == "map":
        return fixed(len(e.entries))
    return None


def estimate(checked: Checked, model: Model, *, root: Expr | None = None, presence_cost: int = 0) -> Range:
    """The estimated cost range of ``checked`` (from ``root``, a node of it, when given)."""
    twovar.restore(checked)  # cel-go's trees of the two-variable comprehensions fakekube.cel.macros expands
    return _Coster(checked, model, presence_cost).cost(root if root is not None else checked.expr)


from fakekube.cel import costfunctions, twovar  # noqa: E402  (costfunctions builds on the classes above)

__all__ = ["MAX", "UNKNOWN", "Model", "Range", "estimate", "fixed"]
