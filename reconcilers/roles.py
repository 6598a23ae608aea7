"""What each step of one claim's timeline is, in agent-sandbox terms: the object's role in the story, the
controller that sent the request, the reconcile pass it belongs to, and whose passes its watch event starts.

A PR's table names objects after its own cluster and no actors (``UPDATE sandboxes/warmpool-0-6qkhx``); a
simulated run has other names. Roles make the two comparable (`fakekube.audit.align`) and tell the fitting
(`fakekube.sim.fit`) which gaps are round trips and which are reactions. The rules follow the controllers at
26288535 / 953032b3 (reference notes §2, §2.6 "who writes what", §2.7 "which event enqueues which key"):

- **claim** — ``sandboxclaims/<C>``, the first claim the timeline names;
- **adopted** — the sandbox whose first write is a main-resource UPDATE/PATCH (the claim controller's
  adoption); **claimed** — a sandbox the claim controller creates named after the claim (the cold path);
- **replacement** — the sandbox the warm pool creates after the adoption (a table may show it nameless, as
  a generateName create; its name is the first other sandbox name that follows);
- **adopted-pod**, **replacement-pod**, **adopted-service**, **replacement-service** — named after their
  sandbox; **network-policy**, **event**, **pool** (the warm pool's status) — by resource.

Actors, passes and watch edges (one claim, one pool):

- the claim controller sends the claim's writes, the adoption, the network-policy DELETE and a cold create;
  one pass writes, in this order: claim PATCH (trace) → adoption → DELETE network policy → cold create →
  claim status. For(SandboxClaim) and Owns(Sandbox) start its passes on the claim.
- the sandbox controller sends every other sandbox write (status, the trace and pod-name annotation patches)
  and the pod and service writes; one pass on sandbox X writes: PATCH X (trace) → pod → PATCH X (pod-name) →
  service → X's status. For(Sandbox), Owns(Pod) and Owns(Service) start its passes on X.
- the warm pool creates the replacement and patches its own status (creates → deletes → status); For(pool)
  and Owns(Sandbox) — for the adopted sandbox up to and including the adoption write, whose old object the
  pool still owns — start its passes.
- the claim's events come from its event recorder (an actor of its own: the broadcaster's queue).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fakekube.agentsandbox import keys

CLAIM, ADOPTED, CLAIMED, REPLACEMENT = "claim", "adopted", "claimed", "replacement"
NETWORK_POLICY, EVENT, POOL = "network-policy", "event", "pool"
ROLES = (CLAIM, ADOPTED, CLAIMED, REPLACEMENT, "adopted-pod", "replacement-pod", "claimed-pod", "adopted-service",
         "replacement-service", "claimed-service", NETWORK_POLICY, EVENT, POOL)

EVENTS_ACTOR = f"{keys.CLAIM_ACTOR}/events"
_SANDBOX_ROLES = (ADOPTED, CLAIMED, REPLACEMENT)

# Position of a write in one pass of its controller (rows of a pass come in increasing position).
_CLAIM_PROGRAM = {"trace": 0, "adopt": 1, "network-policy": 2, "create": 3, "status": 4}
_SANDBOX_PROGRAM = {"trace": 0, "pod": 2, "pod-name": 3, "service": 4, "status": 5}
_POOL_PROGRAM = {"create": 1, "delete": 2, "status": 3}


def _sandbox_names(rows: Sequence[Any]) -> tuple[str | None, str | None, str | None, str | None]:
    """(claim, adopted, claimed, replacement) names as the rows show them."""
    claim = next((r.name for r in rows if r.resource == "sandboxclaims" and r.name), None)
    adopted = claimed = replacement = None
    created_at: int | None = None
    for i, r in enumerate(rows):
        if r.resource != "sandboxes":
            continue
        if r.method == "CREATE":
            if claim is not None and r.name == claim:
                claimed = r.name
            elif created_at is None and adopted is not None:
                created_at, replacement = i, r.name  # None for a nameless (generateName) create
            continue
        if adopted is None and r.name and r.name != claim and not r.subresource and r.method in ("UPDATE", "PATCH"):
            adopted = r.name
        elif replacement is None and created_at is not None and r.name not in (None, adopted, claim):
            replacement = r.name
    return claim, adopted, claimed, replacement


def story_roles(rows: Sequence[Any]) -> list[str]:
    """The role of each row (`ROLES`; other objects get ``"<resource>"``)."""
    claim, adopted, claimed, replacement = _sandbox_names(rows)
    by_name = {n: role for n, role in ((adopted, ADOPTED), (claimed, CLAIMED), (replacement, REPLACEMENT)) if n}
    roles = []
    seen_create = False
    for r in rows:
        if r.resource == "sandboxclaims":
            roles.append(CLAIM if r.name == claim else "sandboxclaims")
        elif r.resource == "sandboxes":
            if r.method == "CREATE" and not seen_create and adopted is not None and r.name != claim:
                seen_create = True
                roles.append(REPLACEMENT)
            else:
                roles.append(by_name.get(r.name or "", "sandboxes"))
        elif r.resource in ("pods", "services") and r.name in by_name:
            roles.append(f"{by_name[r.name]}-{'pod' if r.resource == 'pods' else 'service'}")
        elif r.resource == "networkpolicies":
            roles.append(NETWORK_POLICY)
        elif r.resource == "events":
            roles.append(EVENT)
        elif r.resource == "sandboxwarmpools":
            roles.append(POOL)
        else:
            roles.append(r.resource)
    return roles


class StepInfo:
    """Who sent a step, the pass it belongs to, and whose passes its watch event starts (see the module)."""

    __slots__ = ("actor", "key", "position", "enqueues", "emitted_by")

    def __init__(self, actor: str | None, key: str | None, position: int | None,
                 enqueues: tuple[tuple[str, str], ...], emitted_by: int | None = None) -> None:
        self.actor = actor
        self.key = key
        self.position = position
        self.enqueues = enqueues
        self.emitted_by = emitted_by  # for an event: the row whose write emitted it (adoption, cold create)

    def __repr__(self) -> str:
        return f"StepInfo({self.actor!r}, {self.key!r}, {self.position!r}, {self.enqueues!r}, {self.emitted_by!r})"


def describe_steps(rows: Sequence[Any]) -> list[StepInfo]:
    """Actor, pass key, pass position and watch edges of each row of one claim's story (module docstring)."""
    claim, adopted, claimed, replacement = _sandbox_names(rows)
    roles = story_roles(rows)
    names = {ADOPTED: adopted, CLAIMED: claimed, REPLACEMENT: replacement}
    pool = next((r.name for r in rows if r.resource == "sandboxwarmpools" and r.name), "pool")
    adoption_done = False
    emitter: int | None = None  # the last write that emits a claim event (SandboxAdopted, SandboxProvisioned)
    last_sandbox_position: dict[str, int] = {}
    out: list[StepInfo] = []
    for i, (r, role) in enumerate(zip(rows, roles, strict=True)):
        ok = r.code is None or 200 <= r.code < 300  # a table's colour-only row is a success when green
        if r.code is None and r.colour:
            ok = r.colour == "🟢"
        main = not r.subresource
        info: StepInfo
        if role == CLAIM:
            position = _CLAIM_PROGRAM["status" if r.subresource == "status" else "trace"]
            info = StepInfo(keys.CLAIM_ACTOR, claim, position, ((keys.CLAIM_ACTOR, claim or ""),) if ok else ())
        elif role == NETWORK_POLICY:
            info = StepInfo(keys.CLAIM_ACTOR, claim, _CLAIM_PROGRAM["network-policy"], ())
        elif role == EVENT:
            info = StepInfo(EVENTS_ACTOR, None, None, (), emitter)
        elif role == POOL:
            info = StepInfo(keys.WARMPOOL_ACTOR, pool, _POOL_PROGRAM["status"], ((keys.WARMPOOL_ACTOR, pool),) if ok else ())
        elif role in _SANDBOX_ROLES:
            name = names[role] or r.name or ""
            owner_edges: list[tuple[str, str]] = [(keys.SANDBOX_ACTOR, name)]
            if role == REPLACEMENT:
                owner_edges.append((keys.WARMPOOL_ACTOR, pool))
            elif role == ADOPTED:
                if not adoption_done:
                    owner_edges.append((keys.WARMPOOL_ACTOR, pool))  # the adoption's old object: the pool's
                owner_edges.append((keys.CLAIM_ACTOR, claim or ""))
            else:
                owner_edges.append((keys.CLAIM_ACTOR, claim or ""))
            if role == ADOPTED and main and not adoption_done and r.method in ("UPDATE", "PATCH"):
                adoption_done, emitter = True, i
                info = StepInfo(keys.CLAIM_ACTOR, claim, _CLAIM_PROGRAM["adopt"], tuple(owner_edges) if ok else ())
            elif r.method == "CREATE" and role == REPLACEMENT:
                info = StepInfo(keys.WARMPOOL_ACTOR, pool, _POOL_PROGRAM["create"], tuple(owner_edges) if ok else ())
            elif r.method == "CREATE" and role == CLAIMED:
                emitter = i
                info = StepInfo(keys.CLAIM_ACTOR, claim, _CLAIM_PROGRAM["create"], tuple(owner_edges) if ok else ())
            else:
                if main:
                    step = "pod-name" if last_sandbox_position.get(name) == _SANDBOX_PROGRAM["pod"] else "trace"
                else:
                    step = "status"
                position = _SANDBOX_PROGRAM[step]
                last_sandbox_position[name] = position
                info = StepInfo(keys.SANDBOX_ACTOR, name, position, tuple(owner_edges) if ok else ())
        elif role.endswith("-pod") or role.endswith("-service"):
            sandbox = names.get(role.rsplit("-", 1)[0]) or r.name or ""
            position = _SANDBOX_PROGRAM["pod" if role.endswith("-pod") else "service"]
            last_sandbox_position[sandbox] = position
            info = StepInfo(keys.SANDBOX_ACTOR, sandbox, position, ((keys.SANDBOX_ACTOR, sandbox),) if ok else ())
        else:
            info = StepInfo(None, None, None, ())
        out.append(info)
    return out
