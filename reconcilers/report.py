"""Per-run results computed from the audit log, the stale-overwrite detector and the readiness tracker.

Nothing here is instrumented inside a reconciler (DESIGN.md principle 5). ``summarize`` returns a
JSON-ready dict; everything in it is a function of the seed except the ``wall`` key, which holds wall-clock
measurements and is kept apart so that outputs can be compared byte for byte.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.gcpause import cyclic_gc_paused
from fakekube.agentsandbox.objects import controller_of

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


def _breakdown(records: list[Any]) -> dict[str, Any]:
    """Total, claim-status count, and counts by resource[/subresource] and by actor of audit entries or
    stale-overwrite records."""
    by_resource = Counter(_key(r.resource, r.subresource) for r in records)
    return {"total": len(records), "claim_status": by_resource[CLAIM_STATUS],
            "by_resource": _counter(by_resource), "by_actor": _counter(Counter(r.actor for r in records))}


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


def pr_filter_counts(conflicts: list[Any]) -> dict[str, int]:
    """409 Conflicts as PR #508's Cloud Logging filter counted them: on ``sandboxclaims/*`` (any subresource),
    and together with ``pods/sandboxclaim-*`` (the pods of cold-created sandboxes, named after their claim)."""
    claims = sum(1 for e in conflicts if e.resource == "sandboxclaims")
    pods = sum(1 for e in conflicts if e.resource == "pods" and (e.name or "").startswith("sandboxclaim-"))
    return {"sandboxclaims": claims, "pr_filter": claims + pods}


def summarize(run: Any) -> dict[str, Any]:
    with cyclic_gc_paused():
        return _summarize(run)


def _summarize(run: Any) -> dict[str, Any]:
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
    scenario = run.scenario.to_dict()
    result: dict[str, Any] = {
        "scenario": run.scenario.name,
        "seed": run.seed,
        "build": run.env.build.name,
        "model": run.env.model.source,
        "strategies": run.strategies.to_dict(),
        "params": scenario["params"],
        "flags": scenario["flags"],
        "conflicts": {**_breakdown(conflicts), **pr_filter_counts(conflicts)},
        "stale_overwrites": _breakdown(stale),
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
    cpu = run.env.manager.cpu
    if cpu is not None:  # the controller process's CPU model (fakekube/sim/cpu.py), when one is on
        stats = cpu.stats()
        result["cpu"] = {"cores": cpu.cores, "cpu_seconds": round(stats["cpu_seconds"], 3),
                         "mean_wait_ms": round(stats["mean_wait"] * 1000, 3),
                         "max_wait_ms": round(stats["max_wait"] * 1000, 3)}
    return result


# -- one claim's audit timeline (the PR's tables) -----------------------------------------------------------

_VERBS = {"create": "CREATE", "update": "UPDATE", "patch": "PATCH", "delete": "DELETE"}


def claim_timeline_entries(run: Any, claim: str) -> list[Any]:
    """The writes that make up one claim's story, as the PR's audit tables show it.

    From the claim's CREATE until the next claim is created (or the run ends): writes to the claim, to the
    sandbox it ends up with (W) and that sandbox's pod, to the replacement sandbox the pool creates right
    after the adoption (R) and R's pod and service, to the claim's per-claim NetworkPolicy, to the warm
    pool's status, and the claim's events.
    """
    entries = [e for e in run.env.store.audit.entries if e.verb in _VERBS]
    start = next((i for i, e in enumerate(entries)
                  if e.verb == "create" and e.resource == "sandboxclaims" and e.name == claim), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(entries))
                if entries[i].verb == "create" and entries[i].resource == "sandboxclaims" and entries[i].ok),
               len(entries))
    window = entries[start:end]
    status = (next((c for c in run.env.store.objects(keys.CLAIMS, run.scenario.params.namespace)
                    if c["metadata"]["name"] == claim), {}).get("status") or {})
    held = (status.get("sandbox") or {}).get("name")
    adoption = next((i for i, e in enumerate(window) if e.resource == "sandboxes" and e.name == held
                     and e.verb == "update" and e.actor == keys.CLAIM_ACTOR and e.ok), None)
    replacement = None
    if adoption is not None:
        replacement = next((e.name for e in window[adoption:] if e.resource == "sandboxes" and e.verb == "create"
                            and e.actor == keys.WARMPOOL_ACTOR and e.ok), None)
    names_by_resource = {
        "sandboxclaims": {claim},
        "sandboxes": {n for n in (held, replacement) if n},
        "pods": {n for n in (held, replacement) if n},
        "services": {replacement} if replacement else set(),
        "networkpolicies": {f"{claim}-network-policy"},
        "sandboxwarmpools": {run.scenario.params.pool},
    }
    picked = []
    for e in window:
        if e.resource == "events":
            if e.name and e.name.startswith(claim + "."):
                picked.append(e)
        elif e.name in names_by_resource.get(e.resource, ()):
            if e.resource == "sandboxwarmpools" and e.subresource != "status":
                continue
            picked.append(e)
    return picked


def render_timeline(entries: list[Any]) -> str:
    """The PR's table (``| Step | Delta (ms) | Method | Target Resource | Result / Notes |``) plus an Actor column."""
    from fakekube.sim import Timeline

    return Timeline.from_audit(entries, start=entries[0].time if entries else None).to_markdown(actor_column=True)


def timeline_features(entries: list[Any]) -> dict[str, bool]:
    """What the PR's first table shows, checked on a claim's timeline."""
    status_writes = [e for e in entries if e.resource == "sandboxclaims" and e.subresource == "status"]
    return {
        "adoption_update": any(e.resource == "sandboxes" and e.verb == "update" and e.actor == keys.CLAIM_ACTOR
                               and e.ok for e in entries),
        "network_policy_delete_404": any(e.resource == "networkpolicies" and e.verb == "delete" and e.code == 404
                                         for e in entries),
        "event": any(e.resource == "events" for e in entries),
        "replacement_create": any(e.resource == "sandboxes" and e.verb == "create" and e.actor == keys.WARMPOOL_ACTOR
                                  for e in entries),
        "second_status_write_409": len(status_writes) >= 2 and status_writes[0].ok and status_writes[1].conflict,
        "pod_update_409": any(e.resource == "pods" and e.verb == "update" and e.conflict for e in entries),
    }


def timeline_for(run: Any, claim: str | None = None) -> dict[str, Any]:
    """The timeline of ``claim``, or of the first claim whose timeline shows the most of the PR's features."""
    if claim is None:
        best, best_score = None, -1
        for name in run.tracker.claim_created:
            score = sum(timeline_features(claim_timeline_entries(run, name)).values())
            if score > best_score:
                best, best_score = name, score
        claim = best or ""
    entries = claim_timeline_entries(run, claim)
    return {"claim": claim, "features": timeline_features(entries), "table": render_timeline(entries)}


def align_with(run: Any, claim: str, expected: Any) -> dict[str, Any]:
    """One claim's timeline aligned with an expected one (a parsed PR table): the alignment's summary, the
    side-by-side text, and the cadence ratio (fakekube.audit.align with the agent-sandbox story roles)."""
    from fakekube.agentsandbox.roles import story_roles
    from fakekube.audit import Timeline

    entries = claim_timeline_entries(run, claim)
    alignment = Timeline.align(Timeline.from_audit(entries, start=entries[0].time if entries else None),
                               expected, story_roles)
    return {**alignment.summary(), "text": alignment.to_text()}
