"""PR #508's two audit tables, pasted verbatim, against the simulated seed-timeline run: name binding only,
no wildcard written by hand.

The PR's cluster ran a build with the sandbox-status merge patch (#509) and the pod-name annotation (#272)
(reference/pr-508.md), so the run writes sandbox status with a patch; the claim status is written as each
table's build did (Update, then #508's merge patch). The actual timeline is the first claim's, as
``fakekube simulate --scenario seed-timeline`` selects it (reconcilers.report.claim_timeline_entries).

Where the simulation does not reproduce a step yet (docs/timelines.md, "How far the simulation reproduces the
PR's tables"), the step is listed in KNOWN_GAPS; a step that starts to match is welcome, a step outside the
list that stops matching fails the test.
"""

from __future__ import annotations

import pytest

from fakekube.audit import MatchResult, Timeline
from reconcilers import keys
from reconcilers.report import claim_timeline_entries
from reconcilers.scenarios import run_scenario
from reconcilers.strategies import WriteStrategies
from tests.audit.pr508 import TABLE_PATCH, TABLE_UPDATE

# Steps of each table the simulated run does not reproduce, and why (seed 1; see docs/timelines.md).
KNOWN_GAPS = {
    "update": {
        4: "the event recorder posts the adoption event after the replacement's pod, not right after adopting",
        10: "the adopted pod is updated once, before the claim's second status write (and then loses a 409)",
        19: "one adopted-pod UPDATE succeeds, not three",
        24: "one adopted-pod UPDATE succeeds, not three",
        11: "the replacement sandbox is patched once, before the claim's 409",
        22: "the replacement sandbox is patched once, not twice",
        17: "the replacement's pod is created before the claim's 409, not after",
        23: "the replacement's service is created before the claim's 409, not after",
        12: "fewer network-policy retries between the 409 and the retry that succeeds",
        13: "the pool's status patches fall elsewhere",
        15: "the pool's status patches fall elsewhere",
        20: "the adopted sandbox's status patches are used by the earlier steps",
        26: "the sandbox controller never updates the replacement's pod, so never collides with the kubelet",
        28: "no UPDATE of the replacement's pod",
        29: "no UPDATE of the replacement's pod",
        31: "no UPDATE of the replacement's pod",
        34: "no UPDATE of the replacement's pod",
        # Since the informer became a queue (one consumer, per-event cost; the 953032b3 build), the claim's
        # successful retry comes after the sandbox controller's next pass over both sandboxes instead of
        # before it, so the alignment keeps that pass (20-23) and leaves these out (seed 1).
        14: "the adopted sandbox's status patch is matched by the later one (20)",
        16: "the network-policy retry is matched by the later one (21)",
        18: "the claim's successful retry comes after the sandbox controller's pass (20-23), not before it",
    },
    "patch": {
        4: "the event recorder posts the adoption event after the replacement's pod, not right after adopting",
        10: "the replacement sandbox is patched once, before the claim's second status patch",
        20: "the replacement sandbox is patched once, not twice",
        11: "the adopted pod is updated once, early (and then loses a 409)",
        19: "one adopted-pod UPDATE succeeds, not three",
        25: "one adopted-pod UPDATE succeeds, not three",
        12: "fewer network-policy retries",
        13: "the pool's status patches fall elsewhere",
        16: "the pool's status patches fall elsewhere",
        17: "the replacement's pod is created before the claim's second status patch",
        21: "the adopted sandbox's status patches are used by the earlier steps",
        23: "the replacement's service is created earlier",
        26: "the sandbox controller never updates the replacement's pod, so never collides with the kubelet",
        28: "no UPDATE of the replacement's pod",
        30: "no UPDATE of the replacement's pod",
        33: "no UPDATE of the replacement's pod",
    },
}
TABLES = {"update": TABLE_UPDATE, "patch": TABLE_PATCH}
# The steps each table is about: adoption, the blind DELETE's 404, the replacement, the claim status writes.
STORY = {"update": {1, 2, 3, 5, 6, 9}, "patch": {1, 2, 3, 5, 6, 9, 18}}


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
        assert all(matched[s].method == "PATCH" and matched[s].code == 200 for s in (6, 9, 18))
