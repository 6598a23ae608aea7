"""managedFields across the ``scale`` subresource (apimachinery ``pkg/util/managedfields/scalehandler.go``).

A write to ``/scale`` runs the field manager on the Scale object, whose entries are converted from the
parent's (:func:`to_subresource`), and the result is converted back (:func:`to_parent`). Upstream's
conversion has quirks that show in the parent's entries, emulated as they are:

- an entry owning the replicas path becomes a Scale entry of ``autoscaling/v1``; decoded again under that
  apiVersion, an Update entry's identifier no longer matches its parent entry's, so converting back always
  takes the replicas path from the parent Update entry, and whoever owns ``spec.replicas`` of the Scale
  afterwards gets a parent entry of its own, named by the Scale entry's identifier (its subresource, and
  the parent's apiVersion) and without a time, since the time is looked up among the parent's entries;
- an entry of an apiVersion the resource does not map is dropped.
"""

from __future__ import annotations

import json
from typing import Any

from fakekube.patch import fieldpath
from fakekube.patch.fieldpath import Path
from fakekube.patch.managed_fields import identifier_of, sort_entries

SCALE_API_VERSION = "autoscaling/v1"
SCALE_REPLICAS: Path = ("f:spec", "f:replicas")

# apiVersion → the replicas path of the parent in that version (None: a version without a scale subresource).
Mappings = dict[str, Path | None]


def replicas_path(dotted: str) -> Path:
    """``.spec.replicas`` → ``("f:spec", "f:replicas")``."""
    return tuple("f:" + part for part in dotted.split(".") if part)


def _decoded(entries: list | None) -> dict[str, dict[str, Any]]:
    """Entries by manager identifier, a later one replacing an earlier one (``DecodeManagedFields``)."""
    out: dict[str, dict[str, Any]] = {}
    for entry in entries or ():
        out[_identifier(entry)] = entry
    return out


def _identifier(entry: dict[str, Any]) -> str:
    return identifier_of(entry.get("manager", ""), entry.get("operation", "Update"),
                             entry.get("apiVersion", ""), entry.get("subresource", ""))


def _has(entry: dict[str, Any], path: Path) -> bool:
    return fieldpath.tree_has(entry.get("fieldsV1") or {}, path)


def _entry_named(identifier: str, operation: str, api_version: str, path: Path, time: str | None) -> dict:
    """``encodeManagerVersionedSet``: manager and subresource from the identifier, the set's apiVersion."""
    named = json.loads(identifier)
    entry: dict[str, Any] = {"manager": named["manager"]} if named.get("manager") else {}
    entry["operation"] = operation
    entry["apiVersion"] = api_version
    if time:
        entry["time"] = time
    entry["fieldsType"] = "FieldsV1"
    entry["fieldsV1"] = fieldpath.to_fields_v1([path])
    if named.get("subresource"):
        entry["subresource"] = named["subresource"]
    return entry


def to_subresource(parent: list | None, mappings: Mappings) -> list:
    """``ScaleHandler.ToSubresource``: the parent's entries that own the replicas path, as Scale entries."""
    out: dict[str, dict[str, Any]] = {}
    for ident, entry in _decoded(parent).items():
        path = mappings.get(entry.get("apiVersion", ""))
        if path is None or not _has(entry, path):
            continue
        out[ident] = _entry_named(ident, entry.get("operation", "Update"), SCALE_API_VERSION, SCALE_REPLICAS,
                                  entry.get("time"))
    return sort_entries(list(out.values()))


def to_parent(parent: list | None, scale: list | None, api_version: str, mappings: Mappings) -> list:
    """``ScaleHandler.ToParent``: the parent's entries after a write to ``/scale`` left ``scale``."""
    parent_entries = _decoded(parent)
    scale_entries = _decoded(scale)
    out: dict[str, dict[str, Any]] = {}
    for ident, entry in parent_entries.items():
        version = entry.get("apiVersion", "")
        if version not in mappings:
            continue
        path = mappings[version]
        if path is None or not _has(entry, path):
            out[ident] = entry
            continue
        if ident not in scale_entries:
            tree = fieldpath.tree_remove(entry.get("fieldsV1") or {}, [path])  # the Scale took replicas
            if tree:
                out[ident] = {**entry, "fieldsV1": tree}
        else:
            out[ident] = entry
            del scale_entries[ident]
    own_path = mappings.get(api_version)
    for ident, entry in scale_entries.items():
        if own_path is None or not _has(entry, SCALE_REPLICAS):
            continue
        time = parent_entries[ident].get("time") if ident in parent_entries else None
        out[ident] = _entry_named(ident, entry.get("operation", "Update"), api_version, own_path, time)
    return sort_entries(list(out.values()))
