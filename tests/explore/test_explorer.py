"""Explorations: runs in a fixed order, judged by invariants, the same report serially and in parallel."""

from __future__ import annotations

import json

import pytest

from fakekube.explore import (
    Invariant,
    Perturbation,
    Violation,
    describe_seeds,
    explore,
    grid_points,
    parse_seeds,
    replay,
)
from fakekube.explore.grid import parse_shard, shard
from fakekube.explore.registry import REGISTRY
from tests.explore import guestbook

INVARIANTS = [guestbook.every_guest_greeted, "no-stale-overwrite", "no-conflict"]


@pytest.fixture(scope="module")
def found():
    return explore(guestbook.scenario, "1-10", {"lock": [False, True]}, invariants=INVARIANTS)


def test_runs_are_ordered_point_by_point_then_seed_by_seed(found) -> None:
    assert [(o.point, o.seed) for o in found.outcomes] == \
        [({"lock": lock}, seed) for lock in (False, True) for seed in range(1, 11)]
    assert [o.index for o in found.outcomes] == list(range(20))


def test_parallel_runs_give_the_serial_report_byte_for_byte(found) -> None:
    parallel = explore(guestbook.scenario, "1-10", {"lock": [False, True]}, invariants=INVARIANTS, jobs=2)
    assert parallel.to_json() == found.to_json()
    assert parallel.render_text() == found.render_text()


def test_a_run_is_the_same_alone_or_in_a_batch(found) -> None:
    failing = found.smallest("every-guest-greeted")
    alone = explore(guestbook.scenario, [failing.seed], {"lock": False}, invariants=INVARIANTS)
    assert alone.outcomes[0].to_dict() == failing.to_dict()


def test_the_report_counts_by_invariant_resource_and_actor(found) -> None:
    data = found.summary()
    blind, locked = data["points"]
    lost = blind["invariants"]["every-guest-greeted"]
    assert 0 < lost["failing_runs"] < 10
    assert lost["seeds"] == describe_seeds([o.seed for o in found.failures("every-guest-greeted")])
    assert blind["stale_overwrites"]["by_resource"] == {"configmaps": blind["stale_overwrites"]["total"]}
    assert blind["stale_overwrites"]["by_actor"] == {"guestbook": blind["stale_overwrites"]["total"]}
    assert locked["invariants"]["no-stale-overwrite"]["failing_runs"] == 0
    assert locked["conflicts"]["by_actor"] == {"guestbook": locked["conflicts"]["total"]} and locked["conflicts"]["total"]
    assert data["smallest_failing"]["every-guest-greeted"] == {"seed": lost["smallest_seed"], "point": {"lock": False}}
    text = found.render_text()
    assert f"every-guest-greeted  broken in {lost['failing_runs']}/10 runs" in text
    assert "no-stale-overwrite   holds in all 10 runs" in text
    outcomes = json.loads(found.to_json())["outcomes"]
    assert len(outcomes) == 20 and "wall" not in json.dumps(outcomes)


def test_violations_name_the_object_and_the_audit_entry(found) -> None:
    outcome = found.smallest("no-stale-overwrite")
    (violation,) = outcome.violations["no-stale-overwrite"]
    assert violation.object.path == "configmaps/guestbook" and violation.object.namespace == "default"
    result = found.replay(outcome)
    entry = next(e for e in result.sim.audit if e.seq == violation.seq)
    assert entry.actor == "guestbook" and any(n.startswith("stale overwrite") for n in entry.notes)


def test_failing_scenarios_and_predicates_are_outcomes_not_crashes() -> None:
    def crashes(run):
        sim = run.simulation()
        if run.seed == 2:
            raise RuntimeError("boom")
        return sim

    def broken_predicate(result):
        raise KeyError("oops")

    done = explore(crashes, "1-3", invariants=[Invariant("fine", lambda r: True)])
    assert [o.error for o in done.outcomes] == [None, "RuntimeError: boom", None]
    assert done.summary()["points"][0]["errors"] == {"runs": 1, "seeds": "2", "first": "RuntimeError: boom"}
    assert done.smallest().seed == 2 and done.smallest().broken() == ["error"]
    judged = explore(crashes, "1", invariants=[broken_predicate])
    assert "invariant broken-predicate failed: KeyError" in judged.outcomes[0].error


def test_invariant_answers_are_coerced() -> None:
    result = replay(guestbook.scenario, 1)
    assert Invariant("t", lambda r: True).evaluate(result) == []
    assert Invariant("n", lambda r: None).evaluate(result) == []
    assert Invariant("f", lambda r: False, "it broke").evaluate(result) == [Violation("f", "it broke")]
    assert Invariant("s", lambda r: "one thing").evaluate(result) == [Violation("s", "one thing")]
    assert Invariant("v", lambda r: [Violation("other", "x")]).evaluate(result) == [Violation("v", "x")]


def test_bad_parameters_fail_before_anything_runs() -> None:
    with pytest.raises(ValueError, match="claim_status must be one of"):
        explore("seed-timeline", "1", {"claim_status": "sometimes"})
    with pytest.raises(ValueError, match="takes no parameter colour"):
        explore("seed-timeline", "1", {"colour": "red"})
    with pytest.raises(KeyError, match="unknown scenario"):
        explore("no-such-scenario", "1")
    with pytest.raises(KeyError, match="unknown invariant"):
        explore(guestbook.scenario, "1", invariants=["no-such-invariant"])


def test_scenarios_by_import_path_and_perturbation_over_the_grid() -> None:
    spec = REGISTRY.get_scenario("tests.explore.guestbook:scenario")
    assert spec.fn is guestbook.scenario and REGISTRY.get_scenario(guestbook.scenario).name == spec.name
    done = explore(spec, "1", {"cache_lag_scale": [1, 8]}, perturbation=Perturbation(commit_point=0.5))
    assert [o.point for o in done.outcomes] == [{"cache_lag_scale": 1}, {"cache_lag_scale": 8}]
    assert done.summary()["perturbation"] == {"commit_point": 0.5}


def test_seeds_grids_and_shards() -> None:
    assert parse_seeds("1-3,7,9-10") == [1, 2, 3, 7, 9, 10]
    assert parse_seeds(range(5, 8)) == [5, 6, 7] and parse_seeds(4) == [4] and parse_seeds("2,2,1") == [2, 1]
    assert describe_seeds([1, 2, 3, 7, 9, 10]) == "1-3,7,9-10" and describe_seeds([]) == ""
    for bad in ("", "3-1", "a-b", "1,x"):
        with pytest.raises(ValueError):
            parse_seeds(bad)
    assert grid_points(None) == [{}]
    assert grid_points({"a": [1, 2], "b": "x", "c": (3, 4)}) == [
        {"a": 1, "b": "x", "c": 3}, {"a": 1, "b": "x", "c": 4}, {"a": 2, "b": "x", "c": 3}, {"a": 2, "b": "x", "c": 4}]
    items = list(range(10))
    shares = [shard(items, f"{i}/3") for i in (1, 2, 3)]
    assert sorted(x for s in shares for x in s) == items and shares[0] == [0, 3, 6, 9]
    for bad in ("0/3", "4/3", "1", "a/b"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_a_report_is_the_same_in_another_process_with_another_hash_seed() -> None:
    """CI shards and a replay run in other processes: a seed must mean the same run there."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    argv = [sys.executable, "-m", "fakekube.cli", "explore", "--scenario", "tests.explore.guestbook:scenario",
            "--seeds", "1-6", "--grid", "none", "--invariant", "tests.explore.guestbook:every_guest_greeted,no-stale-overwrite",
            "--json", "--quiet"]
    outputs = [subprocess.run(argv, cwd=root, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}).stdout
               for seed in ("0", "1")]
    assert outputs[0] == outputs[1]
    here = explore(guestbook.scenario, "1-6", invariants=[guestbook.every_guest_greeted, "no-stale-overwrite"])
    assert json.loads(outputs[0])["outcomes"] == json.loads(here.to_json())["outcomes"]
