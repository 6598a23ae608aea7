"""Short cuts of custom resources' writes: a merge patch that shares the stored object's unchanged subtrees
instead of copying them (:func:`custom_may_share`), and a stale PUT answered before its body is copied
(:func:`custom_stale_put_is_plain`); and whether the field manager can type a write's object at all
(:func:`untyped_custom_status`).

The same sharing a Pod's patches have (fakekube.verbs.shared_patch), for CRD-backed kinds: the merge engine
copies only the maps on the way to a change, the store gives the result its own top-level values, and nothing
later on the write path changes what the result still shares with the stored version:

- the custom-resource strategy's hooks set or drop top-level keys and ``metadata.generation`` only
  (``CustomResourceStrategy.patch_shares_stored``); a ``/status`` write takes every other top-level value
  from the stored object anyway;
- the schema's defaulting and null pruning copy what they change (``schemaprune.defaulted``,
  ``schemaprune.without_nulls``); validation only reads;
- a result that must be pruned is copied whole first (``WriteVerbs._decode_patched``): pruning walks all of
  it, and a stored version may hold fields a changed CRD no longer declares.

Server-side apply of a custom resource keeps copying (its result is pruned in place), as does a JSON patch.
"""

from __future__ import annotations

from typing import Any

from fakekube import decoding
from fakekube.patch import MERGE_PATCH, typed_validate
from fakekube.records import Record
from fakekube.resources import ResourceType

__all__ = ["custom_may_share", "custom_stale_put_is_plain", "untyped_custom_status"]


def custom_may_share(rt: ResourceType, stored: dict[str, Any] | None, subresource: str | None,
                     patch_type: str) -> bool:
    """Whether a merge patch of a custom resource through ``rt`` may keep ``stored``'s subtrees: served in its
    storage version (no conversion in between), not through ``/scale``."""
    return (patch_type == MERGE_PATCH and rt.custom and rt.model is None and subresource != "scale"
            and rt.strategy.patch_shares_stored and stored is not None and rt.to_storage is None
            and rt.from_storage is None and stored.get("apiVersion") == rt.api_version)


def custom_stale_put_is_plain(version: Any, rt: ResourceType, body: dict[str, Any], record: Record) -> bool:
    """Whether the full path of a custom resource's PUT whose resourceVersion is a number other than 0 and
    ``record``'s (``WriteVerbs._refuse_stale_put`` checked that, the name, uid, apiVersion and kind) would
    report nothing before its 409: no field pruning would drop (a warning, or a Strict 400), no duplicate
    field, no namespace other than the stored one (a 400). Then the 409 can come without the copy."""
    meta = body["metadata"]
    return (not getattr(body, "duplicate_fields", ())
            and meta.get("namespace", None) in (None, record.obj["metadata"].get("namespace"))
            and not decoding.custom_would_prune(version, rt, body))


def untyped_custom_status(rt: ResourceType, new: dict[str, Any], subresource: str | None) -> bool:
    """Whether a custom resource's write sends a status its schema's types refuse where nothing else would
    refuse it: the main resource of a kind with a status subresource drops the status it was sent, after the
    field manager has failed to convert the object (observed on kube-apiserver v1.37.2: ``status: "x"`` creates
    the object without managedFields). Elsewhere a value of the wrong type is a 422 anyway."""
    if not rt.custom or subresource is not None or "status" not in new or not rt.has_subresource("status"):
        return False
    schema = rt.patch_schema
    status = schema.field("status") if schema is not None else None
    return status is not None and bool(typed_validate.validate(new["status"], status))

