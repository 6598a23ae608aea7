"""Targeted holds: Sieve's "unobserved state", made deterministic.

A :class:`HoldRule` watches the store's commits. When a write matching it commits (resource, name pattern,
event type, who wrote it), the rule holds back one manager's informer for that resource, using the
informer's own ``hold()`` / ``release()`` (or ``serve_stale()`` / ``clear_stale()``), until a release
condition holds: :class:`AfterWrite` (another write is answered — by default the next committed write to
the same object) or :class:`AfterTime` (virtual seconds pass), whichever comes first. So a stale read that a
search would find in a few seeds out of hundreds is forced in every seed.

Two modes:

- ``mode="hold"`` (default): the informer's watch stream stalls from the matching commit on: its cache stays
  as it was and its handlers are not called; on release the backlog is delivered in order. Events already on
  their way to that cache are held too — a watch stream is ordered, and nothing can overtake the held event —
  so this is a state a real, lagging informer can be in.
- ``mode="stale"``: only reads of the matching object lie: the cache keeps serving the copy it had before the
  commit while events (and handler calls) flow. Stronger than any real lag (the controller is notified of a
  state its reads do not show, and is not notified again on release), so use it to probe, not to prove.

Holds show in the audit log as notes on the write that started and the write that ended them (so timelines
render them), and in :attr:`Holds.log`.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakekube.watch import ADDED, DELETED, MODIFIED

if TYPE_CHECKING:
    from fakekube.audit import AuditEntry
    from fakekube.sim import Informer, Simulation

EVENT_TYPES = (ADDED, MODIFIED, DELETED)
MODES = ("hold", "stale")


def _glob(pattern: str | None, value: str | None) -> bool:
    return pattern is None or fnmatch.fnmatchcase(value or "", pattern)


def _subresource(pattern: str | None, value: str | None) -> bool:
    """``"*"``: any (the object or a subresource); ``None`` or ``""``: the object itself; else that one."""
    if pattern == "*":
        return True
    return (pattern or "") == (value or "")


def _resource(pattern: str, entry: AuditEntry) -> bool:
    return pattern in (entry.resource, f"{entry.resource}.{entry.group}" if entry.group else entry.resource)


@dataclass(frozen=True)
class AfterWrite:
    """Release once ``count`` writes like this one have been answered after the hold began.

    ``resource`` / ``name`` default to the held object's; ``name``, ``actor`` are globs; ``subresource="*"``
    matches the object and its subresources. ``committed=False`` also counts rejected writes (a 409).
    """

    resource: str | None = None
    name: str | None = None
    subresource: str | None = "*"
    verb: str | None = None
    actor: str | None = None
    committed: bool = True
    count: int = 1

    def matches(self, entry: AuditEntry, held: Target) -> bool:
        if not entry.is_write or (self.committed and not entry.ok):
            return False
        if self.resource is None:
            if entry.resource != held.resource:
                return False
        elif not _resource(self.resource, entry):
            return False
        name = held.name if self.name is None else self.name
        return (fnmatch.fnmatchcase(entry.name or "", name) and _subresource(self.subresource, entry.subresource)
                and (self.verb is None or entry.verb == self.verb) and _glob(self.actor, entry.actor))

    def describe(self) -> str:
        what = "write" if self.committed else "write attempt"
        if self.resource is None and self.name is None:
            target = "to the held object"
        else:
            target = "to " + "/".join((self.resource or "(held resource)", self.name or "(held name)"))
        sub = "" if self.subresource == "*" else f" /{self.subresource or '-'}"
        who = f" by {self.actor}" if self.actor else ""
        times = f" x{self.count}" if self.count != 1 else ""
        return f"{what} {target}{sub}{who}{times}"


@dataclass(frozen=True)
class AfterTime:
    """Release after ``seconds`` of virtual time."""

    seconds: float

    def __post_init__(self) -> None:
        if self.seconds < 0:
            raise ValueError("AfterTime needs seconds >= 0")

    def describe(self) -> str:
        return f"{self.seconds:g}s"


Condition = AfterWrite | AfterTime


@dataclass(frozen=True)
class Target:
    resource: str
    namespace: str | None
    name: str

    def __str__(self) -> str:
        return "/".join(p for p in (self.resource, self.namespace, self.name) if p)


@dataclass(frozen=True)
class HoldRule:
    """Hold back ``manager``'s informer of ``resource`` when a matching write commits.

    Match: ``resource`` (plural, or plural.group), ``name`` (glob), ``namespace``, ``events`` (the watch event
    the write makes: ADDED, MODIFIED, DELETED, or ``"*"``), ``writer`` (glob on the writing actor),
    ``subresource`` of the write (``"*"``: any). ``skip`` matching commits are let through first; the rule
    holds ``times`` times (None: whenever it matches and is not holding already).
    """

    resource: str
    name: str = "*"
    namespace: str | None = None
    events: tuple[str, ...] | str = (MODIFIED,)
    writer: str | None = None
    subresource: str | None = "*"
    manager: str = "*"
    until: tuple[Condition, ...] | Condition = (AfterTime(1.0),)
    mode: str = "hold"
    times: int | None = 1
    skip: int = 0

    def __post_init__(self) -> None:
        events = (self.events,) if isinstance(self.events, str) else tuple(self.events)
        if events == ("*",):
            events = EVENT_TYPES
        unknown = [e for e in events if e not in EVENT_TYPES]
        if unknown or not events:
            raise ValueError(f"hold events must be among {', '.join(EVENT_TYPES)} or '*', not {unknown or events}")
        until = (self.until,) if isinstance(self.until, AfterWrite | AfterTime) else tuple(self.until)
        if not until:
            raise ValueError("a hold needs at least one release condition (AfterWrite, AfterTime)")
        if self.mode not in MODES:
            raise ValueError(f"hold mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.mode == "stale" and ADDED in events:
            raise ValueError("mode='stale' pins an object's previous copy; an ADDED object has none (use 'hold')")
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "until", until)

    def matches(self, entry: AuditEntry, event: str, namespace: str | None, name: str) -> bool:
        return (event in self.events and _resource(self.resource, entry) and fnmatch.fnmatchcase(name, self.name)
                and (self.namespace is None or self.namespace == namespace) and _glob(self.writer, entry.actor)
                and _subresource(self.subresource, entry.subresource))

    def describe(self) -> str:
        target = "/".join(p for p in (self.resource, self.namespace, self.name) if p)
        sub = "" if self.subresource == "*" else f"/{self.subresource or '-'}"
        who = f" by {self.writer}" if self.writer else ""
        extra = "".join(f" {k}={v}" for k, v in (("mode", self.mode), ("times", self.times), ("skip", self.skip))
                        if v != {"mode": "hold", "times": 1, "skip": 0}[k])
        return (f"hold({target}{sub} {'+'.join(self.events)}{who} in {self.manager} until "
                f"{' | '.join(c.describe() for c in self.until)}{extra})")

    @classmethod
    def parse(cls, text: str) -> HoldRule:
        """The CLI's ``--hold``: ``resource=sandboxclaims,name=sandboxclaim-*,writer=sandboxclaim-controller,
        manager=agent-sandbox-controller,until=write@sandboxclaim-controller|1s``.

        ``until`` items, ``|``-separated: ``Ns`` (AfterTime), ``write`` (the next committed write to the held
        object), ``write@ACTOR``, ``attempt`` / ``attempt@ACTOR`` (rejected writes count too).
        """
        values: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or key not in cls.__dataclass_fields__ or key in values:
                raise ValueError(f"bad hold spec {text!r}: expected key=value pairs with keys "
                                 f"{', '.join(cls.__dataclass_fields__)}")
            value = value.strip()
            if key in ("times", "skip"):
                values[key] = None if value == "none" and key == "times" else int(value)
            elif key == "events":
                values[key] = tuple(value.split("+"))
            elif key == "until":
                values[key] = tuple(_parse_condition(c.strip()) for c in value.split("|"))
            else:
                values[key] = value
        if "resource" not in values:
            raise ValueError(f"bad hold spec {text!r}: resource= is required")
        return cls(**values)


def _parse_condition(text: str) -> Condition:
    if text.endswith("s") and text[:-1].replace(".", "", 1).isdigit():
        return AfterTime(float(text[:-1]))
    kind, _, actor = text.partition("@")
    if kind not in ("write", "attempt"):
        raise ValueError(f"bad hold release condition {text!r}: use Ns, write[@ACTOR] or attempt[@ACTOR]")
    return AfterWrite(actor=actor or None, committed=kind == "write")


@dataclass
class HoldEvent:
    """One line of :attr:`Holds.log`."""

    time: float
    rule: int
    action: str  # "hold" or "release"
    target: str
    managers: list[str]
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"time": round(self.time, 6), "rule": self.rule, "action": self.action, "target": self.target,
                "managers": self.managers, "why": self.why}


@dataclass
class _Hold:
    rule_index: int
    rule: HoldRule
    seq: int
    target: Target
    informers: list[tuple[str, Informer]]
    counts: list[int] = field(default_factory=list)
    released: bool = False


class Holds:
    """The hold rules of one simulation: a store commit hook (triggers) and an audit listener (releases)."""

    def __init__(self, sim: Simulation, rules: tuple[HoldRule, ...]) -> None:
        self.sim = sim
        self.rules = rules
        self.log: list[HoldEvent] = []
        self._matched = [0] * len(rules)
        self._fired = [0] * len(rules)
        self._active: list[_Hold] = []
        self._held: dict[int, int] = {}  # id(informer) → holds in force
        self._pinned: dict[tuple[int, str | None, str], int] = {}
        sim.store.commit_hooks.append(self._on_commit)
        sim.audit.subscribe(self._on_request)

    @property
    def active(self) -> int:
        return len(self._active)

    # -- triggers -------------------------------------------------------------------------------------

    def _on_commit(self, entry: AuditEntry, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        event = ADDED if old is None else DELETED if new is None else MODIFIED
        meta = (new if new is not None else old or {}).get("metadata") or {}
        namespace, name = meta.get("namespace") or None, meta.get("name") or ""
        for index, rule in enumerate(self.rules):
            if not rule.matches(entry, event, namespace, name):
                continue
            if (rule.times is not None and self._fired[index] >= rule.times) \
                    or any(h.rule_index == index for h in self._active):
                continue
            self._matched[index] += 1
            if self._matched[index] <= rule.skip:
                continue
            self._start(index, rule, entry, Target(entry.resource, namespace, name))

    def _start(self, index: int, rule: HoldRule, entry: AuditEntry, target: Target) -> None:
        key = f"{entry.resource}.{entry.group}"
        # (an Informer has a length: an empty cache is falsy, hence the explicit None test)
        informers = [(mgr.name, informer) for mgr in self.sim.managers.values()
                     if fnmatch.fnmatchcase(mgr.name, rule.manager)
                     and (informer := mgr.informers.get(key)) is not None]
        if rule.mode == "stale":
            informers = [(m, i) for m, i in informers if i.get_raw(target.namespace, target.name) is not None]
        if not informers:
            return  # no cache of that kind (yet): nothing to hold back
        self._fired[index] += 1
        hold = _Hold(index, rule, entry.seq, target, informers, [0] * len(rule.until))
        for _, informer in informers:
            if rule.mode == "hold":
                self._held[id(informer)] = self._held.get(id(informer), 0) + 1
                informer.hold()
            else:
                pin = (id(informer), target.namespace, target.name)
                if not self._pinned.get(pin):
                    informer.serve_stale(informer.get_raw(target.namespace, target.name))  # type: ignore[arg-type]
                self._pinned[pin] = self._pinned.get(pin, 0) + 1
        self._active.append(hold)
        managers = [m for m, _ in informers]
        entry.notes.append(f"{rule.mode} {'+'.join(managers)} cache (rule {index + 1})")
        self.log.append(HoldEvent(self.sim.now, index + 1, "hold", str(target), managers))
        for condition in rule.until:
            if isinstance(condition, AfterTime):
                self.sim.call_later(condition.seconds,
                                    lambda h=hold, c=condition: self._release(h, f"after {c.describe()}"))

    # -- releases -------------------------------------------------------------------------------------

    def _on_request(self, entry: AuditEntry) -> None:
        if not self._active or not entry.is_write:
            return
        for hold in list(self._active):
            if entry.seq <= hold.seq:
                continue
            for i, condition in enumerate(hold.rule.until):
                if isinstance(condition, AfterWrite) and condition.matches(entry, hold.target):
                    hold.counts[i] += 1
                    if hold.counts[i] >= condition.count:
                        entry.notes.append(f"released {'+'.join(m for m, _ in hold.informers)} cache "
                                           f"(rule {hold.rule_index + 1})")
                        self._release(hold, f"{condition.describe()} (#{entry.seq})")
                        break

    def _release(self, hold: _Hold, why: str) -> None:
        if hold.released:
            return
        hold.released = True
        self._active.remove(hold)
        target = hold.target
        for _, informer in hold.informers:
            if hold.rule.mode == "hold":
                left = self._held[id(informer)] - 1
                self._held[id(informer)] = left
                if left == 0:
                    informer.release()
            else:
                pin = (id(informer), target.namespace, target.name)
                self._pinned[pin] -= 1
                if self._pinned[pin] == 0:
                    informer.clear_stale(target.namespace, target.name)
        self.log.append(HoldEvent(self.sim.now, hold.rule_index + 1, "release", str(target),
                                  [m for m, _ in hold.informers], why))
