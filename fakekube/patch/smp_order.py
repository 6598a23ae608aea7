"""The strategic merge patch's directive names, its errors, and the ordering of merged lists
(``$setElementOrder``), split from :mod:`fakekube.patch.strategic`, the engine that uses them.

Behaviour follows kubernetes/apimachinery ``pkg/util/strategicpatch/patch.go`` (commit ``eed236ceee2c``):
``normalizeElementOrder``, ``sortMergeListsByNameArray``, ``validatePatchWithSetOrderList`` and the error
values; see ``docs/patches/strategic-merge-patch.md``.
"""

from __future__ import annotations

from typing import Any

from fakekube.patch.gofmt import go_type, go_value
from fakekube.patch.jsonutil import go_key

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
    return SmpError(f"expected a {expected}, but received a {go_type(actual)}")


def no_merge_key(m: dict, key: str) -> SmpError:
    return SmpError(f"map: {go_value(m)} does not contain declared merge key: {key}")


def order_value(item: Any, merge_key: str, scalar: bool) -> Any:
    if scalar:
        return go_key(item)
    return go_key(item.get(merge_key)) if isinstance(item, dict) else go_key(None)


def index_map(order: list, merge_key: str, scalar: bool) -> dict:
    positions: dict = {}
    for i, v in enumerate(order):
        positions.setdefault(order_value(v, merge_key, scalar), i)
    return positions


def normalize_order(patch_items: list, server_only: list, patch_order: list, server_order: list,
                     merge_key: str, *, scalar: bool) -> list:
    """Sort patch items by the patch order and server-only items by the live order, then interleave.

    Interleaving walks both lists and takes the server item first only when the live order places it
    before the patch item; when the live order says nothing (a new element), the patch item wins, which
    is why new elements land *before* live ones.
    """
    patch_items = sort_by(patch_items, patch_order, merge_key, scalar)
    server_only = sort_by(server_only, server_order, merge_key, scalar)
    pos = index_map(server_order, merge_key, scalar)
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
            li = pos.get(order_value(server_only[i], merge_key, scalar), -1)
            ri = pos.get(order_value(patch_items[j], merge_key, scalar), -1)
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
    ranks = [pos.get(order_value(v, merge_key, scalar), -1) for v in items]
    if all(r >= 0 for r in ranks):
        ordered = [v for _, _, v in sorted(zip(ranks, range(len(items)), items, strict=True))]
    else:
        ordered = go_insertion_sort(items, ranks)
    return ordered + to_delete


def go_insertion_sort(items: list, ranks: list[int]) -> list:
    # Go's sort.SliceStable with apimachinery's comparator, which claims "less" whenever either side is
    # missing from the order list. Only reachable for odd patches; reproduced for lists up to 20 long
    # (Go's insertion-sort block size), which is every realistic case.
    pairs = list(zip(ranks, items, strict=True))

    def less(a: tuple[int, Any], b: tuple[int, Any]) -> bool:
        if a[0] >= 0 and b[0] >= 0:
            return a[0] < b[0]
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
    if not merge_key:
        return go_key(left) == go_key(right)
    for side in (left, right):
        if not isinstance(side, dict):
            raise bad_arg_type("map[string]interface {}", side)
        if merge_key not in side:
            raise no_merge_key(side, merge_key)
    return go_key(left[merge_key]) == go_key(right[merge_key])
