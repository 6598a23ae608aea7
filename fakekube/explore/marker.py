"""The ``fakekube_explore`` pytest marker (registered by fakekube's pytest plugin).

    @pytest.mark.fakekube_explore(seeds=range(1, 51), cache_lag_scale=[1, 4], invariants=["no-stale-overwrite"])
    def test_my_controller(sim): ...

parametrizes the test over seeds × grid points — one test item per run, so pytest-xdist spreads them over
cores. The ``sim`` fixture (and ``sim_factory``) of a marked test is built with the run's seed and
perturbation; the ``fakekube_explore`` fixture is the :class:`~fakekube.explore.Run` itself (its ``params``
hold the grid keys that are not perturbations). After the test body passes, the marker's invariants are
checked on the run's simulation. Options: ``--fakekube-seed N`` replays one seed; ``--fakekube-shard I/N``
keeps every N-th run of each marked test (1-based I), to split them across CI machines. The terminal summary
lists which seeds broke which invariant and the smallest one, with the command that replays it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

import pytest

from fakekube.sim import Simulation
from fakekube.sim.fixtures import build_simulation

from .grid import Point, describe_point, describe_seeds, grid_points, parse_seeds, parse_shard, shard
from .invariants import Invariant
from .perturb import Perturbation
from .registry import REGISTRY
from .run import Run, RunResult

MARKER = "fakekube_explore"
PARAM = "fakekube_explore"  # the fixture the marker parametrizes
PROPERTY = "fakekube_explore"  # the report user property the terminal summary reads (works under xdist)
_RUN = pytest.StashKey[Run]()
_INVARIANTS = pytest.StashKey[list[Invariant]]()
_RESERVED = ("seeds", "invariants")


@dataclass(frozen=True)
class Case:
    """One run of a marked test: its index among the test's runs, seed and grid point."""

    index: int
    seed: int
    point: Point

    @property
    def id(self) -> str:
        return "-".join([*(f"{k}={_id(v)}" for k, v in self.point.items()), f"seed={self.seed}"])


def _id(value: Any) -> str:
    return describe_point({"": value})[1:]


class InvariantBroken(AssertionError):
    """Raised after a marked test's body passed but its run broke invariants."""

    def __init__(self, names: list[str], message: str) -> None:
        super().__init__(message)
        self.names = names


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fakekube", "fakekube")
    group.addoption("--fakekube-seed", type=int, default=None, metavar="N",
                    help="fakekube_explore tests: run seed N only (replay one failing seed)")
    group.addoption("--fakekube-shard", default=None, metavar="I/N",
                    help="fakekube_explore tests: run the I-th of N shares of each test's runs (1-based)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}(seeds, invariants=None, **grid): run the test once per seed "
                                       "and grid point with the sim fixture seeded and perturbed (fakekube.explore)")
    spec = config.getoption("fakekube_shard", None)
    if spec:
        try:
            parse_shard(spec)
        except ValueError as exc:
            raise pytest.UsageError(f"--fakekube-shard: {exc}") from None


def _marker_args(marker: pytest.Mark) -> tuple[list[int], list[Any] | None, dict[str, Any]]:
    if len(marker.args) > 1:
        raise pytest.UsageError(f"{MARKER} takes the seeds as its one positional argument")
    seeds = marker.kwargs.get("seeds", marker.args[0] if marker.args else None)
    if seeds is None:
        raise pytest.UsageError(f"{MARKER} needs seeds=...")
    invariants = marker.kwargs.get("invariants")
    grid = {k: v for k, v in marker.kwargs.items() if k not in _RESERVED}
    return parse_seeds(seeds), list(invariants) if invariants is not None else None, grid


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None:
        return
    seeds, _, grid = _marker_args(marker)
    points = grid_points(grid)
    for point in points:
        Perturbation.split(point)  # a bad perturbation value fails collection, not every run
    replay = metafunc.config.getoption("fakekube_seed")
    if replay is not None:
        seeds = [replay]
    cases = [Case(i * len(seeds) + j, seed, point) for i, point in enumerate(points) for j, seed in enumerate(seeds)]
    if replay is None:
        cases = shard(cases, metafunc.config.getoption("fakekube_shard"))
    if PARAM not in metafunc.fixturenames:
        metafunc.fixturenames.append(PARAM)
    metafunc.parametrize(PARAM, cases, ids=[c.id for c in cases], indirect=True)


@pytest.fixture
def fakekube_explore(request: pytest.FixtureRequest) -> Run:
    """The :class:`~fakekube.explore.Run` of a ``@pytest.mark.fakekube_explore`` test (seed, params,
    perturbation); ``run.simulation()`` builds a perturbed simulation, ``run.play("seed-timeline")`` runs a
    registered scenario."""
    case = getattr(request, "param", None)
    if not isinstance(case, Case):
        raise pytest.UsageError(f"the {PARAM} fixture is for tests marked @pytest.mark.{MARKER}(seeds=...)")
    marker = request.node.get_closest_marker(MARKER)
    _, invariants, _ = _marker_args(marker)
    perturbation, params = Perturbation.split(case.point)
    run = Run(case.seed, params, perturbation)
    request.node.stash[_RUN] = run
    request.node.stash[_INVARIANTS] = [REGISTRY.get_invariant(i) for i in invariants or ()]
    return run


def _run_of(request: pytest.FixtureRequest) -> Run | None:
    callspec = getattr(request.node, "callspec", None)
    if callspec is None or PARAM not in callspec.params:
        return None
    return request.getfixturevalue(PARAM)


@pytest.fixture
def sim_factory(sim_options: dict[str, Any], request: pytest.FixtureRequest) -> Callable[..., Simulation]:
    """fakekube.sim's ``sim_factory``; in a ``fakekube_explore`` test its simulations take the run's seed (unless
    the call names one) and perturbation, and the run is judged on them."""
    base = dict(sim_options)
    run = _run_of(request)

    def factory(**options: Any) -> Simulation:
        if run is None:
            return build_simulation(**{**base, **options})
        return run.attach(build_simulation(**{**base, "seed": run.seed, **options}))

    return factory


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    __tracebackhide__ = True  # a broken invariant is the test's failure, not this hook's
    result = yield
    run = item.stash.get(_RUN, None)
    invariants = item.stash.get(_INVARIANTS, [])
    if run is None or not invariants:
        return result
    if not run.sims:
        raise pytest.UsageError(f"{item.nodeid}: the test built no simulation for its invariants to judge "
                                "(use the sim fixture, or fakekube_explore.simulation())")
    judged = RunResult(run)
    broken: list[str] = []
    lines: list[str] = []
    for invariant in invariants:
        found = judged.checked[invariant.name] = invariant.evaluate(judged)
        if found:
            broken.append(invariant.name)
            lines += [f"  {v}" for v in found[:5]] + ([f"  … {len(found) - 5} more"] if len(found) > 5 else [])
    if broken:
        raise InvariantBroken(broken, f"seed {run.seed} broke {', '.join(broken)}:\n" + "\n".join(lines))
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get(PARAM) if callspec is not None else None
    if isinstance(case, Case) and (call.when == "call" or report.failed):
        broken: list[str] = []
        if call.excinfo is not None and report.failed:
            exc = call.excinfo.value
            broken = exc.names if isinstance(exc, InvariantBroken) else [f"test body ({call.excinfo.typename})"]
        test = item.nodeid.split("[", 1)[0]
        report.user_properties.append((PROPERTY, {"test": test, "point": describe_point(case.point),
                                                  "seed": case.seed, "broken": broken}))
    return report


def _explored(reports: Iterable[Any]) -> dict[tuple[str, str], dict[str, Any]]:
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for report in reports:
        for key, data in getattr(report, "user_properties", ()):
            if key != PROPERTY:
                continue
            group = groups.setdefault((data["test"], data["point"]), {"seeds": set(), "broken": {}})
            group["seeds"].add(data["seed"])
            for name in data["broken"]:
                group["broken"].setdefault(name, set()).add(data["seed"])
    return groups


def pytest_terminal_summary(terminalreporter: Any) -> None:
    reports = [r for found in terminalreporter.stats.values() for r in found if hasattr(r, "user_properties")]
    groups = _explored(reports)
    if not groups:
        return
    terminalreporter.section("fakekube explore")
    for (test, point), group in sorted(groups.items()):
        failing = set().union(*group["broken"].values()) if group["broken"] else set()
        runs = len(group["seeds"])
        terminalreporter.write_line(f"{test} [{point}]: {runs} run{'s' if runs != 1 else ''}, {len(failing)} failing")
        for name, seeds in sorted(group["broken"].items()):
            ordered = sorted(seeds)
            terminalreporter.write_line(f"  {name}: seeds {describe_seeds(ordered)} (smallest {ordered[0]})")
        if failing:
            terminalreporter.write_line(f"  replay: pytest '{test}' --fakekube-seed {min(failing)}")
