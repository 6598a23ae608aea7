"""The seed scenarios' timing model: fitted from PR #508's first table by ``fakekube fit``, committed as package
data, refitted here; and the fitting recovers a known model from a simulated timeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakekube.agentsandbox.env import default_model
from fakekube.agentsandbox.fitcmd import PR508_MODEL, fit_source, tables
from fakekube.agentsandbox.report import claim_timeline_entries
from fakekube.agentsandbox.roles import describe_steps
from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.audit import Timeline
from fakekube.sim import Lag, RequestLatency
from fakekube.sim.fit import TimelineFit, observations_from_rows
from fakekube.sim.model import ClusterModel
from tests.audit.pr508 import TABLE_UPDATE

REFERENCE = Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "pr-508.md"


@pytest.mark.skipif(not REFERENCE.is_file(), reason="../shared/reference/pr-508.md is not here")
def test_the_committed_model_is_what_fakekube_fit_makes_of_the_prs_first_table(tmp_path):
    from fakekube.cli import main

    out = tmp_path / "model.json"
    assert main(["fit", str(REFERENCE), "--table", "1", "-o", str(out)]) == 0
    assert out.read_text() == PR508_MODEL.read_text()
    model, problems = fit_source(REFERENCE)
    assert problems == [] and model.to_json() == PR508_MODEL.read_text()


def test_the_seed_scenarios_run_with_the_fitted_model():
    model = default_model()
    assert model.source == "pr-508.md table 1"
    # The numbers the derivation reads off table 1 (docs/simulation.md, "Fitting a model").
    assert model.latency.round_trip("create", "pods") == Lag.fixed(0.056)
    assert model.latency.round_trip("update", "pods") == Lag.fixed(0.044)  # seen only as a pass start
    assert model.derivation["reaction_ms"] == 7.0
    assert model.pod_containers_ready == Lag.zero() == model.pod_ready  # no readiness probe: one write
    # Table 1 as the test copy has it fits to the same model (the copy is verbatim; tests/audit/pr508.py).
    again = TimelineFit(observations_from_rows(Timeline.parse(TABLE_UPDATE).rows, describe_steps)).model()
    assert again.with_changes(source=model.source) == model


def test_fit_rejects_what_it_cannot_read(tmp_path):
    from fakekube.cli import main

    empty = tmp_path / "notes.md"
    empty.write_text("no table here\n")
    assert main(["fit", str(empty)]) == 2
    two = tmp_path / "two.md"
    two.write_text(f"first\n\n{TABLE_UPDATE}\nsecond\n\n{TABLE_UPDATE}")
    assert len(tables(two.read_text())) == 2
    assert main(["fit", str(two), "--table", "3"]) == 2


# A model with one fixed round trip per class and the commit at the end of it, so that a simulated timeline's
# audit times are the requests' completion times, as in the PR's table.
KNOWN = ClusterModel(
    latency=RequestLatency(default=Lag.fixed(0.015), commit_at=1.0, classes={
        "update sandboxclaims/status": Lag.fixed(0.013), "patch sandboxes/status": Lag.fixed(0.021),
        "create pods": Lag.fixed(0.047), "update pods": Lag.fixed(0.033), "delete networkpolicies": Lag.fixed(0.011),
        "patch sandboxwarmpools/status": Lag.fixed(0.017)}),
    cache_lag=Lag.fixed(0.006), pod_scheduled=Lag.fixed(0.080), pod_initialized=Lag.fixed(0.006),
    pod_running=Lag.fixed(0.400), pod_containers_ready=Lag.zero(), pod_ready=Lag.zero(), source="known")
CONTROLLERS = ("sandboxclaim-controller", "sandbox-controller", "sandboxwarmpool-controller")


def test_fitting_a_simulated_timeline_recovers_the_model_that_made_it():
    run = run_scenario("seed-timeline", WriteStrategies("update"), seed=2, model=KNOWN)
    entries = [e for e in claim_timeline_entries(run, "sandboxclaim-4") if e.actor in CONTROLLERS]
    # As the PR's author showed it: the controllers' writes, Delta since step 1, no actor column.
    table = Timeline.from_audit(entries, start=entries[0].time).to_markdown(delta="start")
    model = TimelineFit(observations_from_rows(Timeline.parse(table).rows, describe_steps), commit_at=1.0).model()
    for cls in ("update sandboxclaims/status", "patch sandboxes/status", "create pods", "delete networkpolicies"):
        verb, _, resource = cls.partition(" ")
        resource, _, sub = resource.partition("/")
        assert model.latency.round_trip(verb, resource, sub or None).mean == pytest.approx(
            KNOWN.latency.round_trip(verb, resource, sub or None).mean, abs=0.0015), cls
    assert model.cache_lag.mean == pytest.approx(0.006, abs=0.002)
    assert model.latency.round_trip("update", "pods").mean == pytest.approx(0.033, abs=0.004)
    assert json.loads(model.to_json())["derivation"]["reactions"]
