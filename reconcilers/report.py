"""Per-run results computed from the audit log, the stale-overwrite detector and the readiness tracker.

Nothing here is instrumented inside a reconciler (DESIGN.md principle 5). ``summarize`` returns a
JSON-ready dict; everything in it is a function of the seed except the ``wall`` key, which holds wall-clock
measurements and is kept apart so that outputs can be compared byte for byte.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from reconcilers import keys
from reconcilers.objects import controller_of

CLAIM_STATUS = "sandboxclaims/status"


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (what Prometheus-free load reports use); None for no samples."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _counter(counter: Counter[str]) -> dict[str, int]:
    return {k: counter[k] for k in sorted(counter)}


def _key(resource: str, subresource: str | None) -> str:
    return resource + (f"/{subresource}" if subresource else "")


def stale_records(run: Any) -> list[Any]:
    return list(run.env.sim.stale_overwrites())


def doubly_owned_sandboxes(run: Any) -> list[str]:
    """Sandboxes that two claims believe they hold: named in two claims' status, or owned by one claim while
    another claim's status names it."""
    store = run.env.store
    ns = run.scenario.params.namespace
    holders: dict[str, list[str]] = {}
    for claim in store.objects(keys.CLAIMS, ns):
        name = ((claim.get("status") or {}).get("sandbox") or {}).get("name")
        if name:
            holders.setdefault(name, []).append(claim["metadata"]["name"])
    owners = {}
    for sb in store.objects(keys.SANDBOXES, ns):
        ref = controller_of(sb)
        if ref is not None and ref.get("kind") == "SandboxClaim":
            owners[sb["metadata"]["name"]] = ref.get("name")
    bad = []
    for sandbox, claims in sorted(holders.items()):
        owner = owners.get(sandbox)
        if len(claims) > 1 or (owner is not None and owner not in claims):
            bad.append(sandbox)
    return bad


def summarize(run: Any) -> dict[str, Any]:
    sim = run.env.sim
    audit = sim.store.audit
    entries = audit.entries
    conflicts = [e for e in entries if e.conflict]
    stale = stale_records(run)
    tracker = run.tracker
    latencies = tracker.latencies()
    params = run.scenario.params
    by_verb = Counter(e.verb for e in entries)
    pool = sim.store.objects(keys.WARMPOOLS, params.namespace)
    pool_status = (pool[0].get("status") or {}) if pool else {}
    result: dict[str, Any] = {
        "scenario": run.scenario.name,
        "seed": run.seed,
        "strategies": run.strategies.to_dict(),
        "params": run.scenario.to_dict()["params"],
        "flags": run.scenario.to_dict()["flags"],
        "conflicts": {
            "total": len(conflicts),
            "claim_status": sum(1 for e in conflicts if _key(e.resource, e.subresource) == CLAIM_STATUS),
            "by_resource": _counter(Counter(_key(e.resource, e.subresource) for e in conflicts)),
            "by_actor": _counter(Counter(e.actor for e in conflicts)),
        },
        "stale_overwrites": {
            "total": len(stale),
            "claim_status": sum(1 for r in stale if _key(r.resource, r.subresource) == CLAIM_STATUS),
            "by_resource": _counter(Counter(_key(r.resource, r.subresource) for r in stale)),
            "by_actor": _counter(Counter(r.actor for r in stale)),
        },
        "claims": {"total": len(tracker.claim_created), "ready": len(tracker.claim_ready),
                   "expected": params.total_claims},
        "ready_latency_ms": {
            f"p{q}": (round(v * 1000, 1) if (v := percentile(latencies, q)) is not None else None)
            for q in (50, 90, 99)
        },
        "api_requests": {"total": len(entries), "by_verb": _counter(by_verb)},
        "warm_pool": {"size": params.warmpool_size, "members": len(tracker.pool_members),
                      "ready": len(tracker.pool_ready), "status_ready_replicas": pool_status.get("readyReplicas", 0),
                      "sandboxes_created": tracker.sandboxes_created},
        "sandboxes_held_by_two_claims": len(doubly_owned_sandboxes(run)),
        "timed_out": list(run.timed_out),
        "simulated_seconds": round(sim.now, 3),
        "wall": {"seconds": round(run.wall_seconds, 3)},
    }
    return result
