"""Running a scenario over seeds × grid points, in one process or many, with the same answer either way.

``explore(scenario, seeds, grid, invariants, jobs=N)`` makes one run per (point, seed), judges each with the
invariants, and returns an :class:`Exploration`. Runs are independent simulations, each a function of its
seed and parameters alone, so they are farmed out to ``jobs`` forked worker processes and the outcomes
put back in run order: the report does not depend on how the work was split. ``replay`` makes one run in
this process and keeps its simulation, for timelines and reproducers.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .grid import Point, grid_points, parse_seeds
from .gridtable import Grid
from .invariants import Invariant
from .perturb import PERTURBATION_FIELDS, Perturbation
from .registry import REGISTRY, Scenario, ScenarioSpec
from .run import Outcome, Run, RunResult

InvariantRef = str | Invariant | Callable[..., Any]
Progress = Callable[[int, int, int], None]  # (runs done, runs in all, failing runs so far)


def make_run(spec: ScenarioSpec, seed: int, point: Mapping[str, Any] | None = None,
             perturbation: Perturbation | None = None) -> Run:
    """The run of ``seed`` at ``point``: the point's perturbation keys over ``perturbation``'s, the rest the
    scenario's parameters."""
    mine = {k: v for k, v in (point or {}).items() if k in PERTURBATION_FIELDS}
    params = {k: v for k, v in (point or {}).items() if k not in PERTURBATION_FIELDS}
    base = perturbation or Perturbation()
    return Run(seed, spec.check_params(params), replace(base, **mine) if mine else base)


def play(spec: ScenarioSpec, run: Run, invariants: Iterable[Invariant] = ()) -> RunResult:
    """Run the scenario and judge it. A scenario that raises is a finding (``result.error``), not a crash."""
    try:
        result = RunResult(run, spec.fn(run))
    except Exception as exc:  # noqa: BLE001 - a failed run is an outcome to report
        return RunResult(run, error=exc)
    for invariant in invariants:
        try:
            result.checked[invariant.name] = invariant.evaluate(result)
        except Exception as exc:  # noqa: BLE001 - a broken predicate must not hide the other runs
            result.error = RuntimeError(f"invariant {invariant.name} failed: {type(exc).__name__}: {exc}")
    return result


def replay(scenario: str | Scenario | ScenarioSpec, seed: int, point: Mapping[str, Any] | None = None, *,
           perturbation: Perturbation | None = None, invariants: Iterable[InvariantRef] | None = None
           ) -> RunResult:
    """One run in this process, its simulation kept: what a reproducer test calls."""
    spec = REGISTRY.get_scenario(scenario)
    return play(spec, make_run(spec, seed, point, perturbation), REGISTRY.invariants_for(spec, invariants))


# -- many runs ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Job:
    spec: ScenarioSpec
    points: list[Point]
    invariants: list[Invariant]
    perturbation: Perturbation

    def __call__(self, task: tuple[int, int, int]) -> Outcome:
        index, point_index, seed = task
        point = self.points[point_index]
        result = play(self.spec, make_run(self.spec, seed, point, self.perturbation), self.invariants)
        return Outcome.of(index, _jsonable(point), result)


_JOB: _Job | None = None  # what forked workers run: set before the pool forks, so closures need no pickling


def _work(task: tuple[int, int, int]) -> Outcome:
    assert _JOB is not None
    return _JOB(task)


def _execute(job: _Job, tasks: list[tuple[int, int, int]], jobs: int) -> Iterator[Outcome]:
    global _JOB
    if jobs <= 1 or len(tasks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        # (without fork — Windows — the runs stay in this process: same outcomes, one core)
        for task in tasks:
            yield job(task)
        return
    _JOB = job
    try:
        ctx = multiprocessing.get_context("fork")
        chunk = max(1, min(8, len(tasks) // (jobs * 8)))
        with ctx.Pool(min(jobs, len(tasks))) as pool:
            yield from pool.imap(_work, tasks, chunksize=chunk)  # imap keeps run order
    finally:
        _JOB = None


def explore(scenario: str | Scenario | ScenarioSpec, seeds: str | int | Iterable[int] | None,
            grid: Mapping[str, Any] | Grid | None = None, *, invariants: Iterable[InvariantRef] | None = None,
            perturbation: Perturbation | None = None, jobs: int = 1, progress: Progress | None = None
            ) -> Exploration:
    """Run ``scenario`` for every seed at every grid point; ``jobs`` worker processes (0: one per CPU).

    ``grid`` is a mapping of keys to values (every combination) or a :class:`Grid` table; ``seeds=None`` takes
    the table's seeds."""
    spec = REGISTRY.get_scenario(scenario)
    table = grid if isinstance(grid, Grid) else None
    if seeds is None:
        if table is None:
            raise ValueError("no seeds to explore (seeds=None takes a Grid table's seeds)")
        seeds = table.seeds
    seed_list = parse_seeds(seeds)
    points = table.points() if table is not None else grid_points(grid)
    chosen = REGISTRY.invariants_for(spec, invariants)
    for point in points:  # bad parameters are an error before anything runs, not 500 failed runs
        make_run(spec, seed_list[0], point, perturbation)
    job = _Job(spec, points, chosen, perturbation or Perturbation())
    tasks = [(i * len(seed_list) + j, i, seed) for i in range(len(points)) for j, seed in enumerate(seed_list)]
    if jobs == 0:
        jobs = multiprocessing.cpu_count()
    outcomes: list[Outcome] = []
    failing = 0
    for outcome in _execute(job, tasks, jobs):
        outcomes.append(outcome)
        failing += outcome.failed
        if progress is not None:
            progress(len(outcomes), len(tasks), failing)
    outcomes.sort(key=lambda o: o.index)
    axes = {a.key: list(a.values) for a in table.axes} if table is not None else dict(grid or {})
    return Exploration(spec, seed_list, axes, points, chosen, outcomes, perturbation or Perturbation(), table)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    describe = getattr(value, "describe", None)
    return describe() if callable(describe) else repr(value)


@dataclass
class Exploration:
    scenario: ScenarioSpec
    seeds: list[int]
    grid: dict[str, Any]
    points: list[Point]
    invariants: list[Invariant]
    outcomes: list[Outcome]
    perturbation: Perturbation = field(default_factory=Perturbation)
    table: Grid | None = None  # the grid table the points came from, when there was one

    def at(self, point_index: int) -> list[Outcome]:
        n = len(self.seeds)
        return self.outcomes[point_index * n:(point_index + 1) * n]

    def failures(self, invariant: str | None = None) -> list[Outcome]:
        """Failing runs (breaking ``invariant``, or anything), in run order."""
        if invariant is None:
            return [o for o in self.outcomes if o.failed]
        return [o for o in self.outcomes if invariant in o.broken()]

    def smallest(self, invariant: str | None = None) -> Outcome | None:
        """The failing run with the smallest seed (the first grid point among equals)."""
        failing = self.failures(invariant)
        return min(failing, key=lambda o: (o.seed, o.index)) if failing else None

    def point_of(self, outcome: Outcome) -> Point:
        return self.points[outcome.index // len(self.seeds)]

    def replay(self, outcome: Outcome) -> RunResult:
        """Make ``outcome``'s run again in this process (same seed, same parameters, same answer)."""
        return play(self.scenario, make_run(self.scenario, outcome.seed, self.point_of(outcome), self.perturbation),
                    self.invariants)

    def summary(self) -> dict[str, Any]:
        from .report import summary

        return summary(self)

    def to_json(self, *, runs: bool = True) -> str:
        from .report import to_json

        return to_json(self, runs=runs)

    def render_text(self) -> str:
        from .report import render_text

        return render_text(self)

    def write_test(self, path: str, outcome: Outcome | None = None, invariant: str | None = None) -> Outcome:
        """Write a pytest module that replays a failing run (default: the smallest failing seed) and asserts
        its failing object's timeline; returns the outcome it reproduces."""
        from .reproducer import write_test

        return write_test(self, path, outcome, invariant)
