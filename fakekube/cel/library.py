"""The Kubernetes CEL library functions CRD rules use, declared for cel-expr-python.

After k8s.io/apiserver ``pkg/cel/library/lists.go`` (``isSorted``, ``sum``, ``max``, ``min``, ``indexOf``,
``lastIndexOf``, and ``includes`` of lists version 1, in the base environment from v1.37) and
``pkg/cel/library/regex.go`` (``find``, ``findAll``), v0.37.2. Regular expressions are RE2 as in Go: a
pattern RE2 refuses is an error with Go's words (fakekube.goregexp), never a backtracking match.

cel-cpp dispatches a list function on the receiver's kind only, so each function has one implementation
(registered with its first overload) and the other overloads declare the element types it accepts for the
type checker. Their results are ``dyn``: cel-expr-python converts an implementation's result to the first
overload's type, and one function serves every element type.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from cel_expr_python import cel

from fakekube import goregexp

T = cel.Type

# Durations and timestamps are left out: cel-expr-python cannot return them from a ``dyn`` function.
_COMPARABLE = (T.INT, T.UINT, T.DOUBLE, T.BOOL, T.STRING, T.BYTES)
_SUMMABLE = (T.INT, T.UINT, T.DOUBLE)


class CelError(Exception):
    """An evaluation error a library function reports (cel-go's ``types.NewErr``)."""


def _is_sorted(values: list[Any]) -> bool:
    return all(not (values[i] > values[i + 1]) for i in range(len(values) - 1))


def _sum(values: list[Any]) -> Any:
    if not values:
        return 0
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def _extreme(name: str, pick: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    def run(values: list[Any]) -> Any:
        if not values:
            raise CelError(f"{name}(list) argument must not be empty")
        return pick(values)
    return run


def _index_of(values: list[Any], item: Any) -> int:
    for i, v in enumerate(values):
        if _equal(v, item):
            return i
    return -1


def _last_index_of(values: list[Any], item: Any) -> int:
    for i in range(len(values) - 1, -1, -1):
        if _equal(values[i], item):
            return i
    return -1


def _equal(a: Any, b: Any) -> bool:
    # CEL equality: bools are not numbers, numbers compare across int/uint/double.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _includes(target: Any, arg: Any) -> bool:
    if isinstance(target, list):
        return any(_equal(v, arg) for v in target)
    return _equal(target, arg)


def _regex(pattern: str) -> Any:
    problem = goregexp.syntax_error(pattern)
    if problem is not None:
        raise CelError(f"Illegal regex: {problem}")
    compiled = goregexp.python_pattern(pattern)
    if compiled is None:
        raise CelError(f"Illegal regex: pattern {pattern!r} is not supported by fakekube")
    return compiled


def _find(text: str, pattern: str) -> str:
    m = _regex(pattern).search(text)
    return m.group(0) if m else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    found = [m.group(0) for m in _regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


def _list_function(name: str, types: tuple[Any, ...], result: Any, impl: Callable[..., Any],
                   extra: tuple[Any, ...] = ()) -> Any:
    overloads = []
    for i, elem in enumerate(types):
        overload_id = f"list_{elem.name().lower()}_{name}"
        params = [T.List(elem), *extra]
        if i == 0:
            overloads.append(cel.Overload(overload_id, result, params, is_member=True, impl=impl))
        else:
            overloads.append(cel.Overload(overload_id, result, params, is_member=True))
    return cel.FunctionDecl(name, overloads)


def functions() -> list[Any]:
    """The declarations to pass to ``cel.NewEnv(functions=...)``."""
    return [
        _list_function("isSorted", _COMPARABLE, T.BOOL, _is_sorted),
        _list_function("sum", _SUMMABLE, T.DYN, _sum),
        _list_function("max", _COMPARABLE, T.DYN, _extreme("max", max)),
        _list_function("min", _COMPARABLE, T.DYN, _extreme("min", min)),
        cel.FunctionDecl("find", [cel.Overload("string_find_string", T.STRING, [T.STRING, T.STRING],
                                               is_member=True, impl=_find)]),
        cel.FunctionDecl("findAll", [
            cel.Overload("string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], is_member=True,
                         impl=_find_all),
            cel.Overload("string_find_all_string_int", T.List(T.STRING), [T.STRING, T.STRING, T.INT],
                         is_member=True, impl=_find_all),
        ]),
    ]


def extension() -> Any:
    """``indexOf`` and ``lastIndexOf`` of lists (declared through an extension they join the strings
    extension's overloads instead of clashing with them), and ``includes`` (which cel-expr-python dispatches
    only when it comes through an extension)."""
    return cel.CelExtension("kubernetes.lists", [
        cel.FunctionDecl("indexOf", [cel.Overload("list_a_index_of_int", T.INT, [T.List(T.DYN), T.DYN],
                                                  is_member=True, impl=_index_of)]),
        cel.FunctionDecl("lastIndexOf", [cel.Overload("list_a_last_index_of_int", T.INT, [T.List(T.DYN), T.DYN],
                                                      is_member=True, impl=_last_index_of)]),
        cel.FunctionDecl("includes", [cel.Overload("list_includes_dyn_dyn", T.BOOL, [T.List(T.DYN), T.DYN],
                                                   is_member=True, impl=_includes)]),
    ])


__all__ = ["CelError", "extension", "functions", "datetime", "timedelta"]
