"""The request-type breakdown of a scenario (benchmarks/bench_requests.py) against the run's own audit log."""

from __future__ import annotations

from collections import Counter

from benchmarks.bench_requests import timed_requests
from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.requestcycle import RequestCycle
from fakekube.sim import Simulation


def test_every_audited_request_is_counted_once_under_its_type() -> None:
    original = RequestCycle._run
    totals: dict = {}
    with timed_requests(totals):
        run = run_scenario("seed-timeline", WriteStrategies("update"), seed=1)
    assert RequestCycle._run is original  # the timing wrapper is gone once the block ends
    audited = Counter((e.verb, e.resource, e.subresource or "", e.code) for e in run.env.sim.store.audit.entries)
    bootstrap: dict = {}  # a fresh store's own namespaces and service accounts, made before its audit log starts
    with timed_requests(bootstrap):
        Simulation(seed=1)
    assert bootstrap
    expected = audited + Counter({key: count for key, (count, _) in bootstrap.items()})
    assert Counter({key: count for key, (count, _) in totals.items()}) == expected
    assert all(seconds > 0 for _, seconds in totals.values())
