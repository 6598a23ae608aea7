"""One claim's story read from an audit log of the real controllers (``scripts/pr508-run``'s runs), as the PR's
tables show it, for ``Timeline.align`` against them (docs/reproducing-pr-508.md, "The small real run's claim
timeline against the PR's table 1").

`fakekube.agentsandbox.report.claim_timeline_entries` picks the same writes from a simulation, where it knows each
actor and the final state. A real log names one actor for the whole controller manager (its user agent), so the
story is found from the writes themselves: the sandbox the claim holds is the one its logged status names
(RequestResponse bodies), else the first sandbox the controller updates after the claim's create (the adoption);
the replacement is the first sandbox created after the adoption.
"""

from __future__ import annotations

from collections.abc import Iterable

from fakekube.audit import AuditEntry

_WRITES = ("create", "update", "patch", "delete")


def _held_by_status(window: list[AuditEntry], claim: str) -> str | None:
    held = None
    for e in window:
        if e.resource == "sandboxclaims" and e.name == claim and e.ok and isinstance(e.response_object, dict):
            name = ((e.response_object.get("status") or {}).get("sandbox") or {}).get("name")
            held = name or held
    return held


def claim_story(entries: Iterable[AuditEntry], claim: str, pool: str = "warmpool-0") -> list[AuditEntry]:
    """The writes of ``claim``'s story, from its create until the next claim's: the claim's own, the sandbox it
    holds and that sandbox's pod, the replacement sandbox and its pod and service, the claim's network policy, the
    pool's status and the claim's events — the selection of the PR's tables."""
    writes = sorted((e for e in entries if e.verb in _WRITES), key=lambda e: (e.time, e.seq))
    start = next((i for i, e in enumerate(writes)
                  if e.verb == "create" and e.resource == "sandboxclaims" and e.name == claim and e.ok), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(writes))
                if writes[i].verb == "create" and writes[i].resource == "sandboxclaims" and writes[i].ok), len(writes))
    window = writes[start:end]
    held = _held_by_status(window, claim) or next(
        (e.name for e in window if e.resource == "sandboxes" and e.subresource is None and e.ok
         and e.verb in ("update", "patch") and e.name != claim), None)
    adoption = next((i for i, e in enumerate(window) if e.resource == "sandboxes" and e.name == held
                     and e.subresource is None and e.verb in ("update", "patch") and e.ok), None)
    replacement = None
    created = None
    if adoption is not None:
        created = next((i for i in range(adoption, len(window)) if window[i].resource == "sandboxes"
                        and window[i].verb == "create" and window[i].ok and window[i].name != claim), None)
    if created is not None:
        # A generateName create logged at Metadata has no name (objectRef.name is the URL's): the replacement is
        # then the first other sandbox a later write names, as story_roles reads a nameless create in a table.
        replacement = window[created].name or next(
            (e.name for e in window[created:] if e.resource == "sandboxes" and e.name not in (None, held, claim)),
            None)
    names = {"sandboxclaims": {claim}, "sandboxes": {n for n in (held, replacement) if n},
             "pods": {n for n in (held, replacement) if n}, "services": {replacement} if replacement else set(),
             "networkpolicies": {f"{claim}-network-policy"}, "sandboxwarmpools": {pool}}
    picked = []
    for i, e in enumerate(window):
        if i == created:
            picked.append(e)
        elif e.resource == "events":
            if e.name and e.name.startswith(claim + "."):
                picked.append(e)
        elif e.name in names.get(e.resource, ()):
            if e.resource == "sandboxwarmpools" and e.subresource != "status":
                continue
            picked.append(e)
    return picked
