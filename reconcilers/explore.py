"""agent-sandbox for fakekube.explore: the PR #508 seed scenarios and the invariants a claim must keep.

Registered through the ``fakekube.explore`` entry point (pyproject.toml) by :func:`register`, so
``fakekube explore --scenario seed-timeline --claim-status patch`` and written reproducers find them by name.

Scenarios (``seed-timeline``, ``seed-load``) take the agent-sandbox build, the claim/sandbox/pod write
strategies and the load recipe's numbers as grid parameters. Invariants:

- ``claim-status-not-overwritten``: no stale overwrite of a claim's status (the lost update #1256 fixed);
- ``every-claim-ready``: when the load has finished, every claim's stored status says Ready (and no wait of
  the recipe timed out);
- ``one-claim-per-sandbox``: no sandbox is held by two claims.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.builds import BUILDS, DEFAULT_BUILD
from fakekube.agentsandbox.cpumodel import pr508_cpu
from fakekube.agentsandbox.env import MODEL_NAMES, named_model
from fakekube.agentsandbox.objects import is_ready
from fakekube.agentsandbox.report import doubly_owned_sandboxes
from fakekube.agentsandbox.scenarios import SCENARIOS, ScenarioRun, run_scenario
from fakekube.agentsandbox.simulate import _PARAMS as LOAD_PARAMS
from fakekube.agentsandbox.simulate import LABELS
from fakekube.agentsandbox.strategies import (
    CLAIM_STATUS_MODES,
    POD_METADATA_MODES,
    SANDBOX_STATUS_MODES,
    WriteStrategies,
)
from fakekube.explore import ObjectRef, Param, Registry, Run, RunResult, Violation, no_stale_overwrite
from fakekube.explore.gridtable import Axis, Grid

PARAMS: tuple[Param, ...] = (
    Param("claim_status", "update", CLAIM_STATUS_MODES,
          help="claim status write: " + "; ".join(f"{k} = {v}" for k, v in LABELS.items())),
    Param("build", DEFAULT_BUILD, tuple(BUILDS), help=f"agent-sandbox build (reconcilers/builds.py; default {DEFAULT_BUILD})"),
    Param("model", "pr508-table1", MODEL_NAMES,
          help="timing model: pr508-table1 (fitted from PR #508's first table, the default) or hand-set (before)"),
    Param("sandbox_status", None, SANDBOX_STATUS_MODES,
          help="sandbox status write: update or patch (#509); default: as the build does"),
    Param("pod_metadata", None, POD_METADATA_MODES,
          help="pod label propagation: update or patch (#784); default: as the build does"),
    Param("cpu_cores", 0, None, int,
          help="the controller process's CPU (reconcilers/cpumodel.py): N cores at published per-operation costs; "
               "0 = off (work costs no time), as `fakekube simulate --cpu-cores`"),
    *(Param(name, None, None, kind, text) for name, kind, text in LOAD_PARAMS),
)
_OWN_PARAMS = ("claim_status", "sandbox_status", "pod_metadata", "build", "model", "cpu_cores")
DEFAULT_INVARIANTS = ("no-stale-overwrite", "every-claim-ready", "one-claim-per-sandbox")

# What `fakekube explore --scenario seed-timeline` tries when no perturbation is named: the mechanisms of the
# model, each over the range its evidence allows (docs/explore.md, "The default grid"; the figures are in
# docs/reproducing-pr-508.md). Every combination: 24 points, 10 seeds each.
GRID = Grid(
    "agent-sandbox",
    (
        Axis("cache_lag_scale", (1, 2, 4),
             "informer lag: the fitted watch delay (7.3-10.4 ms) doubled while it stays within the model's own "
             "evidence: refitted at commit_at 0.5 / 0.99 it is x1.8 / x0.8; at the PR's load the CPU model's "
             "queued jobs wait up to 41-50 ms, a watch delay of up to ~59 ms, x6.6"),
        Axis("commit_point", (None, 0.5),
             "the commit point: not measurable from a timeline; the fit assumes 0.9 (a write spends most of its "
             "round trip in admission and etcd); 0.5, the hand-set model's and the far end of the fit's check"),
        Axis("workers", (None, 1),
             "MaxConcurrentReconciles: the load test's flags (400 sandbox and claim workers, 1 pool and template "
             "worker) and controller-runtime's default, 1"),
        Axis("cpu_cores", (0, 2),
             "the controller process's CPU: off (the fit's account) or GKE's default node, 2 cores, at published "
             "per-operation costs (reconcilers/cpumodel.py; at 4 cores the queue is never busy)"),
    ),
    seeds="1-10",
    source="docs/explore.md#the-default-grid",
)
# seed-load's runs take 10-20 s each (1,500 claims), so its table varies one axis at a time: 6 points, 2 seeds.
LOAD_GRID = replace(GRID, name="agent-sandbox seed-load", mode="each", seeds="1-2")
GRIDS = {"seed-timeline": GRID, "seed-load": LOAD_GRID}


def scenario(name: str) -> Callable[[Run], ScenarioRun]:
    """The load recipe ``name`` (fakekube.agentsandbox.scenarios.SCENARIOS) as an explore scenario."""

    def play(run: Run) -> ScenarioRun:
        strategies = WriteStrategies(run.param("claim_status", "update"), run.param("sandbox_status"),
                                     run.param("pod_metadata"))
        loaded = SCENARIOS[name].with_overrides(**{k: v for k, v in run.params.items() if k not in _OWN_PARAMS})
        model = named_model(run.param("model", "pr508-table1"))
        cores = run.param("cpu_cores", 0)
        if cores:
            if cores < 0:
                raise ValueError(f"cpu_cores must be 0 (off) or a number of cores, not {cores}")
            model = model.with_changes(cpu=pr508_cpu(cores))
        return run_scenario(loaded, strategies, build=run.param("build"), sim=run.simulation(), model=model)

    play.__name__ = play.__qualname__ = f"scenario_{name.replace('-', '_')}"
    play.__doc__ = f"agent-sandbox {name} (reconcilers/scenarios.py) with the run's write strategies"
    return play


def _scenario_run(result: RunResult) -> ScenarioRun:
    if not isinstance(result.result, ScenarioRun):
        raise TypeError("this invariant judges agent-sandbox scenario runs (fakekube.agentsandbox.explore scenarios)")
    return result.result


def every_claim_ready(result: RunResult) -> Iterator[Violation | str]:
    """Every claim Ready when the load has finished."""
    run = _scenario_run(result)
    namespace = run.scenario.params.namespace
    for claim in run.env.store.objects(keys.CLAIMS, namespace):
        if not is_ready(claim):
            name = claim["metadata"]["name"]
            yield Violation("every-claim-ready", f"claim {name} is not Ready at the end",
                            ObjectRef("sandboxclaims", name, namespace))
    for phase in run.timed_out:
        yield f"the recipe's wait for {phase} timed out"


def one_claim_per_sandbox(result: RunResult) -> Iterator[Violation]:
    """No sandbox held by two claims."""
    run = _scenario_run(result)
    namespace = run.scenario.params.namespace
    for name in doubly_owned_sandboxes(run):
        yield Violation("one-claim-per-sandbox", f"sandbox {name} is held by two claims",
                        ObjectRef("sandboxes", name, namespace))


def register(registry: Registry) -> None:
    """The ``fakekube.explore`` entry point."""
    for name, load in SCENARIOS.items():
        p = load.params
        registry.scenario(name, scenario(name), params=PARAMS, invariants=DEFAULT_INVARIANTS, grid=GRIDS.get(name, GRID),
                          description=f"agent-sandbox {name}: {p.total_bursts} bursts of {p.burst_size} claims, "
                                      f"a warm pool of {p.warmpool_size}")
    stale = no_stale_overwrite("sandboxclaims", "status", name="claim-status-not-overwritten")
    registry.invariant(stale.name, stale.check, stale.description)
    registry.invariant("every-claim-ready", every_claim_ready)
    registry.invariant("one-claim-per-sandbox", one_claim_per_sandbox)


__all__ = ["DEFAULT_INVARIANTS", "GRID", "PARAMS", "every_claim_ready", "one_claim_per_sandbox", "register", "scenario"]
