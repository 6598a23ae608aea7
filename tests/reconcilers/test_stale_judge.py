"""The audit-log stale-overwrite judge (``fakekube audit stale``, fakekube.audit.overwrites) against the
simulation's own detector, which knows every write's base: on #508's race (seed-timeline, seed 1, informer lag ×4,
the smallest failing seed of ``fakekube explore``), the judge reading only the log's bodies must never call a write
stale that the detector did not, and must not call fresh a write that the detector saw overwrite."""

from __future__ import annotations

import pytest

from fakekube.agentsandbox.env import named_model
from fakekube.agentsandbox.scenarios import SCENARIOS, run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.audit.overwrites import judge
from fakekube.explore.explorer import make_run
from fakekube.explore.registry import REGISTRY


def played(claim_status: str):
    run = make_run(REGISTRY.get_scenario("seed-timeline"), 1, {"claim_status": claim_status, "cache_lag_scale": 4})
    sim = run.simulation()
    sim.audit.keep_bodies()  # what the harness's RequestResponse rule for claims logs
    run_scenario(SCENARIOS["seed-timeline"], WriteStrategies(claim_status, None, None), sim=sim,
                 model=named_model("pr508-table1"))
    return sim


@pytest.mark.parametrize("claim_status", ["patch", pytest.param("patch-lock", marks=pytest.mark.slow),
                                          pytest.param("update", marks=pytest.mark.slow)])
def test_the_log_judge_agrees_with_the_detector_that_knew_each_base(claim_status):
    sim = played(claim_status)
    known = {r.seq: r for r in sim.stale_overwrites() if r.resource == "sandboxclaims"}
    report = judge(list(sim.audit), ["sandboxclaims"])
    found = {o.seq: o for o in report.overwrites}
    assert set(found) <= set(known)
    for seq, o in found.items():
        assert set(o.paths) <= set(known[seq].paths)
        assert known[seq].based_on in o.bases  # the true base is among the versions the body fits
    verdict_of = {}
    for e in sim.audit:
        for note in e.notes:
            if note.startswith("stale overwrite") and "computed from" in note:
                verdict_of[e.seq] = "stale"
    assert set(verdict_of) == set(found)
    if claim_status == "patch":
        # #508: the blind patch overwrote a newer claim status in every claim; the log shows it for 9 of the 10 (the
        # tenth fits a version after the write it replaced as well: undecided)
        assert len(known) == 10 and len(found) == 9
        assert report.verdicts["undecided"] >= len(known) - len(found)
        assert report.verdicts["unjudged"] == 0
    else:
        # a write that names its version commits only on it: never stale, and the log says so
        assert known == {} and found == {} and report.verdicts["unjudged"] == 0
