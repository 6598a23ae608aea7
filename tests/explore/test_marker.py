"""The fakekube_explore marker: one test item per (grid point, seed), the sim fixture seeded and perturbed,
invariants judged after the body, a summary of failing seeds, replay, shards — serially and under xdist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]

GUESTBOOK_TESTS = """
import pytest
from tests.explore import guestbook

@pytest.fixture
def sim_options():
    return {"kubelet": False}          # a user's own knobs still apply under the marker

@pytest.mark.fakekube_explore(seeds=range(1, 11), lock=[False, True], invariants=["no-stale-overwrite"])
def test_guestbook(sim, fakekube_explore):
    assert sim.seed == fakekube_explore.seed and not sim.kubelets
    guestbook.install(sim, lock=fakekube_explore.params["lock"])
    guestbook.drive(sim)

def test_unmarked(sim):
    assert sim.seed == 1
"""


@pytest.fixture
def guestbook_tests(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # for subprocess runs (xdist)
    monkeypatch.syspath_prepend(str(ROOT))
    pytester.makepyfile(test_guestbook=GUESTBOOK_TESTS)
    return pytester


def _summary(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "fakekube explore" in line and "=" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return lines[start + 1:end]


def _failing_seeds(result: pytest.RunResult) -> set[int]:
    return {int(m.group(1)) for line in result.outlines
            if (m := re.search(r"FAILED \S+\[lock=False-seed=(\d+)\]", line))}


@pytest.mark.slow
def test_items_per_point_and_seed_invariants_summary_replay_and_xdist(guestbook_tests: pytest.Pytester) -> None:
    result = guestbook_tests.runpytest_inprocess("-p", "no:cacheprovider", "-rf", "--collect-only", "-q")
    ids = [line.split("::")[1] for line in result.outlines if "test_guestbook[" in line]
    assert ids[:2] == ["test_guestbook[lock=False-seed=1]", "test_guestbook[lock=False-seed=2]"]
    assert len(ids) == 20 and ids[-1] == "test_guestbook[lock=True-seed=10]"
    result = guestbook_tests.runpytest_inprocess("-p", "no:cacheprovider", "-rf")
    failing = _failing_seeds(result)
    assert failing and len(failing) < 10  # the blind patch loses writes in some seeds
    result.assert_outcomes(failed=len(failing), passed=21 - len(failing))  # 10 locked runs + the unmarked test
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*InvariantBroken: seed * broke no-stale-overwrite:*",
                                 "*guestbook PATCH configmaps/guestbook based on rv*"])
    smallest = min(failing)
    assert _summary(result) == [
        f"test_guestbook.py::test_guestbook [lock=False]: 10 runs, {len(failing)} failing",
        f"  no-stale-overwrite: seeds {_describe(failing)} (smallest {smallest})",
        f"  replay: pytest 'test_guestbook.py::test_guestbook' --fakekube-seed {smallest}",
        "test_guestbook.py::test_guestbook [lock=True]: 10 runs, 0 failing",
    ]

    # --fakekube-seed replays one seed: the failing run, its locked twin, and the unmarked test.
    replayed = guestbook_tests.runpytest_inprocess("-p", "no:cacheprovider", "-rf", "--fakekube-seed", str(smallest))
    replayed.assert_outcomes(failed=1, passed=2)
    assert _failing_seeds(replayed) == {smallest}

    # Under xdist the runs are spread over workers; the same seeds fail and the summary is the same.
    spread = guestbook_tests.runpytest_subprocess("-p", "no:cacheprovider", "-rf", "-n", "2")
    assert any("2 workers" in line for line in spread.outlines)
    assert _failing_seeds(spread) == failing
    assert _summary(spread) == _summary(result)


def _describe(seeds: set[int]) -> str:
    from fakekube.explore import describe_seeds

    return describe_seeds(sorted(seeds))


def test_shards_split_the_runs_between_machines(guestbook_tests: pytest.Pytester) -> None:
    ran: list[set[str]] = []
    for shard in ("1/3", "2/3", "3/3"):
        result = guestbook_tests.runpytest_inprocess("-p", "no:cacheprovider", "-q", "--collect-only",
                                                     "--fakekube-shard", shard)
        ran.append({line for line in result.outlines if "test_guestbook[" in line})
    assert [len(r) for r in ran] == [7, 7, 6]
    assert len(set.union(*ran)) == 20
    bad = guestbook_tests.runpytest_inprocess("-p", "no:cacheprovider", "--fakekube-shard", "4/3")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_perturbation_keys_reach_the_simulation_and_the_rest_are_params(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest
        from fakekube.sim import Lag

        @pytest.mark.fakekube_explore(seeds=[7], cache_lag_scale=[1, 3], mode="fast")
        def test_knobs(sim, fakekube_explore):
            mgr = sim.manager("m", cache_lag=0.010)
            assert mgr.cache_lag == Lag.fixed(0.010 * fakekube_explore.perturbation.cache_lag_scale)
            assert fakekube_explore.params == {"mode": "fast"} and sim.seed == 7

        @pytest.mark.fakekube_explore("1-3")
        def test_own_simulation(fakekube_explore):
            sim = fakekube_explore.simulation()
            assert sim.seed == fakekube_explore.seed

        def test_fixture_needs_the_marker(fakekube_explore):
            pass
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=5, errors=1)
    result.stdout.fnmatch_lines(["*test_knobs?cache_lag_scale=3-mode=fast-seed=7? PASSED*",
                                 "*fakekube_explore fixture is for tests marked*"])


def test_the_marker_example_of_the_docs_runs(pytester: pytest.Pytester) -> None:
    page = (ROOT / "docs" / "explore.md").read_text()
    section = page.split("## The pytest marker", 1)[1]
    example = section.split("```python fragment\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_claims=example)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == 5  # patch-lock never loses a claim status
    assert 0 < outcomes.get("failed", 0) <= 5  # the blind patch does, in some seeds
    result.stdout.fnmatch_lines(["*fakekube explore*",
                                 "test_claims.py::test_claim_status_is_never_lost [[]claim_status=patch model=hand-set]: "
                                 "5 runs, * failing",
                                 "  claim-status-not-overwritten: seeds * (smallest *)"])
