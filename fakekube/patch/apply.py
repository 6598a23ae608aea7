"""Server-side apply (``application/apply-patch+yaml``) as a pure document transform.

Follows kubernetes/apimachinery ``pkg/util/managedfields/internal/{structuredmerge,conflict,fieldmanager}.go``
and structured-merge-diff's ``Updater.Apply``: merge the configuration into the live object using list
semantics (``x-kubernetes-list-type`` / list-map keys; merge keys for built-ins), make the applier own
exactly the configuration's fields, remove fields it applied before and nobody owns any more, and
refuse (409) to change a field another manager owns unless ``force`` is set.

The store handles resourceVersion preconditions, create-if-missing and no-op suppression.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from fakekube import errors, goyaml
from fakekube.jsonvalues import decode_json_bytes, encode_json, json_copy, walk_copy
from fakekube.patch import fieldpath, last_applied, typed, update_fields
from fakekube.patch.fieldpath import Path
from fakekube.patch.jsonutil import go_json_kind, own_top_levels
from fakekube.patch.managed_fields import (
    ManagerEntry,
    decode_managed_fields,
    encode_managed_fields,
)
from fakekube.patch.schema import UNTYPED, PatchSchema
from fakekube.validation import go_quote

FIELD_MANAGER_MAX_LENGTH = 128


def parse_apply_body(body: bytes | str | dict) -> dict:
    """Decode an apply body as the patch handler does: YAML that is not JSON goes through ``YAMLToJSON`` first
    (``validateAndTranscodePatch``: its error is ``error encoding patch: ...``), then every body is read by
    sigs.k8s.io/yaml ``Unmarshal`` into a map (``error decoding patch: ...``). A dict is returned as it is:
    nothing reads it but to decode it, and :func:`server_side_apply` copies its result."""
    if isinstance(body, dict):
        return body
    if not isinstance(body, bytes | bytearray | memoryview | str):
        raise errors.BadRequest(f"error decoding patch: apply patch must be an object, got {type(body).__name__}")
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else bytes(body)
    try:
        parsed = goyaml.yaml_to_json(data)
    except goyaml.GoYAMLError as exc:
        if not data.lstrip().startswith(b"{"):  # util/yaml ToJSON passes JSON through unconverted
            raise errors.BadRequest(f"error encoding patch: {exc}") from None
        # sigs.k8s.io/yaml Unmarshal wraps what the conversion says
        raise errors.BadRequest(f"error decoding patch: error converting YAML to JSON: {exc}") from None
    if parsed is None:
        return {}  # null decodes into an empty map; the version check refuses it
    if not isinstance(parsed, dict):
        raise errors.BadRequest("error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot "
                                f"unmarshal {go_json_kind(parsed)} into Go value of type map[string]interface {{}}")
    return parsed


def validate_apply_request(
    config: dict,
    *,
    field_manager: str | None,
    api_version: str,
    kind: str,
) -> None:
    """PatchOptions and apply-body checks the real server makes before merging: the field manager, then
    managedfields' version check (the configuration's group, version and kind must be the endpoint's:
    ``invalid object type: apps/v1, Kind=ConfigMap``, ``versioncheck.go``), then ``managedFields`` must be
    absent (``structuredmerge.go``)."""
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
    sent_version, sent_kind = config.get("apiVersion"), config.get("kind")
    if sent_version != api_version or sent_kind != kind:
        # Unstructured's GroupVersionKind: a value that is not a string reads as "", and an apiVersion that
        # does not parse as a group version leaves both empty.
        sent_version = sent_version if isinstance(sent_version, str) else ""
        sent_kind = sent_kind if isinstance(sent_kind, str) else ""
        group, version = "", ""
        if sent_version.count("/") <= 1 and sent_version not in ("", "/"):
            group, _, version = sent_version.rpartition("/")
        raise errors.BadRequest(f"invalid object type: {group}/{version}, Kind={sent_kind}")
    meta = config.get("metadata")
    if isinstance(meta, dict) and meta.get("managedFields") is not None:
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
    keep_nulls: bool = False,
    live_is_stored: bool = False,
    share_live: bool = False,
    zero: dict | None = None,
    ignored: tuple[str, ...] | None = None,
    untracked: tuple[str, ...] = (),
    versions: Collection[str] | None = None,
) -> dict:
    """Apply ``config`` for ``manager`` to ``live`` (``None`` creates) and return the new object.

    ``Updater.Apply``: merge, own the configuration's fields, prune what the applier owned before and
    nobody owns now, then take the changed fields from their owners (409 without ``force``). Nulls are
    then dropped from the result as the server's decoding does (:func:`drop_nulls`); ``keep_nulls`` returns
    the object as structured-merge-diff leaves it, to compare with its tables. ``live_is_stored``: ``live`` is
    a stored object, which nothing changes (its managedFields trees are then recognised by identity).
    ``share_live``: the result may keep the subtrees of ``live`` it leaves as they are, by identity (what the
    configuration brought is still copied, and the top level and each top-level value are the result's own),
    so the caller must not change anything in it deeper than that without copying it first.
    ``zero``: the kind's Go zero value (fakekube.patch.zero), for the "before-first-apply" entry of an object
    nobody manages yet (None: no such entry, for a store that does not track other writes); ``ignored``: the
    top-level fields the strategy
    resets (status on the main resource, spec on /status), which no manager takes; ``untracked``: fields the
    strategy resets on update but a create keeps (a CSR's spec; dotted for a nested one, a CSR's
    ``status.conditions`` on /status): applied, never owned. ``versions``: the
    apiVersions the endpoint converts to; managers of others are dropped (see managed_fields.record_update).
    """
    if (config.get("metadata") or {}).get("managedFields") is not None:
        raise errors.BadRequest("metadata.managedFields must be nil")
    schema = schema or UNTYPED
    managers = decode_managed_fields(live, frozen=live_is_stored)
    if versions is not None:
        for ident in [i for i, m in managers.items() if m.api_version not in versions]:
            del managers[ident]
    live_body = _without_managed_fields_view(live)  # merge and compare only read it
    if live is not None and not managers and zero is not None:
        _before_first_apply(managers, live_body, zero, (*(ignored or ()), *untracked), schema, api_version,
                            subresource, now)
    # Until the copy below, the result shares what it keeps of the live object and of the configuration: the
    # merge copies nothing, and the comparison skips every shared subtree by identity.
    merged = typed.merge_shared(live_body, config, schema)
    if not isinstance(merged, dict):
        merged = {}

    key = apply_key(manager, subresource)
    previous = managers.get(key)
    previous_tree = previous.canonical_tree() if previous is not None else None  # before .fields decodes it
    applied = typed.applied_fields(config, schema) - fieldpath.STRIPPED
    if untracked:
        applied = _without_untracked(applied, untracked)
    if previous_tree is not None and previous.fields == applied:
        # The same fields as last time: their canonical tree is the one read (to_fields_v1 would rebuild it).
        entry = ManagerEntry(manager, "Apply", api_version, previous.time, tree=previous_tree,
                             subresource=subresource or "")
    else:
        entry = ManagerEntry(manager, "Apply", api_version, previous.time if previous else None,
                             fields=set(applied), subresource=subresource or "")
    managers[key] = entry
    if previous is not None and not previous.fields <= applied:
        # When the applier still applies everything it owned, upstream's prune changes nothing: every path it
        # owned, and every map key or list item above one, is in the new set (see _prune).
        merged = _prune(merged, managers, previous.fields, schema)

    cmp = typed.compare(live_body, merged, schema)
    changed = cmp.added | cmp.modified
    if untracked:
        changed = _without_untracked(changed, untracked)
    conflicts: dict[str, set[Path]] = {}
    for ident, other in managers.items():
        if ident == key:
            continue
        clash = other.owned(changed)
        if clash:
            conflicts[ident] = clash
    if conflicts and not force:
        left = conflicts
        if manager == last_applied.KUBECTL:
            allowed = last_applied.allowed_conflicts(live_body, schema, api_version)
            if allowed is not None:
                left = {ident: rest for ident, paths in conflicts.items() if (rest := paths - allowed)}
        if left:
            raise _conflict_error(left, managers)
    for ident, other in managers.items():
        if ident == key:
            continue
        # The other managers' trees are edited, not rebuilt: only the paths they lose are touched.
        other.lose(conflicts.get(ident, set()) | cmp.removed)
    if merged != live_body:
        # Only a write that changes the object moves the applier's timestamp (an identical re-apply
        # leaves managedFields byte-for-byte unchanged).
        entry.time = now
    entry.api_version = api_version
    # The one copy of the result, which is also the scan for nulls: the C encoder's text holds them all.
    text = encode_json(merged)
    if share_live and live is not None and text is not None and b"null" not in text:
        # No null to drop, so nothing below the top changes: only the configuration's parts (the caller's
        # own) need copies, and the live object's may stay shared.
        _copy_configuration_parts(merged, live_body, _container_ids(config))
        own_top_levels(merged, live_body)  # its values are live's, but for a metadata of its own
    else:
        merged = decode_json_bytes(text) if text is not None else walk_copy(merged)
        if not keep_nulls and (text is None or b"null" in text):
            drop_nulls(merged, schema)
    encode_managed_fields(merged, managers)
    if manager == last_applied.KUBECTL:
        last_applied.sync_annotation(merged, config)
    return merged


def _without_untracked(paths: set[Path], untracked: tuple[str, ...]) -> set[Path]:
    """``paths`` but those at or below an untracked field (``spec``, ``status.conditions``)."""
    prefixes = [tuple(f"f:{name}" for name in field.split(".")) for field in untracked]
    return {p for p in paths if not any(p[:len(prefix)] == prefix for prefix in prefixes)}


BEFORE_FIRST_APPLY = "before-first-apply"


def _before_first_apply(managers: dict[str, ManagerEntry], live: dict, zero: dict | None,
                        ignored: tuple[str, ...] | None,
                        schema: PatchSchema, api_version: str, subresource: str | None, now: str) -> None:
    """``skipNonAppliedManager.Apply``: an object nobody manages yet (created before tracking, or whose entries
    were reset) first gets an Update entry "before-first-apply" owning what it holds, compared with the kind's
    zero value as a create is, so an apply that changes those fields conflicts with it."""
    view = {k: v for k, v in live.items() if k not in ignored} if ignored else live
    tree = update_fields.create_tree(zero or {}, view, schema)
    if tree:
        entry = ManagerEntry(BEFORE_FIRST_APPLY, "Update", api_version, now, tree=tree,
                             subresource=subresource or "")
        managers[entry.identifier] = entry


def _container_ids(value: Any) -> set[int]:
    """The ids of every map and list in ``value`` (they stay alive as long as ``value`` does)."""
    found: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict or kind is list:
            found.add(id(item))
            stack.extend(item.values() if kind is dict else item)
    return found


def _copy_configuration_parts(merged: Any, live: Any, config_ids: set[int]) -> None:
    """Replace, in the maps and lists the merge made, every subtree that is the configuration's own by a copy;
    ``live`` is the live object's value at the same place (None when not known), whose subtrees stay shared.
    The merge never changes its inputs, so a container is the configuration's, the live object's, or new."""
    if type(merged) is dict:
        for key, value in merged.items():
            kind = type(value)
            if kind is not dict and kind is not list:
                continue
            if id(value) in config_ids:
                merged[key] = json_copy(value)
                continue
            counterpart = live.get(key) if type(live) is dict else None
            if value is not counterpart:
                _copy_configuration_parts(value, counterpart, config_ids)
        return
    stored = {id(item) for item in live} if type(live) is list else ()
    for i, value in enumerate(merged):
        kind = type(value)
        if kind is not dict and kind is not list:
            continue
        if id(value) in config_ids:
            merged[i] = json_copy(value)
        elif id(value) not in stored:
            _copy_configuration_parts(value, None, config_ids)


def _without_managed_fields_view(live: dict | None) -> dict:
    """``live`` without its managedFields, sharing everything else (for readers only)."""
    if not live:
        return {}
    meta = live.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return live
    return {**live, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _prune(merged: dict, managers: dict[str, ManagerEntry], last: set[Path], schema: PatchSchema) -> dict:
    """``Updater.prune``: remove what the applier applied last time and not now, unless someone owns it.

    Upstream's three steps: remove the old set (with the struct fields it runs through), add back every
    item some manager owns (the applier's new configuration included), then add back what the first step
    removed that the applier never owned (its parents, items of other kinds of managers).
    """
    previous = typed.with_named_parents(last, schema)
    pruned = typed.remove_items(merged, previous, schema)
    owned: set[Path] = set().union(*(m.fields for m in managers.values()))
    merged_set = typed.with_named_parents(typed.applied_fields(merged, schema), schema)
    pruned_set = typed.with_named_parents(typed.applied_fields(pruned, schema), schema)
    pruned = typed.remove_items(merged, merged_set - (pruned_set | typed.with_named_parents(owned, schema)),
                                schema)
    pruned_set = typed.with_named_parents(typed.applied_fields(pruned, schema), schema)
    result = typed.remove_items(merged, (merged_set - pruned_set) & previous, schema)
    return result if isinstance(result, dict) else {}


def drop_nulls(value: Any, schema: PatchSchema) -> None:
    """Remove null members of maps, in place, as the server does after an apply: a built-in's typed decoder
    turns them into absent fields, and a custom resource's defaulter prunes the nulls of fields its schema
    describes (``PruneNonNullableNullsWithoutDefaults``; nullable fields are not told apart here), keeping
    those under x-kubernetes-preserve-unknown-fields."""
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            if not (schema.deduced and not schema.is_field(key)):
                del value[key]
        for key, child in value.items():
            if isinstance(child, dict | list):
                drop_nulls(child, schema.field(key) or UNTYPED)
    elif isinstance(value, list):
        item = schema.item()
        for child in value:
            if isinstance(child, dict | list):
                drop_nulls(child, item)


def _conflict_error(conflicts: dict[str, set[Path]], managers: dict[str, ManagerEntry]) -> errors.ApplyConflict:
    """``NewConflictError``: one cause per conflicting path, managers in identifier order (upstream's map order
    is random) and each manager's paths in field-set order (smd ``Set.Iterate``)."""
    items: list[tuple[str, str, str]] = []  # (identifier, printed manager, path)
    for ident in sorted(conflicts):
        printed = _print_manager(managers[ident])
        for path in fieldpath.iteration_order(conflicts[ident]):
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
    """conflict.go ``printManager`` of a manager identifier: ``"<name>"`` [with subresource ``"<s>"``] [using
    <apiVersion>]. The identifier never holds a time, so no ``at <time>`` is ever printed."""
    text = go_quote(entry.manager)
    if entry.subresource:
        text += f" with subresource {go_quote(entry.subresource)}"
    if entry.operation == "Update":
        text += f" using {entry.api_version}"
    return text
