"""fakekube.explore: one scenario, many seeds and perturbations — find the interleavings that conflict or lose
writes, and pin each one as a deterministic test.

Layered above :mod:`fakekube.sim` (which it perturbs but does not change) and below any controller package:
controllers' scenarios and invariants come in through :data:`REGISTRY` (the ``fakekube.explore`` entry-point
group) or as plain callables. See docs/explore.md.
"""

from fakekube.explore.explorer import Exploration, explore, make_run, play, replay
from fakekube.explore.grid import describe_seeds, grid_points, parse_seeds
from fakekube.explore.gridtable import DEFAULT_GRID, Axis, Grid
from fakekube.explore.holds import AfterTime, AfterWrite, HoldRule, Holds
from fakekube.explore.invariants import Invariant, no_conflict, no_reconcile_error, no_stale_overwrite
from fakekube.explore.perturb import Fault, Perturbation, scale_lag, split_round_trip
from fakekube.explore.registry import REGISTRY, Param, Registry, ScenarioSpec
from fakekube.explore.reproducer import portable_timeline, render_test, write_test
from fakekube.explore.run import ObjectRef, Outcome, Run, RunResult, Violation

__all__ = [
    "DEFAULT_GRID",
    "REGISTRY",
    "AfterTime",
    "AfterWrite",
    "Axis",
    "Exploration",
    "Fault",
    "Grid",
    "HoldRule",
    "Holds",
    "Invariant",
    "ObjectRef",
    "Outcome",
    "Param",
    "Perturbation",
    "Registry",
    "Run",
    "RunResult",
    "ScenarioSpec",
    "Violation",
    "describe_seeds",
    "explore",
    "grid_points",
    "make_run",
    "no_conflict",
    "no_reconcile_error",
    "no_stale_overwrite",
    "parse_seeds",
    "portable_timeline",
    "play",
    "render_test",
    "replay",
    "scale_lag",
    "split_round_trip",
    "write_test",
]
