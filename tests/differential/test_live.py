"""The live differential run (marker ``oracle``): the corpus against the real kube-apiserver and fakekube
side by side, compared directly (not through recordings), less the accepted divergences.

    scripts/build-oracle && python -m pytest -m oracle tests/differential

Skipped with the reason when the oracle is not built, unless FAKEKUBE_REQUIRE_ORACLE=1 (CI), which makes a
missing oracle a failure. Cases with ``skip_live`` are skipped with their reason.
"""

from __future__ import annotations

import pytest

from tests.differential.harness import corpus, divergences, recordings
from tests.differential.harness.client import Client
from tests.differential.harness.runner import Runner

pytestmark = pytest.mark.oracle

CASES = corpus.load()
BY_NAME = {case.name: case for case in CASES}
ACCEPTED = divergences.load_accepted()


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_case_agrees_live(name: str, oracle_client: Client, fakekube_client: Client) -> None:
    case = BY_NAME[name]
    if case.skip_live:
        pytest.skip(case.skip_live)
    real = Runner(oracle_client).run(case)
    assert not real.problems, f"{name}: the case does not run reproducibly on the oracle:\n  " + \
        "\n  ".join(real.problems)
    fake = Runner(fakekube_client, max_wait=3.0).run(case)
    expected = recordings.line_for(name, case.digest, real.setup, real.answers)
    actual = recordings.line_for(name, case.digest, fake.setup, fake.answers)
    found = divergences.unaccepted(name, divergences.differences(expected, actual), ACCEPTED)
    assert not found, divergences.report(name, found, case.steps)
