"""Timeline.match: classes, reasons, nameless creates, name binding and alignment."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fakekube import Store, errors
from fakekube.audit import Timeline
from fakekube.clock import VirtualClock

HEAD = "| Step | Delta (ms) | Method | Target Resource | Result / Notes |\n|---|---|---|---|---|\n"


def _table(*rows: str) -> str:
    return HEAD + "".join(f"| {i} | 0 | {row} |\n" for i, row in enumerate(rows, 1))


@pytest.fixture
def actual() -> Timeline:
    """claim-x is patched, a pool member is created with generateName, claim-x's status is written twice
    (the second time from a stale copy: 409), the network policy delete 404s; claim-y then does the same."""
    store = Store(seed=1, clock=VirtualClock(datetime(2026, 4, 2, tzinfo=UTC)))
    for claim in ("claim-x", "claim-y"):
        store.create("configmaps", {"metadata": {"name": claim}}, "default", actor="runner")
        store.patch("configmaps", claim, {"data": {"a": "1"}}, "default", actor="ctrl")
        store.create("secrets", {"metadata": {"generateName": "pool-"}}, "default", actor="pool")
        stale = store.get("configmaps", claim, "default")
        store.update("configmaps", {**stale, "data": {"b": "2"}}, "default", actor="ctrl")
        with pytest.raises(errors.Conflict):
            store.update("configmaps", {**stale, "data": {"c": "3"}}, "default", actor="ctrl")
        with pytest.raises(errors.NotFound):
            store.delete("secrets", f"{claim}-network-policy", "default", actor="ctrl")
    return Timeline.from_audit(store.audit)


def test_a_table_with_another_clusters_names_matches_by_binding(actual: Timeline) -> None:
    expected = _table("PATCH | configmaps/agent-claim-4 | 🟢 Controller patches claim",
                      "CREATE | secrets | 🟢 Pool orders a member",
                      "UPDATE | configmaps/agent-claim-4 | 🟢 first write",
                      "UPDATE | configmaps/agent-claim-4 | 🔴 409 Conflict (collides w/ itself)",
                      "DELETE | secrets/agent-claim-4-network-policy | 🟡 404 Not Found (Retry)")
    result = Timeline.match(actual, expected)
    assert result, result.diff
    assert result.bindings == {"agent-claim-4": "claim-x", "agent-claim-4-network-policy": "claim-x-network-policy"}
    assert [a.step for _, a in result.matched] == [2, 3, 4, 5, 6]
    assert not Timeline.match(actual, expected, bind_names=False)


def test_a_bound_name_stays_bound(actual: Timeline) -> None:
    # claim-y's 409 comes after claim-x's rows; but agent-claim-4 is claim-x, so a second 409 is missing.
    expected = _table("PATCH | configmaps/agent-claim-4 | 🟢",
                      "UPDATE | configmaps/agent-claim-4 | 🔴 409 Conflict",
                      "UPDATE | configmaps/agent-claim-4 | 🔴 409 Conflict")
    result = Timeline.match(actual, expected)
    assert not result and [r.step for r in result.missing] == [3]
    assert "names bound: agent-claim-4 = claim-x" in result.diff
    two_claims = expected.replace("| 3 | 0 | UPDATE | configmaps/agent-claim-4 |", "| 3 | 0 | UPDATE | configmaps/agent-claim-5 |")
    assert Timeline.match(actual, two_claims).bindings == {"agent-claim-4": "claim-x", "agent-claim-5": "claim-y"}


def test_a_colour_without_a_code_is_its_class(actual: Timeline) -> None:
    assert Timeline.match(actual, _table("UPDATE | configmaps/c | 🔴 the second write"))
    assert Timeline.match(actual, _table("DELETE | secrets/c-network-policy | 🟡 blind delete"))
    assert not Timeline.match(actual, _table("DELETE | secrets/c-network-policy | 🟢 blind delete"))
    assert not Timeline.match(actual, _table("DELETE | secrets/c-network-policy | 🔴"))


def test_reasons_are_compared_by_name_and_split_409s(actual: Timeline) -> None:
    assert Timeline.match(actual, _table("DELETE | secrets/c-network-policy | 404 NotFound"))
    assert Timeline.match(actual, _table("DELETE | secrets/c-network-policy | 🟡 404 Not Found"))
    assert Timeline.match(actual, _table("UPDATE | configmaps/c | 🔴 409 Conflict"))
    assert not Timeline.match(actual, _table("UPDATE | configmaps/c | 🔴 409 AlreadyExists"))
    assert Timeline.match(actual, _table("CREATE | secrets | 201 Created"))          # an HTTP phrase: the code


def test_a_nameless_create_is_a_generate_name_create(actual: Timeline) -> None:
    assert Timeline.match(actual, _table("CREATE | secrets | 🟢"))
    nameless_configmap = Timeline.match(actual, _table("CREATE | configmaps | 🟢"))  # created by name
    assert not nameless_configmap
    assert "closest actual   1: CREATE configmaps/claim-x" in nameless_configmap.diff


def test_annotations_are_checked_prose_is_not(actual: Timeline) -> None:
    assert Timeline.match(actual, _table("PATCH | configmaps/c | 🟢 anything at all, even no-op"))
    assert not Timeline.match(actual, _table("PATCH | configmaps/c | 🟢 200 OK; no-op"))
    assert Timeline.match(actual, _table("PATCH | configmaps/c | 🟢 200 OK; no-op; (optional)"))


def test_the_alignment_matches_as_many_steps_as_the_run_has(actual: Timeline) -> None:
    # Taking each row's first match would pair step 1 with claim-x's 404 (actual step 6), binding
    # agent-claim-4 to claim-x, and find nothing of claim-x after it; the alignment leaves step 1 out instead
    # and matches the other five.
    expected = _table("DELETE | secrets/agent-claim-4-network-policy | 🟡 404",
                      "PATCH | configmaps/agent-claim-4 | 🟢",
                      "CREATE | secrets | 🟢",
                      "UPDATE | configmaps/agent-claim-4 | 🟢",
                      "UPDATE | configmaps/agent-claim-4 | 🔴 409",
                      "DELETE | secrets/agent-claim-4-network-policy | 🟡 404")
    result = Timeline.match(actual, expected)
    assert [r.step for r in result.missing] == [1]
    assert result.bindings["agent-claim-4"] == "claim-x"
    assert "MISSING  expected   1" in result.diff and "(out of order)" in result.diff


def test_strict_mode_needs_every_row_in_place(actual: Timeline) -> None:
    rows = Timeline(actual.rows[:3])
    assert Timeline.match(rows, rows, ignore_unlisted=False)
    result = Timeline.match(actual, rows, ignore_unlisted=False)
    assert not result and "UNEXPECTED actual   4" in result.diff
