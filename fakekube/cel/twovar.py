"""cel-go's trees of the two-variable comprehensions, put back for the cost estimator.

fakekube.cel.macros expands ``<range>.all(i, v, p)`` and its kin into ``cel.bind(__cv<n>_<macro>, <range>,
<one-variable macro over __keys(...) with v bound to each element>)``. cel-go's macros
(github.com/google/cel-go ``ext/comprehensions.go``, v0.29.2) build one comprehension with two iteration
variables over the range, and the estimated cost is that tree's: :func:`restore` rebuilds it in place of each
such binding, from the range, the variable names and the user's expressions (inside the ``cel.bind(v,
__cv<n>_<macro>[i], ...)`` the expansion wrapped them in), with the nodes' types and overloads as cel-go's
checker has them.
"""

from __future__ import annotations

import itertools
import re

from fakekube.cel.checked import Checked, Expr, Type

_BOUND = re.compile(r"^__cv\d+_(\w+)$")
_ACCU = "@result"
_ids = itertools.count(-1_000_000, -1)
_BOOL, _INT = Type("bool"), Type("int")
_LIST, _MAP = Type("list", (Type("dyn"),)), Type("map", (Type("dyn"), Type("dyn")))


class _Build:
    def __init__(self, checked: Checked) -> None:
        self.checked = checked

    def node(self, kind: str, t: Type, **fields: object) -> Expr:
        e = Expr(id=next(_ids), kind=kind, **fields)  # type: ignore[arg-type]
        self.checked.types[e.id] = t
        return e

    def call(self, name: str, overload: str, t: Type, *args: Expr) -> Expr:
        e = self.node("call", t, name=name, args=list(args))
        self.checked.overloads[e.id] = (overload,)
        return e

    def accu(self, t: Type) -> Expr:
        return self.node("ident", t, name=_ACCU)

    def const(self, value: object, t: Type) -> Expr:
        return self.node("const", t, value=value)


def _walk(e: Expr | None) -> list[Expr]:
    out: list[Expr] = []
    stack = [e]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        out.append(n)
        children: list[Expr | None] = [n.operand, *n.args]
        for k, v in n.entries:
            children += [k, v]
        children += [n.iter_range, n.accu_init, n.loop_condition, n.loop_step, n.result]
        stack.extend(reversed(children))
    return out


def _bodies(scope: Expr, bound: str) -> tuple[str, list[Expr]]:
    """The value variable's name and the user's expressions, in the order they were written."""
    name, found = "", []
    for n in _walk(scope):
        init = n.accu_init
        if (n.kind == "comprehension" and init is not None and init.kind == "call" and init.name == "_[_]"
                and init.args and init.args[0].kind == "ident" and init.args[0].name == bound):
            name = n.accu_var
            assert n.result is not None
            found.append(n.result)
    return name, found


def _rebuild(b: _Build, bind: Expr, macro: str) -> None:
    inner = bind.result
    if inner is not None and inner.kind == "call" and inner.name == "__merge_maps" and inner.args:
        inner = inner.args[0]
    if inner is None or inner.kind != "comprehension":
        return
    value_name, bodies = _bodies(inner, bind.accu_var)
    if not bodies:
        return
    if macro == "transformMap" and bodies[-1].kind == "map" and bodies[-1].entries:
        bodies[-1] = bodies[-1].entries[0][1]  # the expansion's {i: e}
    key_name = inner.name
    filt, last = (bodies[0], bodies[-1]) if len(bodies) == 2 else (None, bodies[-1])
    if macro == "all":
        init, cond = b.const(True, _BOOL), b.call("@not_strictly_false", "not_strictly_false", _BOOL, b.accu(_BOOL))
        step, result = b.call("_&&_", "logical_and", _BOOL, b.accu(_BOOL), last), b.accu(_BOOL)
    elif macro == "exists":
        init = b.const(False, _BOOL)
        cond = b.call("@not_strictly_false", "not_strictly_false", _BOOL,
                      b.call("!_", "logical_not", _BOOL, b.accu(_BOOL)))
        step, result = b.call("_||_", "logical_or", _BOOL, b.accu(_BOOL), last), b.accu(_BOOL)
    elif macro in ("existsOne", "exists_one"):
        init, cond = b.const(0, _INT), b.const(True, _BOOL)
        step = b.call("_?_:_", "conditional", _INT, last,
                      b.call("_+_", "add_int64", _INT, b.accu(_INT), b.const(1, _INT)), b.accu(_INT))
        result = b.call("_==_", "equals", _BOOL, b.accu(_INT), b.const(1, _INT))
    else:
        t = _LIST if macro == "transformList" else _MAP
        init = b.node("list", _LIST) if macro == "transformList" else b.node("map", _MAP)
        cond, result = b.const(True, _BOOL), b.accu(t)
        if macro == "transformList":
            step = b.call("_+_", "add_list", t, b.accu(t), b.node("list", _LIST, args=[last]))
        elif macro == "transformMap":
            step = b.call("cel.@mapInsert", "@mapInsert_map_key_value", t, b.accu(t),
                          b.node("ident", Type("dyn"), name=key_name), last)
        else:
            step = b.call("cel.@mapInsert", "@mapInsert_map_map", t, b.accu(t), last)
        if filt is not None:
            step = b.call("_?_:_", "conditional", t, filt, step, b.accu(t))
    bind.iter_range, bind.name, bind.iter_var2, bind.accu_var = bind.accu_init, key_name, value_name, _ACCU
    bind.accu_init, bind.loop_condition, bind.loop_step, bind.result = init, cond, step, result


def restore(checked: Checked) -> Checked:
    """``checked`` with cel-go's tree in place of each expanded two-variable comprehension (in place)."""
    for n in _walk(checked.expr):
        if n.kind != "comprehension" or not n.accu_var.startswith("__cv"):
            continue
        m = _BOUND.match(n.accu_var)
        if m is not None:
            _rebuild(_Build(checked), n, m.group(1))
    return checked


__all__ = ["restore"]
