"""Strategic merge patch, applied the way kube-apiserver applies it (server side).

Behaviour follows kubernetes/apimachinery ``pkg/util/strategicpatch/patch.go`` (commit ``eed236ceee2c``),
with the options the API server uses (``MergeParallelList`` and ``IgnoreUnmatchedNulls`` both on).
This module is written from a reading of that file; see ``docs/patches/strategic-merge-patch.md``.

The engine never changes the original document: a map it merges into is copied (shallowly) first, so the
result shares every subtree the patch did not reach with the original (copy-on-write along the patch's
paths). It does change the patch (directives are consumed), so callers pass a patch they own;
:func:`strategic_merge` makes that copy, and copies the result unless asked for the shared one.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.jsonvalues import encode_json, json_copy
from fakekube.patch.gofmt import go_value
from fakekube.patch.jsonutil import go_key
from fakekube.patch.schema import UNTYPED, PatchSchema
from fakekube.patch.smp_order import (
    DELETE_PREFIX,
    DIRECTIVE,
    ERR_LIST_OF_LISTS,
    ERR_PRIMITIVE_LIST,
    ERR_RETAIN_KEYS,
    ERR_SET_ORDER,
    ORDER_PREFIX,
    RETAIN_KEYS,
    SmpBadRequest,
    SmpError,
    SmpUnprocessable,
    bad_arg_type,
    go_equal,
    go_hash,
    no_merge_key,
    normalize_order,
    validate_order,
)


def strategic_merge(original: dict, patch: dict, schema: PatchSchema | None, *, patch_owned: bool = False,
                    share: bool = False) -> dict:
    """Apply ``patch`` to ``original``; neither input is modified (``patch_owned``: the caller hands over a patch
    of its own, which the engine may then change instead of a copy). Raises :class:`SmpError`.

    The result is a fresh document, unless ``share``: then it is a new top-level dict that shares, by identity,
    every subtree of ``original`` the patch left as it was (and holds the patch's own values where it brought
    them), so the caller must not change anything in it below the top level without copying it first."""
    merged = merge_map(original, patch if patch_owned else json_copy(patch), schema or UNTYPED)
    return merged if share else json_copy(merged)


# -- maps -------------------------------------------------------------------------------------------
def merge_map(original: dict | None, patch: dict, schema: PatchSchema) -> dict:
    if DIRECTIVE in patch:
        directive = patch[DIRECTIVE]
        if directive == "replace":
            del patch[DIRECTIVE]
            return patch
        if directive == "delete":
            return {}
        raise SmpError(f"unknown patch type: {go_value(directive)} in map: {go_value(patch)}")
    # Copy-on-write: this level is a new dict, whatever below it the patch does not reach is shared.
    original = {} if original is None else dict(original)
    # Every directive key starts with "$": one look at the keys, and the common patch skips the rest.
    directives = False
    for key in patch:
        if key.startswith("$"):
            directives = True
            break
    if directives:
        if RETAIN_KEYS in patch:
            _apply_retain_keys(original, patch)
        if any(k.startswith(ORDER_PREFIX) for k in patch):
            _merge_ordered_lists(original, patch, schema)

    for key, patch_value in list(patch.items()):
        is_delete_list = False
        if directives and key.startswith(DELETE_PREFIX):
            head, sep, rest = key.partition("/")
            if not sep or head != DELETE_PREFIX:
                raise SmpBadRequest(ERR_PRIMITIVE_LIST)
            key, is_delete_list = rest, True

        if patch_value is None:
            # IgnoreUnmatchedNulls: a null deletes the key and is never stored.
            original.pop(key, None)
            continue
        if key not in original:
            if not is_delete_list:
                _store_new_value(original, key, patch_value)
            continue
        current = original[key]
        if not _same_go_type(current, patch_value):
            if not is_delete_list:
                _store_new_value(original, key, patch_value)
            continue
        if isinstance(current, dict):
            sub = _lookup(schema, key)
            if sub.smp_strategy == "replace":
                original[key] = patch_value
            else:
                original[key] = merge_map(current, patch_value, sub)
        elif isinstance(current, list):
            sub = _lookup(schema, key)
            original[key] = _merge_list_field(current, patch_value, sub, is_delete_list)
        else:
            original[key] = patch_value
    return original


def _store_new_value(original: dict, key: str, value: Any) -> None:
    # A value with nothing to merge against: nulls are dropped and directives stripped. Its JSON text tells in
    # C when there is neither (no null literal, no "$patch" anywhere), and then both walks would keep it as is.
    if type(value) is dict or type(value) is list:
        text = encode_json(value)
        if text is not None and b"null" not in text and b'"$patch"' not in text:
            original[key] = value
            return
    _discard_nulls(value)
    kept, keep = _remove_directives(value)
    if keep:
        original[key] = kept
    else:
        original.pop(key, None)


def _lookup(schema: PatchSchema, key: str) -> PatchSchema:
    sub = schema.field(key)
    if sub is None:
        raise SmpError(f'unable to find api field in struct {schema.name} for the json field "{key}"')
    return sub


def _same_go_type(a: Any, b: Any) -> bool:
    return type(a) is type(b)


def _discard_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for k in [k for k, v in value.items() if v is None]:
            del value[k]
        for v in value.values():
            _discard_nulls(v)
    elif isinstance(value, list):
        for v in value:
            _discard_nulls(v)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        for k in list(value):
            new, keep = _remove_directives(value[k])
            if keep:
                value[k] = new
            else:
                del value[k]
        return value, True
    if isinstance(value, list):
        out = []
        for v in value:
            new, keep = _remove_directives(v)
            if keep:
                out.append(new)
        return out, True
    return value, True


def _apply_retain_keys(original: dict, patch: dict) -> None:
    retain = patch.pop(RETAIN_KEYS)
    if not isinstance(retain, list):
        raise SmpBadRequest(ERR_RETAIN_KEYS)
    allowed = {go_hash(v) for v in retain}  # a map[interface{}]struct{}: a map or list element panics
    for k, v in patch.items():
        if v is None or k.startswith(DELETE_PREFIX) or k.startswith(ORDER_PREFIX):
            continue
        if go_key(k) not in allowed:
            raise SmpBadRequest(ERR_RETAIN_KEYS)
    for k in [k for k in original if go_key(k) not in allowed]:
        del original[k]


# -- lists ------------------------------------------------------------------------------------------
class _Alias:
    """Go's view of the live list after ``mergeSlice`` took it: ``deleteMatchingEntries`` shifts the elements
    after a deleted one left in the same array, and ``append`` writes into that array while the shortened
    slice still has room. ``mergePatchIntoOriginal`` then orders by the live list it read before — now
    changed (``backing``: a copy of it, changed as Go's is)."""

    def __init__(self, backing: list) -> None:
        self.backing = backing
        self.size = len(backing)  # the length of Go's slice over the array
        self.live = True  # still the same array (until an append outgrows it, or a replace drops it)

    def delete(self, idx: int) -> None:
        if self.live:
            self.backing[idx:self.size - 1] = self.backing[idx + 1:self.size]
            self.size -= 1

    def append(self, value: Any) -> None:
        if self.live:
            if self.size < len(self.backing):
                self.backing[self.size] = value
                self.size += 1
            else:
                self.live = False


def _merge_list_field(current: list, patch_list: list, schema: PatchSchema, is_delete_list: bool,
                      alias: _Alias | None = None) -> list:
    if schema.smp_strategy == "merge" or is_delete_list:
        return _merge_list(current, patch_list, schema, schema.merge_key or "", is_delete_list, alias)
    return patch_list


def _element_kind(*lists: list | None) -> type:
    """Go's ``sliceElementType``: every element must have the same type, and not be a list."""
    found: type | None = None
    for lst in lists:
        for v in lst or ():
            t = type(v)
            if found is None:
                if v is None:  # reflect.TypeOf(nil).Kind(): a nil pointer dereferenced (observed: v1.37.2 panics)
                    raise errors.HandlerPanic()
                if t is list:
                    raise SmpUnprocessable(ERR_LIST_OF_LISTS)
                found = t
            elif t is not found:
                # fmt.Sprint(slices): the slices given, a nil one as [] (observed on kube-apiserver v1.37.2)
                raise SmpError("list element types are not identical: ["
                               + " ".join(go_value(x) if x is not None else "[]" for x in lists) + "]")
    if found is None:
        raise SmpError("no elements in any of the given slices")
    return found


def _go_kind_name(item: PatchSchema | None) -> str:
    """``reflect.Kind.String()`` of a list element's Go type, as far as a PatchSchema tells it."""
    if item is None:
        return "interface"
    if item.kind == "object":
        return "struct"
    if item.kind in ("map", "list"):
        return {"map": "map", "list": "slice"}[item.kind]
    return {"string": "string", "boolean": "bool", "numeric": "int64"}.get(getattr(item, "scalar", ""), item.name)


def _merge_list(original: list, patch: list, schema: PatchSchema, merge_key: str, is_delete_list: bool,
                alias: _Alias | None = None) -> list:
    if not original and not patch:
        return original
    kind = _element_kind(original, patch)
    if kind is not dict:
        if is_delete_list:
            drop = {go_key(v) for v in patch}
            return [v for v in original if go_key(v) not in drop]
        merged = _dedupe(original + patch)
        patch_keys = {go_key(v) for v in patch}
        patch_items = [v for v in merged if go_key(v) in patch_keys]
        server_only = [v for v in merged if go_key(v) not in patch_keys]
        return normalize_order(patch_items, server_only, patch, original, "", scalar=True)

    if not merge_key:
        # schema.Name() of a built-in list's element: the Go kind of its type (observed: "for string")
        raise SmpError(f"cannot merge lists without merge key for {_go_kind_name(schema.item())}")
    in_place = _merged_in_place(original, patch, merge_key)
    if in_place is not None:
        item_schema = schema.item()
        merged = list(original)
        for idx, element in zip(in_place, patch, strict=True):
            merged[idx] = merge_map(merged[idx], element, item_schema)
        return merged
    if _only_new_items(original, patch, merge_key):
        return [*patch, *original]
    original, patch = _apply_list_directives(original, patch, merge_key, alias)
    item_schema = schema.item()
    merged = list(original)
    for element in patch:
        if merge_key not in element:
            raise no_merge_key(element, merge_key)
        idx = _find_by_key(merged, merge_key, element[merge_key])
        if idx >= 0:
            merged[idx] = merge_map(merged[idx], element, item_schema)
        else:
            merged.append(element)
            if alias is not None:
                alias.append(element)
    patch_items, server_only = _partition_maps(merged, patch, merge_key)
    return normalize_order(patch_items, server_only, patch, original, merge_key, scalar=False)


def _merged_in_place(original: list, patch: list, merge_key: str) -> list[int] | None:
    """Where each patch element merges in ``original``, when the general path's ordering would leave the
    live order as it is: every live and patch element a map with its merge key and no directive, live keys
    unique, each patch element naming a live one, in the live order (the common patch of one container).
    Then the patch items, sorted by the patch's order, and the live-only items, sorted by the live order,
    interleave back into the live order. None: take the general path."""
    positions: dict[Any, int] = {}
    for i, item in enumerate(original):
        if type(item) is not dict or merge_key not in item or DIRECTIVE in item or _uncomparable(item[merge_key]):
            return None
        key = go_key(item[merge_key])
        if key in positions:
            return None
        positions[key] = i
    found: list[int] = []
    for element in patch:
        if (type(element) is not dict or merge_key not in element or DIRECTIVE in element
                or _uncomparable(element[merge_key])):
            return None
        idx = positions.get(go_key(element[merge_key]), -1)
        if idx < 0 or (found and idx <= found[-1]):
            return None
        found.append(idx)
    return found


def _only_new_items(original: list, patch: list, merge_key: str) -> bool:
    """Whether every patch element is a new item — every live and patch element a map with its merge key and
    no directive, keys unique on each side, no patch key a live one (a pod's new conditions). The general
    path then appends the patch elements as they are and its ordering puts them first: a patch item the live
    order does not know wins every interleaving step, and the live items keep the live order after them."""
    live: set[Any] = set()
    for item in original:
        if type(item) is not dict or merge_key not in item or DIRECTIVE in item or _uncomparable(item[merge_key]):
            return False
        key = go_key(item[merge_key])
        if key in live:
            return False
        live.add(key)
    seen: set[Any] = set()
    for element in patch:
        if (type(element) is not dict or merge_key not in element or DIRECTIVE in element
                or _uncomparable(element[merge_key])):
            return False
        key = go_key(element[merge_key])
        if key in live or key in seen:
            return False
        seen.add(key)
    return True


def _dedupe(values: list) -> list:
    seen: set = set()
    out = []
    for v in values:
        k = go_key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _apply_list_directives(original: list, patch: list, merge_key: str,
                           alias: _Alias | None = None) -> tuple[list, list]:
    """``$patch`` elements of a merging list: delete by key, replace the list, or reject ``merge``."""
    plain = []
    replace = False
    for element in patch:
        if not isinstance(element, dict):
            raise bad_arg_type("map[string]interface {}", element)
        if DIRECTIVE not in element:
            plain.append(element)
            continue
        directive = element[DIRECTIVE]
        if directive == "delete":
            if merge_key not in element:
                raise no_merge_key(element, merge_key)
            # deleteMatchingEntries: find the first match (Go's ==), delete it, again until none is left
            while True:
                idx = _find_by_key(original, merge_key, element[merge_key])
                if idx < 0:
                    break
                original = original[:idx] + original[idx + 1:]
                if alias is not None:
                    alias.delete(idx)
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise SmpError("merging lists cannot yet be specified in the patch")
        else:
            raise SmpError(f"unknown patch type: {go_value(directive)} in map: {go_value(element)}")
    if replace:
        if alias is not None:
            alias.live = False
        return plain, []
    return original, plain


def _check_all_maps(values: list) -> None:
    for i, v in enumerate(values):
        if not isinstance(v, dict):
            raise SmpError(f"value for key {i} is not a map")


def _uncomparable(value: Any) -> bool:
    return type(value) is dict or type(value) is list


def _find_by_key(values: list, merge_key: str, wanted: Any) -> int:
    """``findMapInSliceBasedOnKeyValue``: the first map whose merge key == ``wanted`` (Go's ==)."""
    for i, v in enumerate(values):
        if not isinstance(v, dict):
            raise SmpError(f"value for key {i} is not a map")
        if merge_key in v and go_equal(v[merge_key], wanted):
            return i
    return -1


def _partition_maps(merged: list, by: list, merge_key: str) -> tuple[list, list]:
    """``partitionMapsByPresentInList``: each merged map, in order, looked up in ``by``."""
    inside, outside = [], []
    fast = all(type(v) is dict and (merge_key not in v or not _uncomparable(v[merge_key])) for v in by)
    keys = {go_key(v[merge_key]) for v in by if merge_key in v} if fast else None
    for v in merged:
        if not isinstance(v, dict):
            raise bad_arg_type("map[string]interface {}", v)
        if merge_key not in v:
            raise no_merge_key(v, merge_key)
        value = v[merge_key]
        if keys is not None and not _uncomparable(value):
            found = go_key(value) in keys
        else:
            found = _find_by_key(by, merge_key, value) >= 0
        (inside if found else outside).append(v)
    return inside, outside


# -- ordering ---------------------------------------------------------------------------------------
def _merge_ordered_lists(original: dict, patch: dict, schema: PatchSchema) -> None:
    for key in [k for k in patch if k.startswith(ORDER_PREFIX)]:
        order = patch.pop(key)
        if not isinstance(order, list):
            raise bad_arg_type("[]interface {}", order)
        head, sep, field = key.partition("/")
        if not sep or head != ORDER_PREFIX:
            raise SmpBadRequest(ERR_SET_ORDER)
        found_original = field in original
        found_patch = field in patch
        original_list = original.get(field)
        patch_list = patch.get(field)
        if found_original and not isinstance(original_list, list):
            raise bad_arg_type("[]interface {}", original_list)
        if found_patch and not isinstance(patch_list, list):
            raise bad_arg_type("[]interface {}", patch_list)
        sub = _lookup(schema, field)
        merge_key = sub.merge_key or ""
        validate_order(patch_list or [], order, merge_key)

        if found_original and not found_patch:
            merged = original_list
        elif found_patch and not found_original:
            merged = patch_list
        elif found_original and found_patch:
            alias = _Alias(list(original_list))
            merged = _merge_list_field(list(original_list), patch_list, sub, False, alias)
            original_list = alias.backing
        else:
            continue

        scalar = not merge_key
        if scalar:
            # partitionPrimitivesByPresentInList: a map[interface{}]bool of the order's elements
            in_order = {go_hash(v) for v in order}
            patch_items, server_only = [], []
            for v in merged:
                (patch_items if go_hash(v) in in_order else server_only).append(v)
        else:
            patch_items, server_only = _partition_maps(merged, order, merge_key)
        _element_kind(original_list if found_original else None, patch_list if found_patch else None)
        original[field] = normalize_order(
            patch_items, server_only, order, original_list if found_original else [], merge_key, scalar=scalar
        )
        patch.pop(field, None)
