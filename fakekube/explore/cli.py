"""``fakekube explore``: run a registered scenario over many seeds and a grid of perturbations.

    fakekube explore --scenario seed-timeline --claim-status patch --invariant claim-status-not-overwritten

Without a perturbation option the scenario's default grid table runs (``--grid``; gridtable.py): every
mechanism of the model over the range its evidence allows. Every grid option takes a comma list (one grid
axis, replacing the table's axis of that key); the scenario's own parameters come from the registry
(``--claim-status`` is agent-sandbox's). The report on stdout is a function of the seeds and parameters only,
whatever ``--jobs`` is; progress, the cost and wall-clock rates go to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from fakekube.clihelp import examples, warn

from .explorer import Exploration, explore
from .grid import describe_point
from .gridtable import Grid
from .holds import HoldRule
from .perturb import Fault, Perturbation
from .registry import REGISTRY, Param, ScenarioSpec

DESCRIPTION = """\
Run a scenario (registered, or module:function) once per seed and grid point, check its invariants on every
run, and report which grid points and seeds broke which invariant, with a command that replays the smallest
failing seed. Without options the scenario's default grid runs: the model's mechanisms (informer lag, commit
point, worker counts, controller CPU) over the ranges their evidence allows (--show-grid prints it and its
cost; --grid none: unperturbed). Every perturbation option takes a comma list: each list is one axis of the
grid. See docs/explore.md."""

EXAMPLES = examples(
    "fakekube explore --scenario seed-timeline --claim-status patch --invariant claim-status-not-overwritten \\",
    "    --jobs 2 --write-test tests/test_claim_status_race.py",
    "fakekube explore --scenario seed-timeline --show-grid > grid.toml   # edit, then: --grid grid.toml",
    "fakekube explore --scenario seed-timeline --grid none --seeds 1-500 --claim-status patch --cache-lag-scale 4",
    "fakekube explore --scenario mypkg.scenarios:checkout --invariant mypkg.scenarios:no_lost_update \\",
    "    --seeds 1-500 --cache-lag-scale 1,4 --workers 1,4 --jobs 0 --check",
)

_AXES: tuple[tuple[str, Any, str], ...] = (
    ("cache_lag_scale", float, "scale every informer's watch transport delay (e.g. 0.5,1,4)"),
    ("handling_scale", float, "scale what one watch event costs an informer's consumer (queueing lag)"),
    ("handling", float, "set that cost, seconds per event (a fitted model's is 0, which no scale moves)"),
    ("commit_point", float, "share of the round trip before the commit, 0..1 (e.g. 0,0.5,1)"),
    ("event_delay_scale", float, "scale the event recorders' asynchronous delay"),
    ("workers", "workers", "MaxConcurrentReconciles: N for every controller, or NAME=N[+NAME=N]"),
)


def _scenario_params() -> dict[str, Param]:
    params: dict[str, Param] = {}
    for spec in REGISTRY.load().scenarios.values():
        for param in spec.params:
            params.setdefault(param.name, param)
    return params


def add_arguments(parser: argparse.ArgumentParser) -> None:
    scenarios = REGISTRY.load().scenarios
    parser.add_argument("--scenario", required=True,
                        help=f"registered scenario ({', '.join(sorted(scenarios)) or 'none'}) or module:function")
    parser.add_argument("--seeds", default=None, help="seeds: N, N-M or a comma list (default: the grid's, 1-10 for "
                                                      "the default grids; 1-100 with --grid none)")
    parser.add_argument("--grid", default="default", metavar="default|none|FILE",
                        help="the grid table: the scenario's default (the model's mechanisms over their evidence's "
                             "ranges, docs/explore.md), none (unperturbed but for the options below), or a TOML/JSON "
                             "file as --show-grid writes (default: %(default)s)")
    parser.add_argument("--show-grid", action="store_true",
                        help="print the grid table as TOML (with why each range) and its number of runs, and exit")
    parser.add_argument("--invariant", action="append", default=None, metavar="NAMES",
                        help=f"invariants to check, comma list or repeated ({', '.join(sorted(REGISTRY.invariants))}); "
                             "default: the scenario's own")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (0: one per CPU); the report is the "
                                                           "same whatever the number")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--no-runs", action="store_true", help="with --json: leave out the per-run outcomes")
    parser.add_argument("--write-test", metavar="PATH", default=None,
                        help="write a pytest reproducer of the smallest failing seed to PATH")
    parser.add_argument("--check", action="store_true", help="exit 1 when any run broke an invariant")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    grid = parser.add_argument_group("perturbations (comma lists are grid axes, replacing the table's axis of that "
                                     "key; default: the grid table's)")
    for name, _, text in _AXES:
        grid.add_argument("--" + name.replace("_", "-"), default=None, metavar="LIST", help=text)
    grid.add_argument("--fault", action="append", default=[], metavar="SPEC",
                      help="fault rule in every run: verb=,resource=,name=,subresource=,actor=,code=,delay=,times=")
    grid.add_argument("--hold", action="append", default=[], metavar="SPEC",
                      help="hold rule in every run: resource=,name=,events=,writer=,manager=,until=write|1s,...")
    own = parser.add_argument_group("scenario parameters (comma lists are grid axes; default: the scenario's own)")
    for param in _scenario_params().values():
        choices = f" ({', '.join(map(str, param.choices))})" if param.choices else ""
        default = "" if param.default is None or "default" in param.help else f" (default: {param.default})"
        own.add_argument("--" + param.name.replace("_", "-"), dest=f"param_{param.name}", default=None,
                         metavar="LIST", help=f"{param.help}{choices}{default}")


def _workers(text: str) -> int | dict[str, int]:
    if "=" not in text:
        return int(text)
    pairs = (item.partition("=") for item in text.split("+"))
    return {name.strip(): int(count) for name, _, count in pairs}


def _convert(kind: Any, text: str) -> Any:
    return _workers(text) if kind == "workers" else kind(text)


NO_GRID_SEEDS = "1-100"


def base_table(choice: str, spec: ScenarioSpec) -> Grid | None:
    """``--grid``: the scenario's default table, None for ``none``, or a file's."""
    if choice == "default":
        return spec.default_grid
    if choice == "none":
        return None
    if not Path(choice).is_file():
        raise ValueError(f"--grid {choice}: no such file (default, none, or a TOML/JSON grid file)")
    return Grid.load(choice)


def build_grid(args: argparse.Namespace, spec: ScenarioSpec) -> Grid | dict[str, list[Any]]:
    """The grid to explore: the ``--grid`` table with the command line's axes over it (a plain mapping of
    the command line's axes with ``--grid none``)."""
    axes = command_line_axes(args, spec)
    table = base_table(getattr(args, "grid", "none"), spec)
    if table is None:
        return axes
    perturbations = {name for name, _, _ in _AXES}
    params = [k for k in axes if k not in perturbations]
    for key in reversed(params):  # the scenario's own parameters first, in the command line's order
        table = table.with_axis(key, axes[key], front=True)
    for key in (k for k in axes if k in perturbations):
        table = table.with_axis(key, axes[key])
    return table


def command_line_axes(args: argparse.Namespace, spec: ScenarioSpec) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    params = _scenario_params()
    for name, param in params.items():
        text = getattr(args, f"param_{name}", None)
        if text is not None:
            if spec.params and spec.param(name) is None:
                raise ValueError(f"scenario {spec.name} takes no --{name.replace('_', '-')}")
            grid[name] = [param.check(param.type(v.strip())) for v in text.split(",") if v.strip()]
    for name, kind, _ in _AXES:
        text = getattr(args, name)
        if text is not None:
            grid[name] = [_convert(kind, v.strip()) for v in text.split(",") if v.strip()]
    return grid


def _invariant_name(exploration: Exploration, name: str) -> str:
    """How the command line names an invariant: registered, or by import path (a function's own name is not
    enough to find it again)."""
    from .reproducer import _invariant_ref

    try:
        return _invariant_ref(exploration, name)
    except ValueError:
        return name


def replay_command(exploration: Exploration, seed: int, point: dict[str, Any]) -> str:
    parts = ["fakekube explore", f"--scenario {exploration.scenario.name}", f"--seeds {seed}", "--grid none"]
    for key, value in point.items():
        if key in ("holds", "faults"):
            continue
        if isinstance(value, dict):
            value = "+".join(f"{k}={v}" for k, v in value.items())
        parts.append(f"--{key.replace('_', '-')} {value}")
    if exploration.invariants:
        parts.append(f"--invariant {','.join(_invariant_name(exploration, inv.name) for inv in exploration.invariants)}")
    if not exploration.perturbation.is_identity:
        parts.append("(and this command's --fault/--hold options)")
    return " ".join(parts)


def _axes(grid: dict[str, list[Any]]) -> list[Any]:
    from .gridtable import Axis

    return [Axis(key, tuple(values), "given on the command line") for key, values in grid.items()]


def cost_line(table: Grid, seeds: str) -> str:
    """``grid agent-sandbox: all 24 points of ... × seeds 1-10 (10) = 240 runs``."""
    from .grid import parse_seeds

    n_seeds = len(parse_seeds(seeds))
    return f"grid {table.describe()} × seeds {seeds} ({n_seeds}) = {len(table.points()) * n_seeds} runs"


def rate(runs: int, wall: float) -> str:
    """``9.4 runs/s``, or ``65 s/run`` for runs slower than a second (seed-load's)."""
    per_second = runs / max(wall, 1e-9)
    return f"{per_second:.1f} runs/s" if per_second >= 1 or not runs else f"{wall / runs:.0f} s/run"


class ProgressBar:
    """``[######.....]  120/500 runs · 37 failing · 9.8 runs/s`` on stderr, redrawn in place on a terminal."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_tenth = -1

    def __call__(self, done: int, total: int, failing: int) -> None:
        tenth = done * 10 // total
        if not self.tty and tenth == self._last_tenth and done != total:
            return
        self._last_tenth = tenth
        width = 30
        filled = done * width // total
        line = (f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} runs · {failing} failing · "
                f"{rate(done, time.perf_counter() - self.start)}")
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        if self.tty and done == total:
            self.stream.write("\n")
        self.stream.flush()


def prepare_destination(path: str) -> str | None:
    """Make ``--write-test``'s folder and check the file can be written, before any seed runs (a run of many
    seeds takes minutes; its results must not be lost to a missing folder). Returns what is wrong, or None."""
    target = Path(path)
    if target.is_dir():
        return f"--write-test {path}: is a directory (give a file name, e.g. {target / 'test_repro.py'})"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--write-test {path}: cannot create its folder: {exc.strerror or exc}"
    if not os.access(target.parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"--write-test {path}: not writable"
    return None


def run(args: argparse.Namespace) -> int:
    if args.no_runs and not args.json:
        warn("explore", "--no-runs does nothing without --json (it leaves the runs out of the JSON report)")
    if args.write_test:
        problem = prepare_destination(args.write_test)
        if problem:
            print(f"fakekube explore: {problem}", file=sys.stderr)
            return 2
    try:
        spec = REGISTRY.get_scenario(args.scenario)
        grid = build_grid(args, spec)
        seeds = args.seeds or (grid.seeds if isinstance(grid, Grid) else NO_GRID_SEEDS)
        if args.show_grid:
            table = grid if isinstance(grid, Grid) else Grid("none", tuple(_axes(grid)), seeds)
            sys.stdout.write(table.to_toml())
            print(f"fakekube explore: {cost_line(table, seeds)}", file=sys.stderr)
            return 0
        invariants = None
        if args.invariant:
            invariants = [name.strip() for item in args.invariant for name in item.split(",") if name.strip()]
        perturbation = Perturbation(faults=tuple(Fault.parse(t) for t in args.fault),
                                    holds=tuple(HoldRule.parse(t) for t in args.hold))
        progress = None if args.quiet else ProgressBar(f"explore {spec.name}")
        if isinstance(grid, Grid) and not args.quiet:
            print(f"fakekube explore: {cost_line(grid, seeds)} (--show-grid: the table; --grid none: "
                  "unperturbed)", file=sys.stderr)
        started = time.perf_counter()
        exploration = explore(spec, seeds, grid, invariants=invariants, perturbation=perturbation,
                              jobs=args.jobs, progress=progress)
        if not args.quiet:
            wall = time.perf_counter() - started
            runs = len(exploration.outcomes)
            print(f"fakekube explore: {runs} runs in {wall:.1f} s ({rate(runs, wall)}, --jobs {args.jobs})",
                  file=sys.stderr)
    except (KeyError, ValueError) as exc:
        print(f"fakekube explore: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # a module:function name whose module is not importable from here
        print(f"fakekube explore: {exc} (a module:function must be importable: is its folder on PYTHONPATH?)",
              file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(exploration.to_json(runs=not args.no_runs))
    else:
        text = exploration.render_text()
        smallest = exploration.smallest()
        if smallest is not None:
            text += f"replay: {replay_command(exploration, smallest.seed, exploration.point_of(smallest))}\n"
        sys.stdout.write(text)
    if args.write_test:
        if exploration.smallest() is None:
            print("fakekube explore: no run failed, no reproducer written", file=sys.stderr)
        else:
            try:
                outcome = exploration.write_test(args.write_test)
            except OSError as exc:
                # The report (with its replay command) is on stdout already: say why, without a traceback.
                print(f"fakekube explore: cannot write {args.write_test}: {exc.strerror or exc}", file=sys.stderr)
                return 2
            print(f"wrote {args.write_test}: seed {outcome.seed} [{describe_point(outcome.point)}] "
                  f"breaking {outcome.broken()[0]}", file=sys.stderr)
    return 1 if args.check and exploration.failures() else 0
