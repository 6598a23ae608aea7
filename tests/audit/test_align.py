"""Timeline.align: the longest in-order common subsequence by method, role, subresource and result class, and
the cadence ratio."""

from __future__ import annotations

import pytest

from fakekube.audit import Timeline
from fakekube.audit.align import align, result_class

EXPECTED = """
| Step | Delta (ms) | Method | Target Resource | Result / Notes |
|---:|---:|---|---|---|
| 1 | 0 | PATCH | widgets/w-1 | 🟢 someone patches |
| 2 | 10 | UPDATE | gadgets/g-abcde | 🟢 adopted |
| 3 | 20 | DELETE | policies/w-1-policy | 🟡 404 Not Found |
| 4 | 40 | UPDATE | widgets/w-1/status | 🔴 409 Conflict (collides w/ itself) |
| 5 | 80 | CREATE | gadgets | 🟢 nameless create |
"""

ACTUAL = """
| Step | Delta (ms) | Method | Target Resource | Result / Notes |
|---:|---:|---|---|---|
| 1 | 0 | CREATE | widgets/x | 🟢 201 Created |
| 2 | 5 | PATCH | widgets/x | 🟢 200 OK |
| 3 | 25 | UPDATE | gadgets/y-zzzzz | 🟢 200 OK |
| 4 | 30 | UPDATE | widgets/x/status | 🟢 200 OK |
| 5 | 45 | DELETE | policies/x-policy | 🟡 404 NotFound |
| 6 | 85 | UPDATE | widgets/x/status | 🔴 409 Conflict |
| 7 | 165 | CREATE | gadgets/y-qqqqq | 🟢 201 Created |
"""


def test_steps_align_by_method_role_subresource_and_result_class():
    result = Timeline.align(ACTUAL, EXPECTED)  # no role function: the resource is the role
    assert [(e, a) for e, a in result.pairs] == [(0, 1), (1, 2), (2, 4), (3, 5), (4, 6)]
    assert result.aligned == 5 and result.fraction == 1.0
    assert [r.step for r in result.unmatched_actual] == [1, 4]  # the create, and the 200 status write
    assert result.unmatched_expected == []


def test_the_cadence_ratio_is_the_median_of_actual_over_expected_time_since_the_first_aligned_step():
    result = Timeline.align(ACTUAL, EXPECTED)
    # expected offsets 10, 20, 40, 80 after step 1; actual 20, 40, 80, 160 after its aligned step 2 (5 ms)
    assert result.ratios == pytest.approx([2.0, 2.0, 2.0, 2.0])
    assert result.cadence == pytest.approx(2.0)
    assert Timeline.align(EXPECTED, EXPECTED).cadence == pytest.approx(1.0)


def test_roles_replace_names_and_a_colour_stands_for_its_class():
    def roles(rows):
        return ["story" if r.resource in ("widgets", "gadgets") else "other" for r in rows]

    result = Timeline.align(ACTUAL, EXPECTED, roles)
    assert result.expected_roles[:2] == ["story", "story"]
    expected = Timeline.parse(EXPECTED).rows
    assert (expected[0].code, result_class(expected[0])) == (None, "🟢")  # colour only
    assert result_class(expected[3]) == "🔴"
    # A different result class never aligns: the expected 409 does not pair with a 200.
    assert all(not (e == 3 and result.actual[a].code == 200) for e, a in result.pairs)


def test_unmatched_steps_are_listed_and_the_text_shows_both_timelines():
    actual = Timeline.parse(ACTUAL).rows[:4]
    result = align(actual, Timeline.parse(EXPECTED).rows)
    assert [r.step for r in result.unmatched_expected] == [3, 4, 5]
    summary = result.summary()
    assert summary["aligned"] == 2 and summary["unmatched_expected"] == [3, 4, 5]
    text = result.to_text()
    assert text.startswith("aligned 2 of 5 expected steps (40%) in order")
    assert sum(line.startswith("  -  ") for line in text.splitlines()) == 3
    assert sum(line.startswith("  =  ") for line in text.splitlines()) == 2
    assert align(actual[:1], Timeline.parse(EXPECTED).rows).cadence is None  # one aligned step: no ratio
