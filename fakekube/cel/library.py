"""The Kubernetes CEL library functions CRD rules use, and the cel-go extensions of the base environment
cel-cpp lacks (``sets``; lists version 3 but ``first``, ``last`` and ``sortBy``), declared for cel-expr-python.

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
from typing import Any

from cel_expr_python import cel

from fakekube import goregexp

T = cel.Type

# Durations and timestamps are left out (but for isSorted, which returns a bool): cel-expr-python cannot
# return them from a ``dyn`` function.
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
    compiled = goregexp.go_pattern(pattern)
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


def _contains_all(a: list[Any], b: list[Any]) -> bool:
    return all(_includes(a, x) for x in b)


def _distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not any(_equal(v, seen) for seen in out):
            out.append(v)
    return out


def _flatten(values: list[Any], depth: int = 1) -> list[Any]:
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for v in values:
        if isinstance(v, list) and depth > 0:
            out.extend(_flatten(v, depth - 1))
        else:
            out.append(v)
    return out


def _slice(values: list[Any], start: int, end: int) -> list[Any]:
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(values):
        raise CelError(f"cannot slice({start}, {end}), list is length {len(values)}")
    return values[start:end]


def _sort(values: list[Any]) -> list[Any]:
    try:
        return sorted(values)
    except TypeError:
        raise CelError("list elements must have the same type") from None


def _sort_by_keys(values: list[Any], keys: list[Any]) -> list[Any]:
    # cel-go ext/lists.go sortListByAssociatedKeys: the elements in the order of their keys
    if len(values) != len(keys):
        raise CelError("@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
                       f"but got {len(values)} and {len(keys)} elements respectively")
    if not values:
        return values
    if isinstance(keys[0], (list, dict)) or keys[0] is None:
        raise CelError("list elements must be comparable")
    if any(type(k) is not type(keys[0]) for k in keys):
        raise CelError("list elements must have the same type")
    return [values[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]


# cel-go's names of the comparable types, in its overload ids (list_<type>_sortByAssociatedKeys)
_TYPE_NAMES = {"INT": "int", "UINT": "uint", "DOUBLE": "double", "BOOL": "bool", "STRING": "string",
               "BYTES": "bytes", "DURATION": "google.protobuf.Duration", "TIMESTAMP": "google.protobuf.Timestamp"}


def _sort_by_decl() -> Any:
    """``@sortByAssociatedKeys``, which fakekube.cel.macros' expansion of ``sortBy`` calls."""
    overloads = []
    for i, key in enumerate((*_COMPARABLE, T.DURATION, T.TIMESTAMP)):
        overload_id = f"list_{_TYPE_NAMES[key.name()]}_sortByAssociatedKeys"
        params = [T.List(T.DYN), T.List(key)]
        if i == 0:
            overloads.append(cel.Overload(overload_id, T.List(T.DYN), params, is_member=True, impl=_sort_by_keys))
        else:
            overloads.append(cel.Overload(overload_id, T.List(T.DYN), params, is_member=True))
    return cel.FunctionDecl("__sortByAssociatedKeys", overloads)


def _merge_maps(maps: list[Any]) -> dict[Any, Any]:
    # cel-go's cel.@mapInsert, one map after the other: a key already there is an error
    out: dict[Any, Any] = {}
    for m in maps:
        if not isinstance(m, dict):
            raise CelError("no such overload")
        for k, v in m.items():
            if any(_equal(k, seen) for seen in out):
                raise CelError(f"insert failed: key {_go_value(k)} already exists")
            out[k] = v
    return out


def _go_value(v: Any) -> str:
    # %v of a CEL value in cel-go's errors
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _two_var_decls() -> list[Any]:
    """What fakekube.cel.macros' expansion of the two-variable comprehensions calls: the keys of a list (its
    indexes) or of a map, and the maps ``transformMap`` and ``transformMapEntry`` build."""
    return [
        cel.FunctionDecl("__keys", [
            cel.Overload("list_keys", T.List(T.INT), [T.List(T.DYN)], impl=lambda values: list(range(len(values)))),
            cel.Overload("map_keys", T.List(T.DYN), [T.Map(T.DYN, T.DYN)], impl=lambda m: list(m))]),
        cel.FunctionDecl("__merge_maps", [cel.Overload("merge_maps", T.Map(T.DYN, T.DYN),
                                                       [T.List(T.Map(T.DYN, T.DYN))], impl=_merge_maps)]),
    ]


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
        _list_function("isSorted", (*_COMPARABLE, T.DURATION, T.TIMESTAMP), T.BOOL, _is_sorted),
        _list_function("sum", _SUMMABLE, T.DYN, _sum),
        _list_function("max", _COMPARABLE, T.DYN, _extreme("max", max)),
        _list_function("min", _COMPARABLE, T.DYN, _extreme("min", min)),
        cel.FunctionDecl("sets.contains", [cel.Overload("list_sets_contains_list", T.BOOL,
                                                        [T.List(T.DYN), T.List(T.DYN)], impl=_contains_all)]),
        cel.FunctionDecl("sets.equivalent", [cel.Overload(
            "list_sets_equivalent_list", T.BOOL, [T.List(T.DYN), T.List(T.DYN)],
            impl=lambda a, b: _contains_all(a, b) and _contains_all(b, a))]),
        cel.FunctionDecl("sets.intersects", [cel.Overload(
            "list_sets_intersects_list", T.BOOL, [T.List(T.DYN), T.List(T.DYN)],
            impl=lambda a, b: any(_includes(a, x) for x in b))]),
        cel.FunctionDecl("lists.range", [cel.Overload("lists_range", T.List(T.INT), [T.INT],
                                                      impl=lambda n: list(range(n)))]),
        cel.FunctionDecl("distinct", [cel.Overload("list_distinct", T.List(T.DYN), [T.List(T.DYN)], is_member=True,
                                                   impl=_distinct)]),
        cel.FunctionDecl("flatten", [
            cel.Overload("list_flatten", T.List(T.DYN), [T.List(T.DYN)], is_member=True, impl=_flatten),
            cel.Overload("list_flatten_int", T.List(T.DYN), [T.List(T.DYN), T.INT], is_member=True,
                         impl=_flatten)]),
        cel.FunctionDecl("slice", [cel.Overload("list_slice", T.List(T.DYN), [T.List(T.DYN), T.INT, T.INT],
                                                is_member=True, impl=_slice)]),
        cel.FunctionDecl("reverse", [cel.Overload("list_reverse", T.List(T.DYN), [T.List(T.DYN)], is_member=True,
                                                  impl=lambda values: values[::-1])]),
        cel.FunctionDecl("sort", [cel.Overload("list_sort", T.List(T.DYN), [T.List(T.DYN)], is_member=True,
                                               impl=_sort)]),
        _sort_by_decl(),
        *_two_var_decls(),
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


__all__ = ["CelError", "extension", "functions"]
