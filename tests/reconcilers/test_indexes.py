"""The sandbox summaries (reconcilers/indexes.py) kept from informer events equal the ones built from scratch
over what the cache holds, whatever the order of adds, updates and deletes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.indexes import ClaimCandidates, WarmPoolMembers


class _Informer:
    """What a summary needs of an informer: ``add_handler`` (replaying nothing) and ``overrides``."""

    def __init__(self) -> None:
        self.overrides: dict[Any, Any] = {}
        self.handler: Any = None

    def add_handler(self, handler: Any) -> None:
        self.handler = handler


def _sandbox(name: str, owner: str, ready: bool, created: str, template: str, deleting: bool,
             pool: str | None) -> dict[str, Any]:
    labels = {keys.TEMPLATE_REF_HASH: template}
    if pool is not None:  # None: adopted (the claim took the label off) or never a pool member
        labels[keys.WARM_POOL_SANDBOX] = pool
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "creationTimestamp": created, "labels": labels}
    if owner != "none":
        meta["ownerReferences"] = [{"kind": owner, "name": "o", "uid": f"uid-{owner}", "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:09Z"
    return {"metadata": meta, "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


_versions = st.builds(_sandbox, st.sampled_from(["a", "b", "c", "d", "e"]),
                      st.sampled_from(["none", "SandboxWarmPool", "SandboxClaim"]), st.booleans(),
                      st.sampled_from(["2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z"]), st.sampled_from(["t1", "t2"]),
                      st.booleans(), st.sampled_from(["pool", "pool", "pool2", None]))


def _state(summary: Any) -> Any:
    if isinstance(summary, ClaimCandidates):
        return {g: [(e[0], e[1], e[2], id(e[3])) for e in entries] for g, entries in summary.groups.items()}
    return {g: (dict(p.members), p.orphans, {u: list(c) for u, c in p.owned.items()}, dict(p.unready))
            for g, p in summary.groups.items()}


def _rewritten(old: dict[str, Any], ready: bool, deleting: bool, relabel: bool) -> dict[str, Any]:
    """The next version of ``old`` as the store makes it: a new metadata dict that keeps the labels and owner
    references objects of ``old`` (as a status write does), a new status, maybe a deletion stamp. ``relabel``:
    labels of equal value in a new dict (a write that rebuilt them)."""
    meta = {**old["metadata"]}
    if relabel and meta.get("labels") is not None:
        meta["labels"] = dict(meta["labels"])
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:09Z"
    return {"metadata": meta, "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


# ("put", a version from scratch) | ("delete", one like it: its name) | ("rewrite", (ready, deleting, relabel))
# applied to the cached version of a name (skipped when there is none).
_events = st.one_of(
    st.tuples(st.sampled_from(["put", "delete"]), _versions),
    st.tuples(st.just("rewrite"), st.tuples(st.sampled_from(["a", "b", "c"]), st.booleans(), st.booleans(),
                                           st.booleans())),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_events, max_size=40))
def test_summaries_follow_the_cache(events: list[tuple[str, Any]]) -> None:
    """Rewrites share the labels and owner references of the version they replace, as the store's versions do:
    the summaries' short cut for updates that change no fact they keep (``same_facts``) is checked against
    summaries built from scratch, readiness and deletion flips included."""
    for kind in (ClaimCandidates, WarmPoolMembers):
        informer = _Informer()
        live = kind(informer)
        cache: dict[str, dict[str, Any]] = {}
        for op, payload in events:
            if op == "rewrite":
                name, ready, deleting, relabel = payload
                if name not in cache:
                    continue
                obj = _rewritten(cache[name], ready, deleting, relabel)
            else:
                obj = payload
            name = obj["metadata"]["name"]
            old = cache.get(name)
            if op == "delete":
                if old is not None:
                    del cache[name]
                    informer.handler.on_delete(old)
                continue
            cache[name] = obj
            if old is None:
                informer.handler.on_add(obj, False)
            else:
                informer.handler.on_update(old, obj)
            # Built from scratch over the cache (dicts compare without their order; candidates are sorted).
            fresh_informer = _Informer()
            fresh = kind(fresh_informer)
            for cached in cache.values():
                fresh_informer.handler.on_add(cached, False)
            assert _state(live) == _state(fresh)
