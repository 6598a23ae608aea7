"""PR #508's two audit tables, pasted verbatim, against the simulated seed-timeline run: name binding only,
no wildcard written by hand.

The PR's cluster ran a build with the sandbox-status merge patch (#509) and the pod-name annotation (#272)
(reference/pr-508.md), so the run writes sandbox status with a patch; the claim status is written as each
table's build did (Update, then #508's merge patch). The actual timeline is the first claim's, as
``fakekube simulate --scenario seed-timeline`` selects it (fakekube.agentsandbox.report.claim_timeline_entries).

Where the simulation does not reproduce a step yet (docs/timelines.md, "How far the simulation reproduces the
PR's tables"), the step is listed in KNOWN_GAPS; a step that starts to match is welcome, a step outside the
list that stops matching fails the test.
"""

from __future__ import annotations

import pytest

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.report import claim_timeline_entries
from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.audit import MatchResult, Timeline
from tests.audit.pr508 import TABLE_PATCH, TABLE_UPDATE

# Steps of each table the simulated run does not reproduce, and why (seed 1, the 953032b3 build and the model
# fitted from table 1; see docs/timelines.md and docs/reproducing-pr-508.md). Every other step matches.
KNOWN_GAPS = {
    "update": {
        10: "the adopted pod's first UPDATE comes later, among the claim's retries",
        13: "the pool's status patches fall elsewhere",
        18: "the retry that succeeds lands just before the replacement's pod CREATE, not just after",
        21: "one network-policy DELETE fewer after that retry",
    },
    "patch": {
        10: "the replacement's trace-annotation PATCH comes later",
        11: "the adopted pod's first UPDATE comes later",
        14: "the adopted sandbox's first status patch comes later",
        16: "the pool's status patches fall elsewhere",
        18: "the third claim status PATCH lands before the replacement's pod CREATE",
        21: "the adopted sandbox's status patches are used by the earlier steps",
        22: "one network-policy DELETE fewer",
    },
}
TABLES = {"update": TABLE_UPDATE, "patch": TABLE_PATCH}
# The steps each table is about: adoption, the blind DELETE's 404, the replacement, the claim's first two status
# writes (in table 1 the 200 and the 409 of the claim colliding with itself).
STORY = {"update": {1, 2, 3, 5, 6, 9}, "patch": {1, 2, 3, 5, 6, 9}}


@pytest.fixture(scope="module")
def runs():
    return {mode: run_scenario("seed-timeline", WriteStrategies(mode, sandbox_status="patch"), seed=1)
            for mode in TABLES}


def _match(run, mode: str) -> tuple[str, MatchResult]:
    claim = next(iter(run.tracker.claim_created))
    entries = claim_timeline_entries(run, claim)
    return claim, Timeline.match(Timeline.from_audit(entries, start=entries[0].time), TABLES[mode])


def _replacement(run, adopted: str) -> str:
    """The first sandbox the warm pool creates after the claim controller adopted ``adopted`` (from the log)."""
    log = run.env.store.audit.entries
    adoption = next(i for i, e in enumerate(log) if e.resource == "sandboxes" and e.name == adopted
                    and e.verb == "update" and e.actor == keys.CLAIM_ACTOR and e.ok)
    return next(e.name for e in log[adoption:] if e.resource == "sandboxes" and e.verb == "create"
                and e.actor == keys.WARMPOOL_ACTOR and e.ok)


@pytest.mark.parametrize("mode", TABLES)
def test_names_bind_to_the_objects_of_the_story(runs, mode: str) -> None:
    run = runs[mode]
    claim, result = _match(run, mode)
    status = run.env.store.get(keys.CLAIMS, claim, run.scenario.params.namespace)["status"]
    adopted = status["sandbox"]["name"]
    adopted_in_table, replacement_in_table = ("warmpool-0-6qkhx", "warmpool-0-qcblt") if mode == "update" else (
        "warmpool-0-8wljs", "warmpool-0-7drtx")
    assert result.bindings == {
        "agent-claim-4": claim,
        "agent-claim-4-network-policy": f"{claim}-network-policy",
        "warmpool-0": run.scenario.params.pool,
        adopted_in_table: adopted,
        replacement_in_table: _replacement(run, adopted),
    }, result.diff


@pytest.mark.parametrize("mode", TABLES)
def test_the_pr_tables_match_as_far_as_the_simulation_reproduces_them(runs, mode: str) -> None:
    _, result = _match(runs[mode], mode)
    missing = {row.step for row in result.missing}
    assert missing <= set(KNOWN_GAPS[mode]), f"steps that stopped matching: {sorted(missing - set(KNOWN_GAPS[mode]))}" \
                                             f"\n{result.diff}"
    assert not STORY[mode] & missing, result.diff
    matched = dict((e.step, a) for e, a in result.matched)
    if mode == "update":
        assert (matched[6].code, matched[9].code, matched[9].reason) == (200, 409, "Conflict")  # with itself
        assert matched[6].actor == matched[9].actor == keys.CLAIM_ACTOR
        # Step 18's story holds even where its position does not: the claim's retry after the 409 succeeds.
        claim_writes = [a for a in result.actual if a.target == matched[9].target and a.step > matched[9].step]
        assert claim_writes and claim_writes[0].code == 200, result.diff
    else:
        assert all(matched[s].method == "PATCH" and matched[s].code == 200 for s in (6, 9))
