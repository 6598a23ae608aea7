"""``fakekube fit``: estimate a cluster model's timing from evidence — a PR-style timeline or an audit log.

The estimates are medians and quartiles of gaps, each gap chosen for what it measures (docs/simulation.md,
"Fitting a model", has the reasoning and PR #508's numbers). Nothing here runs a simulation: the model is read
off the evidence, never searched for so that a simulation reproduces a count.

**A timeline** (one story, one timestamp per request — PR #508's tables, Delta since step 1). Its timestamps
are taken as the moments the requests completed. A ``describe`` function (for agent-sandbox,
``fakekube.agentsandbox.roles.describe_steps``) says for each row which controller sent it, the reconcile key of its
pass, its position in the pass, and whose passes its watch event starts.

1. *Round trips.* Two consecutive rows of one controller on one key, the second later in the pass than the
   first, are two requests of one pass: the gap is the second request's round trip (the pass's own work
   between requests is negligible next to it). Each request class (``<verb> <resource>[/<subresource>]``) gets
   a uniform distribution over the interquartile range of its gaps (one gap: that value); a verb's class
   medians give the verb's fallback (their median), and all class medians the default.
2. *Reaction.* A row that starts a pass was triggered by the earliest successful write, after the controller's
   previous pass on that key, whose event starts that pass. The gap from it, minus the round trip of the
   row's class, is the reaction: the watch stream's transport delay plus the informer's handling, less the
   trigger's response leg. Its median (over rows whose class has a measured round trip) is the reaction
   estimate; rows of classes seen only as pass starts give those classes' round trips (median gap minus the
   reaction). Passes started by the controller's own write on the key are left out of both: such a pass may
   be a dirty re-queue, started when the pass before it ended rather than when the event arrived.
3. *Watch delay.* Each reaction plus its trigger's response leg (``1 - commit_at`` of the trigger's round
   trip) is a transport delay; the model's is uniform over their interquartile range. The informer's handling
   cost cannot be told apart from it in a timeline of one story (the consumer is idle), so it is 0.
4. *Events.* An event row is posted by the broadcaster after the write that emitted it: gap minus the round
   trip of an event create is the broadcaster's delay (0 when negative).
5. *Kubelet.* The kubelet's writes are not in such a timeline; the pod's controller reacting to them is. After
   a pod's create, a pass of its controller with no visible trigger (gap minus round trip minus reaction more
   than the reaction's spread) was started by a kubelet write committed one reaction before it, and a 409 on
   the pod means a kubelet write committed between that pass's read and its PUT. Writes after the owner's
   last status write changed nothing it reports and are dropped. The first write is the binding, the last the
   one that made the pod Running and Ready (no readiness probe: one write); the step between is the
   kubelet's own reaction to the binding.

``commit_at`` (where the commit falls in a round trip) is not visible in one timestamp per request; it is a
parameter (default 0.9: an API server write spends most of its time in admission and the etcd commit before
it answers).

**An audit log** (kube-apiserver's, ``fakekube.audit.native``): round trips are ``stageTimestamp`` minus
``requestReceivedTimestamp`` (server time; the network legs are not logged); the reaction is the gap between
a write's completion and the next request, received after it, of each actor that watches the object's
resource (an actor that issued a WATCH of it); kubelet phases are the gaps between a pod's create, its
binding and the kubelet's ``pods/status`` writes.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .lag import Lag
from .latency import RequestLatency
from .model import ClusterModel

DEFAULT_COMMIT_AT = 0.9
_MS = 1000.0


@dataclass
class Observation:
    """One request as the source shows it (seconds)."""

    step: int
    time: float  # completion
    verb: str
    resource: str
    name: str | None = None
    subresource: str | None = None
    code: int | None = None
    ok: bool = True
    actor: str | None = None
    key: str | None = None
    position: int | None = None
    enqueues: tuple[tuple[str, str], ...] = ()
    emitted_by: int | None = None  # index of the row whose write emitted this event
    received: float | None = None

    @property
    def request_class(self) -> str:
        return f"{self.verb} {self.resource}" + (f"/{self.subresource}" if self.subresource else "")


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0], ordered[0], ordered[0]
    q1, q2, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return q1, q2, q3


def iqr_lag(values: Sequence[float]) -> Lag:
    """Uniform over the interquartile range (one value: fixed), never negative; seconds."""
    q1, _, q3 = _quartiles(values)
    q1, q3 = max(q1, 0.0), max(q3, 0.0)
    return Lag.fixed(round(q1, 6)) if q1 == q3 else Lag.uniform(round(q1, 6), round(q3, 6))


def as_ms(values: Sequence[float]) -> list[float]:
    return [round(v * _MS, 3) for v in values]


@dataclass
class _Pass:
    actor: str
    key: str
    rows: list[int] = field(default_factory=list)


class TimelineFit:
    """The estimate from one story's timeline (module docstring, steps 1–5); ``model`` is the result."""

    def __init__(self, obs: Sequence[Observation], *, commit_at: float = DEFAULT_COMMIT_AT, source: str = "") -> None:
        self.obs = list(obs)
        self.commit_at = commit_at
        self.source = source
        self.passes: list[_Pass] = []
        self.in_pass: dict[str, list[float]] = {}
        self._segment()
        self.round_trip: dict[str, float] = {c: statistics.median(v) for c, v in self.in_pass.items()}
        self.reactions: list[dict[str, Any]] = self._reactions()
        self.reaction, self.reaction_spread = self._reaction_estimate()
        self.start_only: dict[str, list[float]] = self._start_only_classes()
        for cls, values in self.start_only.items():
            self.round_trip[cls] = statistics.median(values)
        self.transport = self._transport()
        self.event_delay = self._event_delay()
        self.kubelet = self._kubelet()

    # -- 1. passes and round trips ------------------------------------------------------------------------

    def _segment(self) -> None:
        open_pass: dict[tuple[str, str], _Pass] = {}
        for i, o in enumerate(self.obs):
            if o.actor is None or o.key is None or o.position is None:
                continue
            k = (o.actor, o.key)
            current = open_pass.get(k)
            if current is not None:
                last = self.obs[current.rows[-1]]
                assert last.position is not None
                later = o.position > last.position or (o.position == last.position and o.verb == "create")
                if later:
                    current.rows.append(i)
                    self.in_pass.setdefault(o.request_class, []).append(o.time - last.time)
                    continue
            current = open_pass[k] = _Pass(o.actor, o.key, [i])
            self.passes.append(current)

    def _class_rt(self, cls: str) -> float | None:
        return self.round_trip.get(cls)

    def verb_round_trip(self, verb: str) -> float | None:
        medians = [m for c, m in self.round_trip.items() if c.split(" ", 1)[0] == verb]
        return statistics.median(medians) if medians else None

    def default_round_trip(self) -> float:
        medians = list(self.round_trip.values())
        return statistics.median(medians) if medians else 0.0

    def rt_for(self, cls: str) -> float:
        """The round trip the model gives a class: its own, else its verb's, else the default."""
        own = self._class_rt(cls)
        if own is not None:
            return own
        verb = self.verb_round_trip(cls.split(" ", 1)[0])
        return verb if verb is not None else self.default_round_trip()

    # -- 2. reactions -------------------------------------------------------------------------------------

    def _reactions(self) -> list[dict[str, Any]]:
        out = []
        previous_end: dict[tuple[str, str], float] = {}
        for p in self.passes:
            start = self.obs[p.rows[0]]
            k = (p.actor, p.key)
            since = previous_end.get(k)
            previous_end[k] = self.obs[p.rows[-1]].time
            trigger = next((j for j, w in enumerate(self.obs)
                            if w.ok and k in w.enqueues and w.time < start.time
                            and (since is None or w.time >= since)), None)
            if trigger is None:
                continue
            w = self.obs[trigger]
            out.append({"row": p.rows[0], "trigger": trigger, "gap": start.time - w.time,
                        "class": start.request_class, "own": (w.actor, w.key) == k})
        return out

    def _measures(self, r: dict[str, Any]) -> bool:
        """A pass started by the controller's own write on the key may be a dirty re-queue (it starts when the
        pass before it ends, not when the write's event arrives), so only other writes measure the reaction."""
        return not r["own"]

    def _reaction_estimate(self) -> tuple[float, float]:
        samples = []
        for r in self.reactions:
            if self._measures(r) and r["class"] in self.in_pass:
                r["reaction"] = r["gap"] - self.in_pass_median(r["class"])
                samples.append(r["reaction"])
        if not samples:
            return 0.0, 0.0
        q1, q2, q3 = _quartiles(samples)
        return q2, q3 - q1

    def spread(self, cls: str) -> float:
        """The interquartile range of a class's round-trip samples (0 for one sample or none)."""
        values = self.in_pass.get(cls) or self.start_only.get(cls) or []
        if len(values) < 2:
            return 0.0
        q1, _, q3 = _quartiles(values)
        return q3 - q1

    def in_pass_median(self, cls: str) -> float:
        return statistics.median(self.in_pass[cls])

    def _start_only_classes(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for r in self.reactions:
            if self._measures(r) and r["class"] not in self.in_pass:
                out.setdefault(r["class"], []).append(r["gap"] - self.reaction)
        return out

    # -- 3. watch delay -------------------------------------------------------------------------------------

    def _transport(self) -> list[float]:
        out = []
        for r in self.reactions:
            if "reaction" in r:
                trigger = self.obs[r["trigger"]]
                out.append(r["reaction"] + (1 - self.commit_at) * self.rt_for(trigger.request_class))
        return out

    # -- 4. events ------------------------------------------------------------------------------------------

    def _event_delay(self) -> list[float]:
        out = []
        for o in self.obs:
            if o.emitted_by is None:
                continue
            gap = o.time - self.obs[o.emitted_by].time
            out.append(max(0.0, gap - self.rt_for(o.request_class)))
        return out

    # -- 5. kubelet -----------------------------------------------------------------------------------------

    def _kubelet(self) -> dict[str, Any]:
        """Times (commits, seconds) of the kubelet writes the pod's controller reacted to, per created pod."""
        f = self.commit_at
        found: dict[str, Any] = {}
        reactions = {r["row"]: r for r in self.reactions}
        for i, create in enumerate(self.obs):
            if create.verb != "create" or create.resource != "pods" or not create.ok or create.key is None:
                continue
            owner = (create.actor, create.key)
            created = create.time - (1 - f) * self.rt_for(create.request_class)
            writes: list[float] = []
            for p in self.passes:
                first = p.rows[0]
                if (p.actor, p.key) != owner or first <= i:
                    continue
                start = self.obs[first]
                rt = self.rt_for(start.request_class)
                kubelet_at = start.time - rt - self.reaction
                r = reactions.get(first)
                # Explained by the visible trigger unless later than the spreads of the reaction and of the
                # class's round trip allow.
                tolerance = max(self.reaction_spread + self.spread(start.request_class), 0.005)
                visible = r is not None and r["gap"] - rt - self.reaction <= tolerance
                if not visible:
                    writes.append(kubelet_at)
            for j in range(i + 1, len(self.obs)):
                o = self.obs[j]
                if o.resource == "pods" and o.name == create.name and o.code == 409:
                    rt = self.rt_for(o.request_class)
                    window = (o.time - rt - self.reaction, o.time - (1 - f) * rt)
                    writes.append(sum(window) / 2)
            # A kubelet write the controller answered without changing the status it reports is no phase it
            # saw: keep the writes up to the owner's last status write.
            reported = [o.time for o in self.obs[i + 1:] if (o.actor, o.key) == owner and o.subresource == "status"
                        and o.ok]
            if reported:
                writes = [w for w in writes if w <= reported[-1]]
            writes.sort()
            if writes:
                found[create.name or f"row {create.step}"] = {"created": created, "writes": writes}
        return found

    # -- the model ------------------------------------------------------------------------------------------

    def latency(self) -> RequestLatency:
        classes: dict[str, Lag] = {}
        for cls, values in sorted({**self.in_pass, **self.start_only}.items()):
            classes[cls] = iqr_lag(values)
        for verb in sorted({c.split(" ", 1)[0] for c in classes}):
            rt = self.verb_round_trip(verb)
            if rt is not None and verb not in classes:
                classes[verb] = Lag.fixed(round(rt, 6))
        return RequestLatency(default=Lag.fixed(round(self.default_round_trip(), 6)), classes=classes,
                              commit_at=self.commit_at)

    def kubelet_steps(self) -> dict[str, Lag]:
        """pod_* delays (sleeps before each kubelet write) from the writes found, in the kubelet's order."""
        if not self.kubelet:
            return {}
        f = self.commit_at
        rt_bind = self.rt_for("create pods/binding")
        rt_status = self.rt_for("patch pods/status")
        transport = statistics.median(self.transport) if self.transport else self.reaction
        scheduled, running = [], []
        for pod in self.kubelet.values():
            writes = pod["writes"]
            if len(writes) >= 2:
                bound = writes[0]
                # The scheduler (the kubelet actor here) sees the new pod through its watch first.
                scheduled.append(bound - pod["created"] - transport - f * rt_bind)
                initialized_at = bound + (1 - f) * rt_bind + transport + f * rt_status
                running.append(writes[-1] - initialized_at - rt_status)
            else:
                running.append(writes[0] - pod["created"] - 2 * transport - rt_bind - 2 * rt_status)
        steps = {"pod_initialized": Lag.fixed(round(max(transport, 0.0), 6)),
                 "pod_containers_ready": Lag.zero(), "pod_ready": Lag.zero()}
        if scheduled:
            steps["pod_scheduled"] = iqr_lag([max(v, 0.0) for v in scheduled])
        steps["pod_running"] = iqr_lag([max(v, 0.0) for v in running])
        return steps

    def model(self) -> ClusterModel:
        transport = iqr_lag(self.transport) if self.transport else Lag.fixed(round(max(self.reaction, 0.0), 6))
        events = iqr_lag(self.event_delay) if self.event_delay else Lag.zero()
        return ClusterModel(latency=self.latency(), cache_lag=transport, handling=Lag.zero(), event_delay=events,
                            source=self.source, derivation=self.derivation(), **self.kubelet_steps())

    def derivation(self) -> dict[str, Any]:
        """The samples behind each estimate, in milliseconds (kept in the model's JSON)."""
        def row(i: int) -> str:
            o = self.obs[i]
            return f"{o.step}"

        return {
            "method": "timeline (fakekube.sim.fit: round trips from in-pass gaps, reaction from pass starts)",
            "commit_at": self.commit_at,
            "round_trip_ms": {c: as_ms(v) for c, v in sorted(self.in_pass.items())},
            "round_trip_from_reactions_ms": {c: as_ms(v) for c, v in sorted(self.start_only.items())},
            "reactions": [{"step": row(r["row"]), "trigger": row(r["trigger"]), "gap_ms": round(r["gap"] * _MS, 3),
                           **({"own": True} if r["own"] else {}),
                           **({"reaction_ms": round(r["reaction"] * _MS, 3)} if "reaction" in r else {})}
                          for r in self.reactions],
            "reaction_ms": round(self.reaction * _MS, 3),
            "transport_ms": as_ms(self.transport),
            "event_delay_ms": as_ms(self.event_delay),
            "kubelet_writes_ms": {pod: {"created": round(v["created"] * _MS, 3), "writes": as_ms(v["writes"])}
                                  for pod, v in self.kubelet.items()},
            "handling": "not identifiable from one story's timeline (the informer is idle): 0",
        }


Describe = Callable[[Sequence[Any]], Sequence[Any]]


def observations_from_rows(rows: Sequence[Any], describe: Describe | None = None) -> list[Observation]:
    """Observations of a parsed timeline's rows (``fakekube.audit.Row``), with ``describe``'s step info."""
    infos = list(describe(rows)) if describe is not None else [None] * len(rows)
    out = []
    for r, info in zip(rows, infos, strict=True):
        if r.time is None:
            raise ValueError(f"step {r.step} has no time (Delta) to fit")
        ok = (200 <= r.code < 300) if r.code is not None else r.colour == "🟢"
        out.append(Observation(
            step=r.step, time=r.time, verb=r.method.lower(), resource=r.resource, name=r.name,
            subresource=r.subresource, code=r.code, ok=ok, actor=getattr(info, "actor", None) or r.actor,
            key=getattr(info, "key", None), position=getattr(info, "position", None),
            enqueues=tuple(getattr(info, "enqueues", ()) or ()), emitted_by=getattr(info, "emitted_by", None)))
    return out


def fit_timeline(rows: Sequence[Any], describe: Describe | None = None, *, commit_at: float = DEFAULT_COMMIT_AT,
                 source: str = "") -> ClusterModel:
    """The cluster model a PR-style timeline implies (module docstring)."""
    return TimelineFit(observations_from_rows(rows, describe), commit_at=commit_at, source=source).model()



def fit_audit_log(text: str, *, commit_at: float = DEFAULT_COMMIT_AT, source: str = "") -> tuple[ClusterModel, list[str]]:
    """The cluster model an audit log implies, and the reader's problems (`fakekube.sim.fitlog`)."""
    from .fitlog import fit_audit_log as fit

    return fit(text, commit_at=commit_at, source=source)
