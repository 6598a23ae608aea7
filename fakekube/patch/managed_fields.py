"""``metadata.managedFields``: decoding, encoding and the ``Update`` bookkeeping of every write.

Follows kubernetes/apimachinery ``pkg/util/managedfields/internal/{managedfields,managedfieldsupdater}.go``
and structured-merge-diff's ``Updater.Update``: a write takes ownership of the fields it added or
changed (taking them away from other managers) and every manager loses the fields the write removed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fakekube.patch import fieldpath
from fakekube.patch.fieldpath import Path
from fakekube.patch.jsonutil import json_copy
from fakekube.patch.schema import PatchSchema


@dataclass
class ManagerEntry:
    manager: str
    operation: str
    api_version: str
    time: str | None
    fields: set[Path] = field(default_factory=set)
    subresource: str = ""

    @property
    def identifier(self) -> str:
        """``BuildManagerIdentifier``: the entry without time/fields as JSON (Apply drops apiVersion)."""
        ident: dict[str, Any] = {"manager": self.manager, "operation": self.operation}
        if self.operation != "Apply" and self.api_version:
            ident["apiVersion"] = self.api_version
        if self.subresource:
            ident["subresource"] = self.subresource
        return json.dumps(ident, separators=(",", ":"))

    def encode(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version}
        if self.time:
            entry["time"] = self.time
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = fieldpath.to_fields_v1(self.fields)
        if self.subresource:
            entry["subresource"] = self.subresource
        return entry


Managers = dict[str, ManagerEntry]


def decode_managed_fields(obj: dict | None) -> Managers:
    managers: Managers = {}
    for raw in ((obj or {}).get("metadata") or {}).get("managedFields") or []:
        entry = ManagerEntry(
            manager=raw.get("manager", ""),
            operation=raw.get("operation", "Update"),
            api_version=raw.get("apiVersion", ""),
            time=raw.get("time"),
            fields=fieldpath.from_fields_v1(raw.get("fieldsV1") or {}),
            subresource=raw.get("subresource", ""),
        )
        managers[entry.identifier] = entry
    return managers


def _sort_key(entry: ManagerEntry) -> tuple:
    # sortEncodedManagedFields: operation, time (whole seconds; RFC3339 strings sort the same), manager,
    # apiVersion, subresource.
    return (entry.operation, entry.time or "", entry.manager, entry.api_version, entry.subresource)


def encode_managed_fields(obj: dict, managers: Managers) -> None:
    """Write ``managers`` into ``obj["metadata"]["managedFields"]`` (removed when empty)."""
    live = [m for m in managers.values() if m.fields]
    meta = obj.setdefault("metadata", {})
    if not live:
        meta.pop("managedFields", None)
        return
    meta["managedFields"] = [m.encode() for m in sorted(live, key=_sort_key)]


def without_managed_fields(obj: dict | None) -> dict:
    body = json_copy(obj) if obj else {}
    meta = body.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
    return body


@dataclass
class Comparison:
    added: set[Path]
    removed: set[Path]
    modified: set[Path]


def compare(old: dict, new: dict, schema: PatchSchema | None) -> Comparison:
    old_set = fieldpath.field_set(old, schema)
    new_set = fieldpath.field_set(new, schema)
    modified = {
        p for p in old_set & new_set
        if fieldpath.get_path(old, p) != fieldpath.get_path(new, p)
        and not isinstance(fieldpath.get_path(new, p), dict)
    }
    return Comparison(added=new_set - old_set, removed=old_set - new_set, modified=modified)


def update_key(manager: str, api_version: str, subresource: str | None) -> str:
    return ManagerEntry(manager, "Update", api_version, None, subresource=subresource or "").identifier


def record_update(
    old: dict | None,
    new: dict,
    *,
    manager: str,
    api_version: str,
    subresource: str | None,
    now: str,
    schema: PatchSchema | None = None,
) -> None:
    """Record an ``operation: Update`` entry in ``new`` for the fields this write added or changed.

    Other managers lose those fields and every manager loses the fields the write removed. When the
    write changed nothing, the entries (and their times) are left exactly as they were, so a no-op
    write stays byte-identical.
    """
    managers = decode_managed_fields(old)
    cmp = compare(without_managed_fields(old), without_managed_fields(new), schema)
    taken = cmp.added | cmp.modified
    key = update_key(manager, api_version, subresource)
    for ident, entry in managers.items():
        if ident != key:
            entry.fields -= taken
        entry.fields -= cmp.removed
    if taken:
        entry = managers.get(key) or ManagerEntry(manager, "Update", api_version, None,
                                                  subresource=subresource or "")
        entry.fields |= taken
        entry.time = now
        managers[key] = entry
    encode_managed_fields(new, managers)
