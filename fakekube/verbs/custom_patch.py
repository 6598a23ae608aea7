"""A custom resource's merge patch that shares the stored object's unchanged subtrees instead of copying them.

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

from fakekube.patch import MERGE_PATCH
from fakekube.resources import ResourceType

__all__ = ["custom_may_share"]


def custom_may_share(rt: ResourceType, stored: dict[str, Any] | None, subresource: str | None,
                     patch_type: str) -> bool:
    """Whether a merge patch of a custom resource through ``rt`` may keep ``stored``'s subtrees: served in its
    storage version (no conversion in between), not through ``/scale``."""
    return (patch_type == MERGE_PATCH and rt.custom and rt.model is None and subresource != "scale"
            and rt.strategy.patch_shares_stored and stored is not None and rt.to_storage is None
            and rt.from_storage is None and stored.get("apiVersion") == rt.api_version)
