"""The actual cost of evaluating a checked CEL expression, as cel-go's runtime cost tracker counts it.

cel-cpp counts no cost, so this walks the checked expression (fakekube.cel.checked) the way cel-go's evaluation
plan runs it and charges what github.com/google/cel-go ``interpreter/runtimecost.go`` (``CostObserver``, v0.29.2)
charges each step of that plan. The plan is what ``interpreter/planner.go`` builds, after the decorators
Kubernetes' programs get (``cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost)``, k8s.io/apiserver
``pkg/cel/environment/base.go``):

- a constant costs 0, and so do what ``OptOptimize`` folds into constants (``interpreter/decorators.go``
  ``decOptimize``): list and map literals of constants, conversions (``int``, ``string``, ``duration``...) of a
  constant, and ``x in [constants]``, which becomes a set lookup costing only ``x``;
- an identifier, a field selection or an index is one *attribute*: its variable or operand, then one
  *qualifier* per ``.field`` or ``[index]``. Each qualifier costs 1 (plus what computing a computed index costs),
  and the attribute 1 once (``self.spec.x`` costs 3); an attribute on a computed operand (``f(x).y``) adds the
  operand's cost. ``has(a.b)`` costs its qualifiers only (``PresenceTestHasCost(false)``);
- ``c ? t : f`` costs ``c`` and the branch taken; a branch that is an attribute costs its qualifiers only;
- ``&&`` and ``||`` cost their operands, left to right, stopping at the first false (true); ``or`` and ``orValue``
  of optionals stop likewise (``cel/library.go`` ``decorateOptionalOr``);
- a comprehension costs its range, its accumulator's initial value when first read, then per element its loop
  condition and step, stopping when the condition is a bool other than true (``all`` at the first false,
  ``exists`` at the first true), and its result; each read of a variable costs 1;
- a list literal 10, a map literal 30 (``common/cost.go``), plus their members;
- any other call its arguments plus what fakekube.cel.callcost charges.

The tracker stops as cel-go's does: as soon as the cost passes the limit (``CostTrackerLimit``, Kubernetes'
``PerCallLimit``), with the cost at that point. Values are computed as the cost needs them (conditions, sizes,
elements); fakekube.cel.celvalues has cel-cpp compute each function call.
"""

from __future__ import annotations

import itertools
from typing import Any

from fakekube.cel import callcost
from fakekube.cel import celvalues as cv
from fakekube.cel.celvalues import Err, Opt
from fakekube.cel.checked import Checked, Expr, _Uint

PER_CALL_LIMIT = 1_000_000  # celconfig.PerCallLimit
MAX_COST = 2**64 - 1
_CONVERSIONS = frozenset({"bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type",
                          "uint"})
_QUALIFYING = ("_[_]", "_[?_]", "_?._")
_ATTRIBUTE_CALLS = _QUALIFYING + ("_?_:_",)
_SPECIAL_CALLS = frozenset({"_&&_", "_||_", "or", "orValue", "@in", *_ATTRIBUTE_CALLS})
_UNSET = object()
_MISSING = object()
_NONES = itertools.repeat(None)
_RESULT_COSTED = frozenset({"join", "slice", "reverse", "lists.range"})  # fakekube.cel.callcost reads their result


class Cancelled(Exception):
    """The cost passed the limit: ``operation cancelled: actual cost limit exceeded``."""


class _Lazy:
    def __init__(self, init: Expr) -> None:
        self.init = init


class _Tracker:
    def __init__(self, checked: Checked, limit: int | None) -> None:
        self.checked = checked
        self.limit = limit
        self.cost = 0
        self.scopes: list[dict[str, Any]] = []
        # What the plan makes constant, and how attributes are made, is the same on every evaluation: kept with
        # the checked expression (fakekube.cel.checked caches those).
        plan = checked.__dict__.setdefault("_runtime_plan", ({}, {}))
        self.consts: dict[int, Any] = plan[0]
        self.chains: dict[int, tuple[Expr, list[Expr]]] = plan[1]
        self.root: Expr | None = None

    def charge(self, n: int) -> None:
        self.cost += n
        if self.limit is not None and self.cost > self.limit:
            raise Cancelled

    # ----------------------------------------------------------------------------------------- constants

    def const(self, e: Expr) -> Any:
        """The value of ``e`` when the plan makes it a constant, else ``_UNSET``."""
        if e.id in self.consts:
            return self.consts[e.id]
        found: Any = _UNSET
        if e.kind == "const":
            found = cv.Uint(e.value) if isinstance(e.value, _Uint) else e.value
        elif e.kind == "ident" and self.lookup(e.name) is _UNSET:
            found = cv.TypeVal(e.name)  # a type name (cel-go plans a checked type reference as a constant)
        elif e.kind == "list" and all(self.const(a) is not _UNSET for a in e.args):
            found = [self.const(a) for a in e.args]
        elif e.kind == "map" and all(k is not None and self.const(k) is not _UNSET and self.const(v) is not _UNSET
                                     for k, v in e.entries):
            found = {self.const(k): self.const(v) for k, v in e.entries if k is not None}
        elif (e.kind == "call" and e.name in _CONVERSIONS and e.operand is None and len(e.args) == 1
              and self.const(e.args[0]) is not _UNSET):
            found = self.apply(e, [self.const(e.args[0])])
        if e.kind != "ident":  # an identifier's meaning depends on the scope
            self.consts[e.id] = found
        return found

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return _UNSET

    # ----------------------------------------------------------------------------------------- evaluation

    def eval(self, e: Expr) -> Any:
        """The value of ``e``, charging what evaluating it costs (the step observed on its own)."""
        kind = e.kind
        if kind == "ident":
            for scope in reversed(self.scopes):
                if e.name in scope:
                    value = scope[e.name]
                    if isinstance(value, _Lazy):
                        value = self.variable(e.name)
                    self.cost += 1
                    if self.limit is not None and self.cost > self.limit:
                        raise Cancelled
                    return value
            return cv.TypeVal(e.name)  # a type name: a constant
        value = self.consts.get(e.id, _MISSING)
        if value is _MISSING:
            value = self.const(e)
        if value is not _UNSET:
            return value
        if kind == "call":
            return self.call(e)
        if kind == "select":
            if e.test_only:
                return self.presence(e)
            value = self.resolve(e)
            self.charge(self.attribute_cost(e))
            return value
        if e.kind == "list":
            items = [self.eval(a) for a in e.args]
            self.charge(callcost.LIST_BASE)
            return next((i for i in items if isinstance(i, Err)), items)
        if e.kind in ("map", "struct"):
            out: dict[Any, Any] = {}
            for k, v in e.entries:
                key = self.eval(k) if k is not None else None
                out[key] = self.eval(v)
            self.charge(30 if e.kind == "map" else 40)
            return out
        if e.kind == "comprehension":
            return self.fold(e)
        return Err("unsupported expression")

    def variable(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                value = scope[name]
                if isinstance(value, _Lazy):  # an accumulator: its initial value when first read (folder)
                    value = scope[name] = self.eval(value.init)
                return value
        return Err(f"undeclared reference to '{name}'")

    def is_attribute(self, e: Expr) -> bool:
        """Whether the plan makes ``e`` an attribute (which a selection on it extends)."""
        if self.const(e) is not _UNSET:
            return False
        if e.kind == "ident" or e.kind == "select" and not e.test_only:
            return True
        return e.kind == "call" and e.name in _ATTRIBUTE_CALLS

    def flatten(self, e: Expr) -> tuple[Expr, list[Expr]]:
        """An attribute as its base (a variable, a ternary or a computed operand) and its qualifying nodes."""
        found = self.chains.get(e.id)
        if found is None:
            found = self.chains[e.id] = self._flatten(e)
        return found

    def _flatten(self, e: Expr) -> tuple[Expr, list[Expr]]:
        quals: list[Expr] = []
        while True:
            if e.kind == "select" and e.operand is not None:
                quals.append(e)
                e = e.operand
            elif e.kind == "call" and e.name in _QUALIFYING and e.args:
                quals.append(e)
                e = e.args[0]
            else:
                quals.reverse()
                return e, quals
            if not self.is_attribute(e):
                quals.reverse()
                return e, quals

    def attribute_cost(self, e: Expr) -> int:
        """What observing an attribute costs: 1, but nothing for a conditional one (a ternary, which the
        qualifiers after it extend)."""
        base, _ = self.flatten(e)
        return 0 if base.kind == "call" and base.name == "_?_:_" and self.is_attribute(base) else 1

    def resolve(self, e: Expr) -> Any:
        """The value of an attribute, charging its qualifiers (and computed operands) but not the attribute."""
        base, quals = self.flatten(e)
        return self.run_chain(base, quals)

    def run_chain(self, base: Expr, quals: list[Expr]) -> Any:
        if base.kind == "call" and base.name == "_?_:_" and self.is_attribute(base):
            cond = self.eval(base.args[0])
            if not isinstance(cond, bool):
                return cond if isinstance(cond, Err) else Err("no such overload")
            branch = base.args[1] if cond else base.args[2]
            if self.is_attribute(branch):
                inner, more = self.flatten(branch)
                return self.run_chain(inner, more + quals)
            return self.qualify(self.eval(branch), quals)
        if base.kind == "ident" and self.const(base) is _UNSET:
            return self.qualify(self.variable(base.name), quals)
        return self.qualify(self.eval(base), quals)

    def qualify(self, value: Any, quals: list[Expr]) -> Any:
        """``applyQualifiers``: an empty optional stops at once; from a present optional or an optional
        qualifier (``.?``, ``[?]``) on, a missing member ends the chain as an empty optional."""
        if isinstance(value, Err) or not quals:
            return value
        optional = isinstance(value, Opt)
        if optional:
            if not value.present:
                return value
            value = value.value
        for q in quals:
            if q.kind == "select":
                key: Any = q.name
            else:
                key = self.const(q.args[1])
                if key is _UNSET:
                    key = self.resolve(q.args[1]) if self.is_attribute(q.args[1]) else self.eval(q.args[1])
            optional = optional or q.kind == "call" and q.name != "_[_]"
            if isinstance(key, Err):
                self.charge(1)
                return key
            if q.kind == "select" and q.test_only:
                if not isinstance(value, dict):
                    self.charge(1)
                    return Err("no such overload")
                present = key in value
                if present or not optional:  # evalWatchConstQual.QualifyIfPresent: observed when present
                    self.charge(1)
                return present
            found = _lookup(value, key)
            if not optional or not isinstance(found, Err):
                self.charge(1)
            if isinstance(found, Err):
                if optional and found.message.startswith(("no such key", "index out of bounds")):
                    return cv.NONE
                return found
            value = found
        return Opt(True, value) if optional else value

    def presence(self, e: Expr) -> Any:
        base, quals = self.flatten(e)
        found = self.run_chain(base, quals)
        return found.present if isinstance(found, Opt) else found

    def fold(self, e: Expr) -> Any:
        assert e.iter_range is not None and e.accu_init is not None
        items = self.eval(e.iter_range)
        if isinstance(items, Err):
            return items
        if isinstance(items, dict):
            pairs: Any = items.items() if e.iter_var2 else zip(items, _NONES, strict=False)
        elif isinstance(items, list):
            pairs = enumerate(items) if e.iter_var2 else zip(items, _NONES, strict=False)
        else:
            return Err("no such overload")
        self.scopes.append({e.accu_var: _Lazy(e.accu_init)})
        try:
            for first, second in pairs:
                scope = self.scopes[-1]
                scope[e.name] = first
                if e.iter_var2:
                    scope[e.iter_var2] = second
                cond = self.eval(e.loop_condition) if e.loop_condition is not None else True
                if isinstance(cond, bool) and not cond:
                    break
                if e.loop_step is not None:
                    scope[e.accu_var] = self.eval(e.loop_step)
            scope = self.scopes[-1]
            scope.pop(e.name, None)
            scope.pop(e.iter_var2, None)
            return self.eval(e.result) if e.result is not None else Err("no result")
        finally:
            self.scopes.pop()

    def logical(self, e: Expr, stop: bool) -> Any:
        error: Any = None
        for term in e.args:
            value = self.eval(term)
            if value is stop:
                return stop
            if not isinstance(value, bool) and error is None:
                error = value if isinstance(value, Err) else Err("no such overload")
        return error if error is not None else not stop

    def call(self, e: Expr) -> Any:
        if e.name not in _SPECIAL_CALLS:
            return self.plain_call(e)
        if e.name == "_&&_":
            return self.logical(e, False)
        if e.name == "_||_":
            return self.logical(e, True)
        if e.name in _ATTRIBUTE_CALLS:
            value = self.resolve(e)
            self.charge(self.attribute_cost(e))
            return value
        if e.name in ("or", "orValue") and e.operand is not None and len(e.args) == 1:
            first = self.eval(e.operand)
            if not isinstance(first, Opt):
                return first if isinstance(first, Err) else Err("no such overload")
            if first.present:
                return first if e.name == "or" else first.value
            return self.eval(e.args[0])
        if e.name == "@in" and len(e.args) == 2:
            values = self.const(e.args[1])
            if values == []:
                return False  # folded to a constant: the item is not even evaluated
            if isinstance(values, list) and all(_primitive(v) for v in values):
                item = self.eval(e.args[0])  # a set lookup (maybeOptimizeSetMembership): no cost of its own
                return item if isinstance(item, Err) else self.apply(e, [item, values])
        return self.plain_call(e)

    def plain_call(self, e: Expr) -> Any:
        args = [self.eval(e.operand)] if e.operand is not None else []
        args += [self.eval(a) for a in e.args]
        # The rule's own value is cel-cpp's to give; when it is the result of a call whose cost does not depend on
        # its result, the call is not run twice.
        result = None if e is self.root and e.name not in _RESULT_COSTED else self.apply(e, args)
        self.charge(callcost.call_cost(e.name, self.checked.overloads.get(e.id, ()), e.operand is not None, args,
                                       result))
        return result

    def apply(self, e: Expr, args: list[Any]) -> Any:
        member = e.operand is not None
        result = _native(e.name, args)
        if result is not _UNSET:
            return result
        if e.name == "dyn" and len(args) == 1:
            return args[0]
        handled, result = cv.optional_call(e.name, member, args)
        if handled:
            return result
        t = self.checked.type_of(e)
        return cv.call(e.name, member, args, cv.kube_type(t.kind, t.name) if t.kind in ("message", "opaque")
                       else _disguised(t))


_INT64 = 2**63
_COMPARE = {"_<_": lambda a, b: a < b, "_<=_": lambda a, b: a <= b, "_>_": lambda a, b: a > b,
            "_>=_": lambda a, b: a >= b}


def _native(fn: str, args: list[Any]) -> Any:
    """The few operations a loop spends its time in, on values whose CEL meaning is Python's (same-typed ints,
    strings, doubles, bools, lists); else ``_UNSET``, for cel-cpp."""
    if fn == "@not_strictly_false":
        return args[0] is not False
    if len(args) == 2:
        a, b = args
        same = type(a) is type(b)
        if fn in ("_==_", "_!=_") and same and type(a) in (int, str, bool, float):
            return (a == b) is (fn == "_==_")
        if fn in _COMPARE and same and type(a) in (int, str, float):
            return _COMPARE[fn](a, b)
        if fn == "_+_" and same and type(a) in (list, str):
            return a + b
        if fn in ("_+_", "_-_") and same and type(a) is int:
            r = a + b if fn == "_+_" else a - b
            return r if -_INT64 <= r < _INT64 else _UNSET
        if fn == "_%_" and same and type(a) is int and a >= 0 and b > 0:
            return a % b
    elif len(args) == 1:
        a = args[0]
        if fn == "!_" and type(a) is bool:
            return not a
        if fn == "size" and type(a) in (str, list, dict, bytes):
            return len(a)
    return _UNSET


def _disguised(t: Any) -> Any:
    from fakekube.cel.cost import _DISGUISES

    found = _DISGUISES.get(t)
    return cv.kube_type(found.kind, found.name) if found is not None else None


def _primitive(v: Any) -> bool:
    return isinstance(v, (bool, int, float, str)) and not isinstance(v, cv.TypeVal)


def _lookup(base: Any, key: Any) -> Any:
    if isinstance(base, dict):
        if isinstance(key, (str, bool)) or key is None:
            return base[key] if key in base else Err(f"no such key: {key}")
        if isinstance(key, (int, float)):
            for k in base:
                if not isinstance(k, (bool, str)) and k == key:
                    return base[k]
            return Err(f"no such key: {key}")
        return Err("no such overload")
    if isinstance(base, list):
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if isinstance(key, int) and not isinstance(key, bool):
            return base[key] if 0 <= key < len(base) else Err(f"index out of bounds: {key}")
        return Err("no such overload")
    return Err("no such overload")


def actual_cost(checked: Checked, variables: dict[str, Any], *, root: Expr | None = None,
                limit: int | None = PER_CALL_LIMIT) -> tuple[int, bool]:
    """(the cost cel-go's tracker ends with, whether it passed ``limit`` and cancelled the evaluation) of
    ``checked`` (from ``root``, a node of it, when given) on ``variables``."""
    tracker = _Tracker(checked, limit)
    tracker.scopes.append(dict(variables))
    tracker.root = root if root is not None else checked.expr
    try:
        tracker.eval(tracker.root)
    except Cancelled:
        return tracker.cost, True
    return tracker.cost, False
