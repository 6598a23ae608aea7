"""The controller process's CPU model (fakekube/sim/cpu.py, reconcilers/cpumodel.py) on the seed scenarios:
at one claim it adds almost nothing, so PR #508's table 1 still aligns, and a run with it replays byte for
byte. Its effect under load is measured in tests/reconcilers/test_seed_load.py (one run)."""

from __future__ import annotations

import pytest

from fakekube.agentsandbox.cpumodel import DEFAULT_CORES, pr508_cpu
from fakekube.agentsandbox.env import default_model
from fakekube.agentsandbox.report import align_with, summarize
from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from tests.audit.pr508 import TABLE_UPDATE


@pytest.fixture(scope="module")
def timeline_runs():
    model = default_model().with_changes(cpu=pr508_cpu(DEFAULT_CORES))
    return [run_scenario("seed-timeline", WriteStrategies("update"), seed=1, model=model) for _ in range(2)]


def test_one_claim_still_aligns_with_table_1(timeline_runs) -> None:
    from fakekube.audit import Timeline

    run = timeline_runs[0]
    result = align_with(run, "sandboxclaim-4", Timeline.parse(TABLE_UPDATE))
    assert result["aligned"] >= 29 and 0.75 <= result["cadence"] <= 1.25
    cpu = summarize(run)["cpu"]
    # An idle process: the CPU is there (work was charged) but nothing waits for a core for long.
    assert cpu["cores"] == DEFAULT_CORES and cpu["cpu_seconds"] > 0
    assert cpu["mean_wait_ms"] < 0.05


def test_same_seed_same_audit_log_with_the_cpu_model(timeline_runs) -> None:
    first, second = (r.env.sim.audit.to_jsonl() for r in timeline_runs)
    assert first == second
    baseline = run_scenario("seed-timeline", WriteStrategies("update"), seed=1).env.sim.audit.to_jsonl()
    assert baseline != first  # the model is on: the timings moved, by microseconds


def test_simulate_cpu_cores_flag(capsys) -> None:
    from fakekube.cli import main

    assert main(["simulate", "--scenario", "seed-timeline", "--claim-status", "update", "--cpu-cores", "4",
                 "--quiet", "--no-wall"]) == 0
    assert "controller CPU                4 cores" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="at least 1"):
        main(["simulate", "--scenario", "seed-timeline", "--cpu-cores", "0", "--quiet"])
