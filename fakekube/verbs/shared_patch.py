"""A strategic merge patch's result that shares the stored object's unchanged subtrees instead of copying them.

A patch usually changes a few fields of a large object (one container's image, one pod condition). The
engine can leave every subtree the patch does not reach as the stored object's own (by identity,
``strategic_merge(share=True)``, ``server_side_apply(share_live=True)``) instead of copying the whole object; what the write then stores shares
those subtrees with the version before it, as a Pod's main write already shares its status and a status write
its spec. Sharing is sound because nothing changes a stored object in place: not the store, not the engines
(copy-on-write), not the answer (every caller gets ``Record.copy``), and, for the kinds that opt in
(``Strategy.patch_shares_stored``), not their update hooks, which may set or drop keys of the object and of its
top-level values only — :func:`own_top_levels` makes those two levels the write's own — and otherwise leave
alone what they share with the stored object (``Strategy.default_update``). Where a later step may change the
object deeper (decoding a result that holds unknown fields drops them in place), the write copies it first.

Sharing also makes the rest of the write cheaper: Python compares identical objects by identity, so the
managedFields diff, the generation check, update validation and the no-op check skip the shared subtrees.
"""

from __future__ import annotations

from typing import Any

from fakekube.patch.jsonutil import own_top_levels
from fakekube.resources import ResourceType
from fakekube.verbs.unchanged import same_as_stored

__all__ = ["may_share", "own_top_levels"]


def may_share(rt: ResourceType, stored: dict[str, Any] | None, subresource: str | None) -> bool:
    """Whether a strategic merge patch or an apply over ``stored`` through ``rt`` may keep the stored object's
    subtrees: a kind whose hooks allow it, served in its storage version (no conversion in between)."""
    return (subresource != "scale" and rt.strategy.patch_shares_stored and stored is not None
            and same_as_stored(rt, stored))
