"""Server-side apply (``application/apply-patch+yaml``) as a pure document transform.

Follows kubernetes/apimachinery ``pkg/util/managedfields/internal/{structuredmerge,conflict,fieldmanager}.go``
and structured-merge-diff's ``Updater.Apply``: merge the configuration into the live object using list
semantics (``x-kubernetes-list-type`` / list-map keys; merge keys for built-ins), make the applier own
exactly the configuration's fields, remove fields it applied before and nobody owns any more, and
refuse (409) to change a field another manager owns unless ``force`` is set.

The store handles resourceVersion preconditions, create-if-missing and no-op suppression.
"""

from __future__ import annotations

from typing import Any

import yaml

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.patch import fieldpath
from fakekube.patch.fieldpath import Path
from fakekube.patch.managed_fields import (
    ManagerEntry,
    compare,
    decode_managed_fields,
    encode_managed_fields,
    without_managed_fields,
)
from fakekube.patch.schema import UNTYPED, PatchSchema

FIELD_MANAGER_MAX_LENGTH = 128


def parse_apply_body(body: bytes | str | dict) -> dict:
    """Decode an apply body (YAML or JSON); anything but a single object is a 400."""
    if isinstance(body, dict):
        return json_copy(body)
    if isinstance(body, bytes | bytearray):
        body = bytes(body).decode("utf-8", errors="replace")
    if not isinstance(body, str):
        raise errors.BadRequest(f"error decoding patch: apply patch must be an object, got {type(body).__name__}")
    try:
        parsed = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        raise errors.BadRequest(f"error decoding patch: {exc}") from None
    if not isinstance(parsed, dict):
        kind = "null" if parsed is None else type(parsed).__name__
        raise errors.BadRequest(f"error decoding patch: apply patch must be an object, got {kind}")
    return parsed


def validate_apply_request(
    config: dict,
    *,
    field_manager: str | None,
    api_version: str,
    kind: str,
) -> None:
    """PatchOptions and apply-body checks the real server makes before merging."""
    if not field_manager:
        raise errors.Invalid(
            "PatchOptions", "meta.k8s.io", "", [errors.required("fieldManager", "is required for apply patch")]
        )
    if len(field_manager) > FIELD_MANAGER_MAX_LENGTH:
        raise errors.Invalid(
            "PatchOptions", "meta.k8s.io", "",
            [errors.FieldError("FieldValueTooLong", "fieldManager", "may not be more than 128 bytes")],
        )
    if not field_manager.isprintable():
        raise errors.Invalid(
            "PatchOptions", "meta.k8s.io", "",
            [errors.invalid("fieldManager", field_manager, "must only contain printable characters")],
        )
    if config.get("apiVersion") != api_version:
        raise errors.BadRequest(
            "Incorrect version specified in apply patch. "
            f"Specified patch version: {config.get('apiVersion') or ''}, expected: {api_version}"
        )
    if config.get("kind") != kind:
        raise errors.BadRequest(
            "Incorrect kind specified in apply patch. "
            f"Specified patch kind: {config.get('kind') or ''}, expected: {kind}"
        )
    if (config.get("metadata") or {}).get("managedFields") is not None:
        raise errors.BadRequest("metadata.managedFields must be nil")


def apply_key(manager: str, subresource: str | None) -> str:
    return ManagerEntry(manager, "Apply", "", None, subresource=subresource or "").identifier


def server_side_apply(
    live: dict | None,
    config: dict,
    *,
    manager: str,
    force: bool,
    schema: PatchSchema | None,
    api_version: str,
    subresource: str | None,
    now: str,
) -> dict:
    """Apply ``config`` for ``manager`` to ``live`` (``None`` creates) and return the new object."""
    if (config.get("metadata") or {}).get("managedFields") is not None:
        raise errors.BadRequest("metadata.managedFields must be nil")
    schema = schema or UNTYPED
    managers = decode_managed_fields(live)
    live_body = without_managed_fields(live)
    merged = merge_config(live_body, config, schema)

    key = apply_key(manager, subresource)
    previous = managers.get(key)
    last = previous.fields if previous else set()
    applied = fieldpath.field_set(config, schema)
    entry = ManagerEntry(manager, "Apply", api_version, previous.time if previous else None,
                         fields=set(applied), subresource=subresource or "")
    managers[key] = entry

    owned: set[Path] = set().union(*(m.fields for m in managers.values()))
    _prune(merged, last, owned, schema)

    cmp = compare(live_body, merged, schema)
    changed = cmp.added | cmp.modified
    conflicts: dict[str, set[Path]] = {}
    for ident, other in managers.items():
        if ident == key:
            continue
        clash = other.fields & changed
        if clash:
            conflicts[ident] = clash
    if conflicts and not force:
        raise _conflict_error(conflicts, managers)
    for ident, other in managers.items():
        if ident == key:
            continue
        other.fields -= conflicts.get(ident, set())
        other.fields -= cmp.removed
    if merged != live_body:
        # Only a write that changes the object moves the applier's timestamp (an identical re-apply
        # leaves managedFields byte-for-byte unchanged).
        entry.time = now
    entry.api_version = api_version
    encode_managed_fields(merged, managers)
    return merged


def _prune(merged: dict, last: set[Path], owned: set[Path], schema: PatchSchema) -> None:
    """Remove what the applier applied last time and nobody owns now, then empty named parents."""
    gone = sorted(last - owned, key=len)
    for path in gone:
        if any(path[:i] in owned for i in range(1, len(path))) and fieldpath.get_path(merged, path) is None:
            continue
        fieldpath.remove_path(merged, path)
    # Struct fields (not map keys) that the applier's old paths ran through and that are now empty and
    # unowned go too, as structured-merge-diff's EnsureNamedFieldsAreMembers makes them owned members.
    named = fieldpath.ensure_named_parents(last, schema) - fieldpath.ensure_named_parents(owned, schema)
    for path in sorted(named, key=len, reverse=True):
        if path in fieldpath.STRIPPED or path == ("f:metadata",):
            continue
        value = fieldpath.get_path(merged, path)
        if isinstance(value, dict) and not value:
            fieldpath.remove_path(merged, path)


def _conflict_error(conflicts: dict[str, set[Path]], managers: dict[str, ManagerEntry]) -> errors.ApplyConflict:
    items: list[tuple[str, str, str]] = []  # (identifier, printed manager, path)
    for ident in sorted(conflicts):
        printed = _print_manager(managers[ident])
        for path in sorted(conflicts[ident], key=fieldpath.path_sort_key):
            items.append((ident, printed, fieldpath.path_string(path)))
    causes = [{"reason": "FieldManagerConflict", "message": f"conflict with {p}", "field": f} for _, p, f in items]
    if len(items) == 1:
        message = f"Apply failed with 1 conflict: conflict with {items[0][1]}: {items[0][2]}"
    else:
        lines: list[str] = []
        for ident in sorted(conflicts):
            printed = _print_manager(managers[ident])
            lines.append(f"conflicts with {printed}:")
            lines.extend(f"- {f}" for i, _, f in items if i == ident)
        message = f"Apply failed with {len(items)} conflicts: " + "\n".join(lines)
    return errors.ApplyConflict(message, causes)


def _print_manager(entry: ManagerEntry) -> str:
    # conflict.go printManager: "<name>" [with subresource "<s>"] [using <apiVersion> [at <time>]].
    text = f'"{entry.manager}"'
    if entry.subresource:
        text += f' with subresource "{entry.subresource}"'
    if entry.operation == "Update":
        text += f" using {entry.api_version}"
        if entry.time:
            text += f" at {entry.time}"
    return text


# -- structured merge ------------------------------------------------------------------------------
def merge_config(live: dict, config: dict, schema: PatchSchema) -> dict:
    """Merge an apply configuration into a copy of ``live`` (nulls in the configuration are dropped)."""
    return _merge_map(json_copy(live), config, schema)


def _merge_map(live: dict, config: dict, schema: PatchSchema) -> dict:
    for k, v in config.items():
        if v is None:
            continue
        child = schema.field(k) or UNTYPED
        live[k] = _merge_value(live.get(k), v, child)
    return live


def _merge_value(live: Any, config: Any, schema: PatchSchema) -> Any:
    if isinstance(config, dict) and isinstance(live, dict) and schema.map_type != "atomic" \
            and schema.kind != "scalar":
        return _merge_map(live, config, schema)
    if isinstance(config, list) and isinstance(live, list) and schema.kind == "list":
        kind = schema.ssa_list_type
        if kind == "set":
            out = list(live)
            seen = {fieldpath.value_element(v) for v in out}
            for v in config:
                if fieldpath.value_element(v) not in seen:
                    seen.add(fieldpath.value_element(v))
                    out.append(json_copy(v))
            return out
        if kind == "map":
            return _merge_list_map(live, config, schema)
    if isinstance(config, dict):
        return _merge_map({}, config, schema)
    return json_copy(config)


def _merge_list_map(live: list, config: list, schema: PatchSchema) -> list:
    keys = schema.ssa_keys
    out = list(live)
    index = {fieldpath.key_element(v, keys): i for i, v in enumerate(out) if isinstance(v, dict)}
    item_schema = schema.item()
    for item in config:
        if not isinstance(item, dict):
            out.append(json_copy(item))
            continue
        pe = fieldpath.key_element(item, keys)
        if pe in index:
            out[index[pe]] = _merge_map(out[index[pe]], item, item_schema)
        else:
            index[pe] = len(out)
            out.append(_merge_map({}, item, item_schema))
    return out
