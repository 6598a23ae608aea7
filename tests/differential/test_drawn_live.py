"""Hypothesis-drawn cases (harness/drawn.py) sent to the real kube-apiserver and to fakekube side by side
(marker ``oracle``). A bounded, derandomised number per run keeps CI repeatable; ``scripts/fuzz-oracle`` draws
many more with fresh seeds and writes every case that diverges into the corpus, where it is recorded.

    FAKEKUBE_FUZZ_EXAMPLES=500 python -m pytest -m oracle tests/differential/test_drawn_live.py
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from tests.differential.harness import corpus, divergences, recordings
from tests.differential.harness.client import Client
from tests.differential.harness.drawn import drawn_case
from tests.differential.harness.runner import Runner

pytestmark = pytest.mark.oracle

EXAMPLES = int(os.environ.get("FAKEKUBE_FUZZ_EXAMPLES", "150"))
ACCEPTED = divergences.load_accepted()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(raw=drawn_case())
def test_drawn_case_agrees(raw: dict[str, Any], oracle_client: Client, fakekube_client: Client) -> None:
    case = corpus.validate(raw, "drawn")
    real = Runner(oracle_client).run(case)
    assert not real.problems, f"{case.name} does not run cleanly on the real server: {real.problems}"
    fake = Runner(fakekube_client, max_wait=3.0).run(case)
    expected = recordings.line_for(case.name, case.digest, real.setup, real.answers)
    actual = recordings.line_for(case.name, case.digest, fake.setup, fake.answers)
    found = divergences.unaccepted(case.name, divergences.differences(expected, actual), ACCEPTED)
    assert not found, (divergences.report(case.name, found, case.steps)
                       + "\nthe case, for tests/differential/corpus/found.yaml:\n"
                       + yaml.safe_dump([raw], sort_keys=False, allow_unicode=True))
