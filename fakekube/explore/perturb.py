"""Perturbations: the knobs an exploration turns on a simulation a scenario builds.

A :class:`Perturbation` is applied to a :class:`~fakekube.sim.Simulation` right after it is built and before
the scenario creates its managers (``Run.simulation()`` does both). It changes only the model's parameters —
never the controllers — so a run is still a pure function of (scenario, seed, parameters):

- ``cache_lag_scale``: every manager's watch-stream transport delay (``cache_lag`` and ``per_kind_lag``)
  times this;
- ``handling_scale``: what applying one watch event costs an informer's consumer (``handling``) times this —
  the queueing part of informer lag, which grows with load;
- ``handling``: that cost set to this many seconds per event instead (then scaled by ``handling_scale``) —
  for a model whose handling is 0 (a fitted one: it is not identifiable from one story), which no scale moves;
- ``commit_point``: where the commit falls in a request's round trip, as the fraction spent before it (0: the
  write commits as it is sent and the whole latency is the response leg; 1: the answer comes back at the
  commit instant). With a per-verb ``RequestLatency`` it is its ``commit_at``; with ``api_latency`` /
  ``response_latency`` the mean round trip and each leg's distribution shape are kept;
- ``event_delay_scale``: the event recorders' asynchronous delay times this;
- ``workers``: MaxConcurrentReconciles of controllers, by controller name (shell globs; an int: all of them);
- ``faults``: :class:`Fault` rules installed in the store (fail or delay matching requests);
- ``holds``: :class:`~fakekube.explore.holds.HoldRule` s that hold back one informer's deliveries.

The identity perturbation (``Perturbation()``) leaves a simulation byte for byte as it was.

An asyncio loop made with ``Simulation.asyncio_loop`` (an unchanged asyncio operator's) takes the same two
knobs of a manager's that it has: ``cache_lag_scale`` scales its ``event_lag``, ``commit_point`` sets its
latency's ``commit_at``.

How it is applied: ``Simulation.manager``, ``Simulation.asyncio_loop`` and ``Manager.controller`` are wrapped on
the instance (the
explore layer sits above ``fakekube.sim`` and changes none of its code), and the manager's latency knobs
are replaced by scaled copies before any informer, recorder or request reads them.
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from fakekube.sim import Lag

from .holds import HoldRule, Holds

if TYPE_CHECKING:
    from fakekube.sim import Manager, Simulation


def scale_lag(lag: Lag, factor: float) -> Lag:
    """``lag`` with every duration (and a cap) multiplied by ``factor``; factor 0 is no delay at all."""
    if factor < 0:
        raise ValueError(f"a lag scale cannot be negative: {factor}")
    if factor == 1.0 or lag.is_zero:
        return lag
    if factor == 0.0:
        return Lag.zero()
    return Lag(lag.kind, lag.a * factor, lag.b * factor)


def split_round_trip(request: Lag, response: Lag, commit_point: float) -> tuple[Lag, Lag]:
    """The two legs of a round trip re-split so that ``commit_point`` of its mean comes before the commit."""
    if not 0.0 <= commit_point <= 1.0:
        raise ValueError(f"commit_point must be between 0 and 1, not {commit_point}")
    total = request.mean + response.mean
    if total == 0.0:
        return request, response
    before = request if request.mean > 0 else response
    after = response if response.mean > 0 else request
    return (scale_lag(before, commit_point * total / before.mean),
            scale_lag(after, (1.0 - commit_point) * total / after.mean))


@dataclass(frozen=True)
class Fault:
    """A fault rule for the store (:mod:`fakekube.faults`): fail matching requests with ``code`` and/or delay
    their answers by ``delay`` seconds. Match fields: ``None`` matches anything, ``name``/``actor`` are globs."""

    verb: str | None = None
    resource: str | None = None
    name: str | None = None
    subresource: str | None = None
    actor: str | None = None
    namespace: str | None = None
    code: int | None = None
    delay: float = 0.0
    times: int | None = None
    probability: float = 1.0

    def __post_init__(self) -> None:
        if self.code is None and not self.delay:
            raise ValueError("a fault needs a code, a delay, or both")

    def install(self, sim: Simulation) -> None:
        match = {k: getattr(self, k) for k in ("verb", "resource", "name", "subresource", "actor", "namespace")}
        faults = sim.store.faults
        if self.code is not None:
            faults.fail(self.code, times=self.times, probability=self.probability, **match)
        if self.delay:
            faults.delay(self.delay, times=self.times, probability=self.probability, **match)

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in _non_defaults(self)]
        return "fault(" + ",".join(parts) + ")"

    @classmethod
    def parse(cls, text: str) -> Fault:
        """``verb=patch,resource=sandboxclaims,subresource=status,code=409,times=1`` (the CLI's ``--fault``)."""
        kinds = {"code": int, "times": int, "delay": float, "probability": float}
        return cls(**_parse_pairs(text, cls, kinds))


WorkerCounts = tuple[tuple[str, int], ...]


def _workers(value: int | Mapping[str, int] | WorkerCounts | None) -> WorkerCounts:
    if value is None:
        return ()
    if isinstance(value, int):
        value = {"*": value}
    pairs = tuple(value.items()) if isinstance(value, Mapping) else tuple(value)
    for pattern, count in pairs:
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"worker count for {pattern!r} must be a positive int, not {count!r}")
    return tuple((str(p), int(c)) for p, c in pairs)


@dataclass(frozen=True)
class Perturbation:
    cache_lag_scale: float = 1.0
    handling_scale: float = 1.0
    handling: float | None = None
    commit_point: float | None = None
    event_delay_scale: float = 1.0
    workers: WorkerCounts = ()
    faults: tuple[Fault, ...] = ()
    holds: tuple[HoldRule, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "workers", _workers(self.workers))  # type: ignore[arg-type]
        object.__setattr__(self, "faults", tuple(self.faults))
        object.__setattr__(self, "holds", tuple(self.holds))
        if min(self.cache_lag_scale, self.handling_scale, self.event_delay_scale) < 0:
            raise ValueError("lag scales cannot be negative")
        if self.handling is not None and self.handling < 0:
            raise ValueError(f"a handling cost cannot be negative: {self.handling}")
        if self.commit_point is not None and not 0.0 <= self.commit_point <= 1.0:
            raise ValueError(f"commit_point must be between 0 and 1, not {self.commit_point}")

    @classmethod
    def split(cls, point: Mapping[str, Any]) -> tuple[Perturbation, dict[str, Any]]:
        """A grid point as (its perturbation, the scenario's own parameters)."""
        mine = {k: v for k, v in point.items() if k in PERTURBATION_FIELDS}
        rest = {k: v for k, v in point.items() if k not in PERTURBATION_FIELDS}
        return cls(**mine), rest

    def with_holds(self, *rules: HoldRule) -> Perturbation:
        return replace(self, holds=(*self.holds, *rules))

    @property
    def is_identity(self) -> bool:
        return self == Perturbation()

    def workers_for(self, controller: str, default: int) -> int:
        for pattern, count in self.workers:
            if fnmatch.fnmatchcase(controller, pattern):
                return count
        return default

    # -- applying -------------------------------------------------------------------------------------

    def apply(self, sim: Simulation) -> Holds | None:
        """Perturb ``sim`` (built, no managers yet); returns the hold controller when there are hold rules."""
        if self.is_identity:
            return None
        for fault in self.faults:
            fault.install(sim)
        for mgr in sim.managers.values():
            self._tune(mgr)
        make_manager = sim.manager

        @functools.wraps(make_manager)
        def manager(name: str, **options: Any) -> Manager:
            mgr = make_manager(name, **options)
            self._tune(mgr)
            return mgr

        sim.manager = manager  # type: ignore[method-assign]
        make_loop = sim.asyncio_loop

        @functools.wraps(make_loop)
        def asyncio_loop(name: str = "asyncio", **options: Any) -> Any:
            return make_loop(name, **self._loop_options(options))

        sim.asyncio_loop = asyncio_loop  # type: ignore[method-assign]
        return Holds(sim, self.holds) if self.holds else None

    def _loop_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """An asyncio loop's knobs as a manager's: its watch lag is ``cache_lag``, its latency's ``commit_at``
        the commit point."""
        options = dict(options)
        if self.cache_lag_scale != 1.0 and options.get("event_lag") is not None:
            options["event_lag"] = scale_lag(Lag.coerce(options["event_lag"]), self.cache_lag_scale)
        if self.commit_point is not None and options.get("latency") is not None:
            options["latency"] = replace(options["latency"], commit_at=self.commit_point)
        return options

    def _tune(self, mgr: Manager) -> None:
        if self.cache_lag_scale != 1.0:
            mgr.cache_lag = scale_lag(mgr.cache_lag, self.cache_lag_scale)
            mgr.per_kind_lag = {k: scale_lag(v, self.cache_lag_scale) for k, v in mgr.per_kind_lag.items()}
        if self.handling is not None:
            mgr.handling = Lag.fixed(self.handling)
        if self.handling_scale != 1.0:
            mgr.handling = scale_lag(mgr.handling, self.handling_scale)
        if self.commit_point is not None:
            if mgr.latency is not None:  # one round trip per verb, cut at commit_at
                mgr.latency = replace(mgr.latency, commit_at=self.commit_point)
            else:
                mgr.api_latency, mgr.response_latency = split_round_trip(mgr.api_latency, mgr.response_latency,
                                                                         self.commit_point)
        if self.event_delay_scale != 1.0:
            mgr.event_delay = scale_lag(mgr.event_delay, self.event_delay_scale)
        if self.workers:
            make_controller = mgr.controller

            @functools.wraps(make_controller)
            def controller(name: str, reconcile: Any, workers: int = 1, **options: Any) -> Any:
                return make_controller(name, reconcile, self.workers_for(name, workers), **options)

            mgr.controller = controller  # type: ignore[method-assign]

    # -- describing -----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The non-default knobs, JSON-ready (rules as their one-line descriptions)."""
        out: dict[str, Any] = {}
        for name, value in _non_defaults(self):
            if name == "workers":
                out[name] = dict(value)
            elif name in ("faults", "holds"):
                out[name] = [rule.describe() for rule in value]
            else:
                out[name] = value
        return out


#: The grid keys a perturbation takes; every other key of a grid point is the scenario's own parameter.
PERTURBATION_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Perturbation))


def _non_defaults(obj: Any) -> list[tuple[str, Any]]:
    """(field, value) of a dataclass instance's fields that differ from their defaults, in field order."""
    out = []
    for f in fields(obj):
        if f.default is not MISSING:
            base = f.default
        elif f.default_factory is not MISSING:
            base = f.default_factory()
        else:
            base = MISSING
        value = getattr(obj, f.name)
        if value != base:
            out.append((f.name, value))
    return out


def _parse_pairs(text: str, cls: type, kinds: dict[str, type]) -> dict[str, Any]:
    known = {f.name for f in fields(cls)}
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in known or key in out:
            raise ValueError(f"bad {cls.__name__.lower()} spec {text!r}: expected key=value pairs with keys "
                             f"{', '.join(sorted(known))}")
        out[key] = kinds.get(key, str)(value.strip())
    return out
