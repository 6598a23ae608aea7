"""The live differential run (marker ``oracle``): the corpus against the real kube-apiserver and fakekube
side by side, compared directly (not through recordings), less the accepted divergences; the open ones
(open.txt) may differ, as in the replay.

    scripts/build-oracle && python -m pytest -m oracle tests/differential

One test per area: its cases run with JOBS side by side on the oracle (as scripts/record-oracle does) and at the
same time on fakekube, and each case is judged on its own. Skipped with the reason when the oracle is not built, unless
FAKEKUBE_REQUIRE_ORACLE=1 (CI), which makes a missing oracle a failure. Cases with ``skip_live`` are left out.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.differential.harness import corpus, discovery, divergences, openlist, recordings, verdicts
from tests.differential.harness.client import Client
from tests.differential.harness.runner import run_all

pytestmark = pytest.mark.oracle

CASES = corpus.load()
AREAS = corpus.in_run_order({case.area for case in CASES})
ACCEPTED = divergences.load_accepted()
OPEN = openlist.read()
JOBS = 4  # per server, as scripts/record-oracle runs the oracle


@pytest.mark.parametrize("area", AREAS)
def test_area_agrees_live(area: str, oracle_client: Client, fakekube_client: Client) -> None:
    cases = [case for case in CASES if case.area == area and not case.skip_live]

    def judged_run(names: list[str], *, aligned: bool = False) -> verdicts.Verdicts:
        chosen = [case for case in cases if case.name in names]
        if aligned:  # a retry: each server's run starts just after a second boundary (verdicts.settle_flakes)
            _at_a_fresh_second()
            fake = run_all(fakekube_client, chosen, jobs=JOBS, max_wait=3.0)
            _at_a_fresh_second()
            real = run_all(oracle_client, chosen, jobs=JOBS)
        else:  # both servers at once: fakekube's run overlaps the oracle's slower one
            with ThreadPoolExecutor(max_workers=2) as pool:
                on_fakekube = pool.submit(run_all, fakekube_client, chosen, jobs=JOBS, max_wait=3.0)
                real = run_all(oracle_client, chosen, jobs=JOBS)
                fake = on_fakekube.result()
        failures = {name: f"{name}: the case does not run reproducibly on the oracle:\n  "
                    + "\n  ".join(run.problems) for name, run in real.items() if run.problems}
        expected = {case.name: recordings.line_for(case.name, case.digest, real[case.name].setup,
                                                    real[case.name].answers)
                    for case in chosen if case.name not in failures}
        judged = verdicts.judge(chosen, expected, fake, ACCEPTED, OPEN)
        judged.failures.update(failures)
        return judged

    judged = verdicts.settle_flakes(judged_run([case.name for case in cases]),
                                    lambda names: judged_run(names, aligned=True))
    assert not judged.failures, judged.message(f"area {area} live")


def _at_a_fresh_second() -> None:
    """Wait until 20 ms past the next whole second of the wall clock, which both servers stamp times with."""
    time.sleep(1.02 - time.time() % 1.0)


def test_recorded_discovery_matches_the_oracle(oracle_client: Client) -> None:
    """The generators enumerate kinds from generators/_discovery.json: it must say what the oracle serves."""
    assert discovery.fetch(oracle_client) == discovery.load(), \
        "the oracle's discovery changed: run scripts/record-discovery, then scripts/record-oracle"
