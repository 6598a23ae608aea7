"""Perturbations change the model's parameters of the simulation a scenario builds, and nothing else."""

from __future__ import annotations

import pytest

from fakekube.explore import Fault, Perturbation, Run, play, scale_lag, split_round_trip
from fakekube.explore.registry import REGISTRY
from fakekube.sim import Lag, RequestLatency, Simulation
from tests.explore import guestbook


def _audit(perturbation: Perturbation, seed: int = 3) -> str:
    run = Run(seed, {}, perturbation)
    guestbook.scenario(run)
    return run.sim.audit.to_jsonl()


def test_scale_lag_scales_every_duration_and_the_cap() -> None:
    assert scale_lag(Lag.uniform(0.001, 0.004), 2) == Lag.uniform(0.002, 0.008)
    assert scale_lag(Lag.exponential(0.004, cap=0.25), 0.5) == Lag.exponential(0.002, cap=0.125)
    assert scale_lag(Lag.fixed(0.01), 0) == Lag.zero()
    lag = Lag.fixed(0.01)
    assert scale_lag(lag, 1.0) is lag
    with pytest.raises(ValueError):
        scale_lag(lag, -1)


@pytest.mark.parametrize("point", [0.0, 0.25, 0.5, 1.0])
def test_commit_point_keeps_the_mean_round_trip(point: float) -> None:
    request, response = split_round_trip(Lag.uniform(0.001, 0.004), Lag.uniform(0.001, 0.004), point)
    assert request.mean + response.mean == pytest.approx(0.005)
    assert request.mean == pytest.approx(point * 0.005)
    assert request.is_zero == (point == 0.0) and response.is_zero == (point == 1.0)


def test_commit_point_splits_a_round_trip_that_had_no_response_leg() -> None:
    request, response = split_round_trip(Lag.fixed(0.002), Lag.zero(), 0.5)
    assert request == response == Lag.fixed(0.001)
    with pytest.raises(ValueError):
        split_round_trip(Lag.fixed(0.002), Lag.zero(), 1.5)


def test_identity_perturbation_leaves_the_audit_log_byte_for_byte() -> None:
    plain = Simulation(seed=3)
    guestbook.install(plain)
    guestbook.drive(plain)
    assert _audit(Perturbation()) == plain.audit.to_jsonl()


def test_each_knob_changes_the_run() -> None:
    base = _audit(Perturbation(), seed=1)
    for knob in (Perturbation(cache_lag_scale=4), Perturbation(commit_point=0.0), Perturbation(workers=1)):
        assert _audit(knob, seed=1) != base, knob
    assert _audit(Perturbation(cache_lag_scale=4), seed=1) == _audit(Perturbation(cache_lag_scale=4), seed=1)


def test_commit_point_sets_the_commit_of_a_per_verb_latency() -> None:
    run = Run(1, {}, Perturbation(commit_point=0.9, handling_scale=2))
    sim = run.simulation()
    latency = RequestLatency(default=Lag.uniform(0.002, 0.008), classes={"create pods": 0.05}, commit_at=0.5)
    mgr = sim.manager("m", latency=latency, handling=0.001)
    assert mgr.latency == RequestLatency(default=latency.default, classes=latency.classes, commit_at=0.9)
    assert mgr.handling == Lag.fixed(0.002)


def test_manager_knobs_are_scaled_and_workers_overridden() -> None:
    run = Run(1, {}, Perturbation(cache_lag_scale=2, commit_point=1.0, event_delay_scale=3,
                                  workers={"guest*": 5}))
    sim = run.simulation()
    guestbook.install(sim, workers=2)
    mgr = sim.managers[guestbook.MANAGER]
    assert mgr.cache_lag == Lag.exponential(0.010)
    assert mgr.response_latency.is_zero and mgr.api_latency.mean == pytest.approx(0.002)
    assert mgr.event_delay == Lag.fixed(0.003)  # the manager's default 1 ms, times 3
    assert mgr.controllers["guestbook"].workers == 5
    other = sim.manager("other", per_kind_lag={"pods": 0.01})
    assert other.per_kind_lag["pods"] == Lag.fixed(0.02)
    assert other.controller("unmatched", lambda req: None, workers=3).workers == 3
    assert other.controller("classic", lambda req: None, priority_queue=False).workers == 1  # options pass through
    sim.run()  # let the workers start (and wait on their queues)


def test_faults_are_installed_per_run() -> None:
    fault = Fault(verb="patch", resource="configmaps", code=409, times=2)
    run = Run(3, {}, Perturbation(faults=(fault,)))
    guestbook.scenario(run)
    injected = [e for e in run.sim.conflicts() if "injected fault" in e.notes]
    assert len(injected) == 2 and all(e.verb == "patch" for e in injected)
    assert Fault.parse("verb=patch,resource=configmaps,code=409,times=2") == fault
    with pytest.raises(ValueError):
        Fault.parse("verb=patch,colour=red,code=409")
    with pytest.raises(ValueError):
        Fault(verb="patch")


def test_split_sends_perturbation_keys_to_the_perturbation() -> None:
    perturbation, params = Perturbation.split({"cache_lag_scale": 2, "claim_status": "patch"})
    assert perturbation == Perturbation(cache_lag_scale=2) and params == {"claim_status": "patch"}
    assert perturbation.to_dict() == {"cache_lag_scale": 2}
    assert Perturbation(workers=4).to_dict() == {"workers": {"*": 4}}
    with pytest.raises(ValueError):
        Perturbation(commit_point=2)
    with pytest.raises(ValueError):
        Perturbation(workers={"x": 0})


def test_a_scenario_that_builds_no_simulation_is_reported() -> None:
    result = play(REGISTRY.get_scenario(lambda run: None), Run(1), [REGISTRY.get_invariant("no-conflict")])
    assert result.failed and "built no simulation" in str(result.error)


def test_an_asyncio_loop_takes_the_watch_lag_scale_and_the_commit_point() -> None:
    sim = Simulation(seed=1, freeze_time=False)
    Perturbation(cache_lag_scale=2.0, commit_point=0.5).apply(sim)
    loop = sim.asyncio_loop("op", latency=RequestLatency(default=0.010, commit_at=0.9), event_lag=0.004)
    try:
        assert loop.fakekube_pacing.event_lag == Lag.fixed(0.008)
        assert loop.fakekube_pacing.latency.commit_at == 0.5
    finally:
        loop.close()
    untouched = Simulation(seed=1, freeze_time=False)
    Perturbation().apply(untouched)
    loop = untouched.asyncio_loop("op", event_lag=0.004)
    try:
        assert loop.fakekube_pacing.event_lag == Lag.fixed(0.004)
    finally:
        loop.close()
