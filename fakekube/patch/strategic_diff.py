"""Two-way strategic merge patch creation (what ``client.StrategicMergeFrom`` sends).

Written from the behaviour of kubernetes/apimachinery ``CreateTwoWayMergePatch``: removed keys become
``null``; merging lists of maps send changed/new elements by merge key, ``{"$patch": "delete"}``
elements for removed ones and a ``$setElementOrder/<field>`` when the list has a merge strategy;
merging lists of scalars send the new values plus ``$deleteFromPrimitiveList/<field>``; every other
list is sent whole.
"""

from __future__ import annotations

from typing import Any

from fakekube.jsonvalues import json_copy
from fakekube.patch.jsonutil import go_key
from fakekube.patch.schema import UNTYPED, PatchSchema


def create_strategic_merge_patch(original: dict, modified: dict, schema: PatchSchema | None = None) -> dict:
    """Two-way patch from ``original`` to ``modified``; without a schema every list is sent whole."""
    return _diff_maps(original, modified, schema or UNTYPED)


def _diff_maps(original: dict, modified: dict, schema: PatchSchema) -> dict:
    patch: dict[str, Any] = {}
    for key in original:
        if key not in modified:
            patch[key] = None
    for key, new in modified.items():
        old = original.get(key, _MISSING)
        if old is _MISSING or type(old) is not type(new):
            patch[key] = json_copy(new)
            continue
        child = schema.field(key) or UNTYPED
        if isinstance(new, dict):
            if child.smp_strategy == "replace":
                if old != new:
                    patch[key] = json_copy(new)
                continue
            sub = _diff_maps(old, new, child)
            if sub:
                patch[key] = sub
        elif isinstance(new, list):
            _diff_list(patch, key, old, new, child)
        elif old != new:
            patch[key] = new
    return patch


_MISSING: Any = object()


def _diff_list(patch: dict, key: str, old: list, new: list, schema: PatchSchema) -> None:
    if old == new:
        return
    if schema.smp_strategy != "merge":
        patch[key] = json_copy(new)
        return
    merge_key = schema.merge_key
    if not merge_key:
        old_keys = {go_key(v) for v in old}
        new_keys = {go_key(v) for v in new}
        added = [v for v in new if go_key(v) not in old_keys]
        removed = [v for v in old if go_key(v) not in new_keys]
        if added:
            patch[key] = added
        if removed:
            patch[f"$deleteFromPrimitiveList/{key}"] = removed
        patch[f"$setElementOrder/{key}"] = json_copy(new)
        return
    old_by_key = {go_key(v.get(merge_key)): v for v in old if isinstance(v, dict)}
    new_keys = {go_key(v.get(merge_key)) for v in new if isinstance(v, dict)}
    elements: list[Any] = []
    for item in new:
        previous = old_by_key.get(go_key(item.get(merge_key)))
        if previous is None:
            elements.append(json_copy(item))
        elif previous != item:
            sub = _diff_maps(previous, item, schema.item())
            sub[merge_key] = item[merge_key]
            elements.append(sub)
    for item in old:
        if go_key(item.get(merge_key)) not in new_keys:
            elements.append({merge_key: item.get(merge_key), "$patch": "delete"})
    if elements:
        patch[key] = elements
    patch[f"$setElementOrder/{key}"] = [{merge_key: v.get(merge_key)} for v in new]
