"""The strategic merge patch's directive names, its errors, and the ordering of merged lists
(``$setElementOrder``), split from :mod:`fakekube.patch.strategic`, the engine that uses them.

Behaviour follows kubernetes/apimachinery ``pkg/util/strategicpatch/patch.go`` (commit ``eed236ceee2c``):
``normalizeElementOrder``, ``sortMergeListsByNameArray``, ``validatePatchWithSetOrderList`` and the error
values; see ``docs/patches/strategic-merge-patch.md``.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.patch.gofmt import go_type, go_value

DIRECTIVE = "$patch"
RETAIN_KEYS = "$retainKeys"
DELETE_PREFIX = "$deleteFromPrimitiveList"
ORDER_PREFIX = "$setElementOrder"


class SmpError(Exception):
    """An error of the SMP library; ``code`` is the HTTP status kube-apiserver turns it into."""

    code = 500


class SmpBadRequest(SmpError):
    """Malformed patch or directive list (``interpretStrategicMergePatchError`` → 400)."""

    code = 400


class SmpUnprocessable(SmpError):
    """Lists of lists, retainKeys content mismatch (→ 422 with the generic message)."""

    code = 422


ERR_PRIMITIVE_LIST = "invalid patch format of primitive list"
ERR_RETAIN_KEYS = "invalid patch format of retainKeys"
ERR_SET_ORDER = "invalid patch format of setElementOrder list"
ERR_LIST_OF_LISTS = "lists of lists are not supported"


def bad_arg_type(expected: str, actual: Any) -> SmpError:
    # mergepatch.ErrBadArgType: "%s" of reflect.TypeOf(actual), a nil Type for nil
    actual_type = "%!s(<nil>)" if actual is None else go_type(actual)
    return SmpError(f"expected a {expected}, but received a {actual_type}")


def no_merge_key(m: dict, key: str) -> SmpError:
    return SmpError(f"map: {go_value(m)} does not contain declared merge key: {key}")


# -- Go's interface equality and map keys --------------------------------------------------------------------
# The library compares merge-key values with == and keys maps by list elements. In Go, == on two interface
# values holding maps (or slices) and a map key holding one panic: the apiserver's handler then aborts the
# reply (observed on kube-apiserver v1.37.2: the connection closes unanswered). Values of different dynamic
# types are simply unequal (int64 80 is not float64 80.0, nor "80").

_UNCOMPARABLE = {dict: "map[string]interface {}", list: "[]interface {}"}


def go_equal(a: Any, b: Any) -> bool:
    """``a == b`` on two ``interface{}`` values."""
    t = type(a)
    if t is not type(b):
        return False
    if t is dict or t is list:
        raise errors.HandlerPanic(f"runtime error: comparing uncomparable type {_UNCOMPARABLE[t]}")
    return a == b


def go_hash(value: Any) -> Any:
    """The key ``value`` is in a ``map[interface{}]...`` (a panic for a map or a slice)."""
    t = type(value)
    if t is dict or t is list:
        raise errors.HandlerPanic(f"runtime error: hash of unhashable type {_UNCOMPARABLE[t]}")
    return (t, value)


def _comparable(values: Any) -> bool:
    for v in values:
        t = type(v)
        if t is dict or t is list:
            return False
    return True


def order_value(item: Any, merge_key: str, scalar: bool) -> Any:
    """``index``'s ``getValFn``: the item itself for scalars, else its merge key's value (nil if none)."""
    if scalar:
        return item
    return item.get(merge_key) if type(item) is dict else None


def go_index(order: list, item: Any, merge_key: str, scalar: bool) -> int:
    """``index``: the first position in ``order`` whose value == the item's (Go's ==, which may panic)."""
    wanted = order_value(item, merge_key, scalar)
    for i, v in enumerate(order):
        if go_equal(wanted, order_value(v, merge_key, scalar)):
            return i
    return -1


def index_map(order: list, merge_key: str, scalar: bool) -> dict | None:
    """Each value's first position in ``order`` (keyed as Go compares), or None when some value is a map or
    a list: then only :func:`go_index`, comparing as Go does, tells (or panics)."""
    values = [order_value(v, merge_key, scalar) for v in order]
    if not _comparable(values):
        return None
    positions: dict = {}
    for i, v in enumerate(values):
        positions.setdefault((type(v), v), i)
    return positions


def _indexer(order: list, merge_key: str, scalar: bool) -> Any:
    """``index(order, item)`` for items: by the positions when every value is comparable, else by Go's loop."""
    positions = index_map(order, merge_key, scalar)

    def index(item: Any) -> int:
        value = order_value(item, merge_key, scalar)
        if positions is not None and type(value) is not dict and type(value) is not list:
            return positions.get((type(value), value), -1)
        return go_index(order, item, merge_key, scalar)

    return index


def normalize_order(patch_items: list, server_only: list, patch_order: list, server_order: list,
                     merge_key: str, *, scalar: bool) -> list:
    """Sort patch items by the patch order and server-only items by the live order, then interleave.

    Interleaving walks both lists and takes the server item first only when the live order places it
    before the patch item; when the live order says nothing (a new element), the patch item wins, which
    is why new elements land *before* live ones.
    """
    patch_items = sort_by(patch_items, patch_order, merge_key, scalar)
    server_only = sort_by(server_only, server_order, merge_key, scalar)
    index = _indexer(server_order, merge_key, scalar)
    out = []
    i = j = 0
    while i < len(server_only) or j < len(patch_items):
        if i >= len(server_only):
            out.append(patch_items[j])
            j += 1
        elif j >= len(patch_items):
            out.append(server_only[i])
            i += 1
        else:
            li = index(server_only[i])  # (mergeSortedSlice looks both up)
            ri = index(patch_items[j])
            if li >= 0 and ri >= 0 and li < ri:
                out.append(server_only[i])
                i += 1
            else:
                out.append(patch_items[j])
                j += 1
    return out


def sort_by(items: list, order: list, merge_key: str, scalar: bool) -> list:
    to_delete: list = []
    if not scalar:
        for v in list(items) + list(order):
            if not isinstance(v, dict):
                raise bad_arg_type("map[string]interface {}", v)
            if merge_key not in v:
                raise no_merge_key(v, merge_key)
        keep = [v for v in items if v.get(DIRECTIVE) != "delete"]
        to_delete = [v for v in items if v.get(DIRECTIVE) == "delete"]
        items = keep
    pos = index_map(order, merge_key, scalar)
    values = [order_value(v, merge_key, scalar) for v in items]
    if pos is None or not _comparable(values):
        # Some value is a map or a list: Go's sort, looking each item up (once) when its comparator first does.
        index = _indexer(order, merge_key, scalar)
        return go_insertion_sort(items, None, index) + to_delete
    ranks = [pos.get((type(v), v), -1) for v in values]
    if all(r >= 0 for r in ranks):
        ordered = [v for _, _, v in sorted(zip(ranks, range(len(items)), items, strict=True))]
    else:
        ordered = go_insertion_sort(items, ranks)
    return ordered + to_delete


def go_insertion_sort(items: list, ranks: list[int] | None, index: Any = None) -> list:
    """Go's ``sort.SliceStable`` (insertion sort, ``less(j, j-1)``) with apimachinery's comparator, which
    claims "less" whenever either side is missing from the order list. Only reachable for odd patches;
    reproduced for lists up to 20 long (Go's insertion-sort block size), which is every realistic case.
    Without ``ranks``, ``index(item)`` is called the first time the comparator needs an item's rank (it
    looks the left item up first, the right one only when the left one is found), as Go calls ``index``."""
    found: dict[int, int] = {}

    def rank(pair: tuple[int, Any]) -> int:
        if ranks is not None:
            return pair[0]
        key = id(pair[1])
        if key not in found:
            found[key] = index(pair[1])
        return found[key]

    pairs = list(zip(ranks if ranks is not None else [0] * len(items), items, strict=True))

    def less(a: tuple[int, Any], b: tuple[int, Any]) -> bool:
        ra = rank(a)
        if ra >= 0:
            rb = rank(b)
            if rb >= 0:
                return ra < rb
        return True

    for i in range(1, len(pairs)):
        j = i
        while j > 0 and less(pairs[j], pairs[j - 1]):
            pairs[j], pairs[j - 1] = pairs[j - 1], pairs[j]
            j -= 1
    return [v for _, v in pairs]


# -- $setElementOrder -------------------------------------------------------------------------------
def validate_order(patch_list: list, order: list, merge_key: str) -> None:
    """Every non-delete patch element must appear in ``$setElementOrder`` in the same relative order."""
    if not order or not patch_list:
        return
    if merge_key:
        for v in patch_list:
            if not isinstance(v, dict):
                raise bad_arg_type("map[string]interface {}", v)
        elements = [v for v in patch_list if v.get(DIRECTIVE) != "delete"]
    else:
        elements = patch_list
    pi = oi = 0
    while pi < len(elements) and oi < len(order):
        element = elements[pi]
        if isinstance(element, dict) and DIRECTIVE in element:
            pi += 1
            continue
        if order_equal(element, order[oi], merge_key):
            pi += 1
        oi += 1
    if pi < len(elements) and oi >= len(order):
        raise SmpError(
            f"The order in patch list:\n{go_value(patch_list)}\n doesn't match {ORDER_PREFIX} list:\n"
            f"{go_value(order)}\n"
        )


def order_equal(left: Any, right: Any, merge_key: str) -> bool:
    """``mergeKeyValueEqual``."""
    if not merge_key:
        return go_equal(left, right)
    for side in (left, right):
        if not isinstance(side, dict):
            raise bad_arg_type("map[string]interface {}", side)
    for side in (left, right):
        if merge_key not in side:
            raise no_merge_key(side, merge_key)
    return go_equal(left[merge_key], right[merge_key])
