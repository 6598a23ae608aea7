"""One explored run: the context a scenario builds its simulation from, and what the run produced.

A scenario is any callable ``scenario(run) -> result`` that builds a simulation with ``run.simulation()``
(or hands one it built to ``run.attach(sim)``), drives it, and returns whatever its invariants want to look
at. Everything the run is judged on comes from the audit log and the stale-overwrite detector of that
simulation, plus the invariants' predicates — never from instrumenting the controllers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakekube.sim import Simulation, Timeline

from .holds import Holds
from .perturb import Perturbation


class Run:
    """The seed and parameters of one run; builds (and perturbs) its simulation."""

    def __init__(self, seed: int, params: Mapping[str, Any] | None = None,
                 perturbation: Perturbation | None = None) -> None:
        self.seed = seed
        self.params: dict[str, Any] = dict(params or {})
        self.perturbation = perturbation or Perturbation()
        self.sims: list[Simulation] = []
        self.holds: list[Holds] = []

    def simulation(self, **options: Any) -> Simulation:
        """``Simulation(seed=run.seed, **options)`` with the run's perturbation applied."""
        options.setdefault("seed", self.seed)
        return self.attach(Simulation(**options))

    def attach(self, sim: Simulation) -> Simulation:
        """Perturb a simulation built elsewhere (before it has managers) and judge the run on it."""
        if not any(s is sim for s in self.sims):
            holds = self.perturbation.apply(sim)
            if holds is not None:
                self.holds.append(holds)
            self.sims.append(sim)
        return sim

    @property
    def sim(self) -> Simulation:
        if not self.sims:
            raise RuntimeError("the scenario built no simulation through run.simulation() or run.attach()")
        return self.sims[0]

    def param(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)

    def play(self, scenario: Any, invariants: Any = ()) -> RunResult:
        """Run a scenario (registered name, ``module:function`` or callable) as this run, judged by
        ``invariants`` (names or :class:`~fakekube.explore.Invariant` s)."""
        from .explorer import play
        from .registry import REGISTRY

        spec = REGISTRY.get_scenario(scenario)
        spec.check_params(self.params)  # a misspelt grid key is an error, not a silently default run
        return play(spec, self, [REGISTRY.get_invariant(i) for i in invariants])

    def __repr__(self) -> str:
        return f"<Run seed={self.seed} params={self.params} perturbation={self.perturbation.to_dict()}>"


@dataclass(frozen=True)
class ObjectRef:
    """The object a violation is about (``subresource`` when it is about a write to one)."""

    resource: str
    name: str
    namespace: str | None = None
    subresource: str | None = None

    @property
    def path(self) -> str:
        """``resource/name[/subresource]``: how timelines name targets."""
        return "/".join(p for p in (self.resource, self.name, self.subresource) if p)

    def to_dict(self) -> dict[str, Any]:
        return {"resource": self.resource, "namespace": self.namespace, "name": self.name,
                "subresource": self.subresource}

    def __str__(self) -> str:
        return "/".join(p for p in (self.resource, self.namespace, self.name, self.subresource) if p)


@dataclass(frozen=True)
class Violation:
    invariant: str
    message: str
    object: ObjectRef | None = None
    seq: int | None = None  # the audit entry where it happened, when there is one

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "object": self.object.to_dict() if self.object else None, "seq": self.seq}

    def __str__(self) -> str:
        where = f" (#{self.seq})" if self.seq is not None else ""
        return f"{self.invariant}: {self.message}{where}"


class RunResult:
    """A finished run, kept alive: its simulation, the scenario's return value, the violations found."""

    def __init__(self, run: Run, result: Any = None, error: BaseException | None = None) -> None:
        self.run = run
        self.result = result
        self.error = error
        self.checked: dict[str, list[Violation]] = {}

    @property
    def seed(self) -> int:
        return self.run.seed

    @property
    def params(self) -> dict[str, Any]:
        return self.run.params

    @property
    def sim(self) -> Simulation:
        return self.run.sim

    def violations(self, invariant: str | None = None) -> list[Violation]:
        if invariant is not None:
            return list(self.checked.get(invariant, ()))
        return [v for found in self.checked.values() for v in found]

    @property
    def failed(self) -> bool:
        return self.error is not None or any(self.checked.values())

    def timeline_of(self, obj: ObjectRef | str, **options: Any) -> Timeline:
        """Every write to one object (its subresources included), as a PR #508-style timeline."""
        if isinstance(obj, str):
            resource, _, name = obj.partition("/")
            obj = ObjectRef(resource, name.split("/")[0])
        return self.sim.timeline(objects=[f"{obj.resource}/{obj.name}"], **options)


@dataclass
class Outcome:
    """What one run produced, JSON-ready and picklable: a function of (scenario, seed, point) alone."""

    index: int
    seed: int
    point: dict[str, Any]
    conflicts: dict[str, Any] = field(default_factory=dict)
    stale_overwrites: dict[str, Any] = field(default_factory=dict)
    violations: dict[str, list[Violation]] = field(default_factory=dict)
    error: str | None = None
    requests: int = 0
    virtual_seconds: float = 0.0
    holds: int = 0

    @property
    def failed(self) -> bool:
        return self.error is not None or any(self.violations.values())

    def broken(self) -> list[str]:
        """The invariants this run broke (``"error"`` when the run itself failed)."""
        names = [name for name, found in self.violations.items() if found]
        return (["error"] if self.error is not None else []) + names

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed, "point": self.point, "conflicts": self.conflicts,
            "stale_overwrites": self.stale_overwrites,
            "violations": {k: [v.to_dict() for v in found] for k, found in self.violations.items()},
            "error": self.error, "requests": self.requests, "virtual_seconds": self.virtual_seconds,
            "holds": self.holds,
        }

    @classmethod
    def of(cls, index: int, point: Mapping[str, Any], result: RunResult) -> Outcome:
        outcome = cls(index, result.seed, dict(point), violations=dict(result.checked))
        if result.error is not None:
            outcome.error = f"{type(result.error).__name__}: {result.error}"
        if result.run.sims:
            summary = result.sim.summary()  # counts by resource[/subresource] and by actor, from the audit log
            outcome.conflicts = {"total": summary["conflicts"], "by_resource": summary["conflicts_by_resource"],
                                 "by_actor": summary["conflicts_by_actor"]}
            outcome.stale_overwrites = {"total": summary["stale_overwrites"],
                                        "by_resource": summary["stale_by_resource"],
                                        "by_actor": summary["stale_by_actor"]}
            outcome.requests = summary["requests"]
            outcome.virtual_seconds = summary["virtual_seconds"]
            outcome.holds = sum(1 for h in result.run.holds for e in h.log if e.action == "hold")
        return outcome
