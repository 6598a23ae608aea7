"""Timelines: render → parse → match round trip, diffs, summaries, SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from fakekube.sim import Timeline
from fakekube.sim.timeline import GREEN, RED, YELLOW, color
from tests.sim.example import widget_sim


@pytest.fixture
def run_update():
    sim, _ = widget_sim(status_mode="update")
    sim.run()
    return sim


def test_colours():
    assert (color(200), color(201), color(404), color(409), color(500), color(403)) == (
        GREEN, GREEN, YELLOW, RED, RED, RED)


def test_render_parse_match_round_trip(run_update):
    timeline = run_update.timeline(actors="widget-controller")
    text = timeline.to_markdown(actor_column=True)
    assert text.startswith("| Step | Delta (ms) | Method | Target Resource | Actor | Result / Notes |")
    assert "| UPDATE | widgets/w0/status | widget-controller | 🔴 409 Conflict |" in text
    parsed = Timeline.parse(text)
    assert [(r.method, r.target, r.code, r.actor) for r in parsed] == [
        (r.method, r.target, r.code, r.actor) for r in timeline]
    assert Timeline.match(timeline, parsed, ignore_unlisted=False)


def test_expected_table_from_a_pr_with_wildcards_and_http_verbs(run_update):
    expected = """
    | Step | Delta (ms) | Method | Target Resource | Result / Notes |
    |---|---|---|---|---|
    | 1 | 0 | PATCH | widgets/w0 | 🟢 200 |
    | 2 | 2 | POST | configmaps/w* | 🟢 201 |
    | 3 | 2 | PUT | widgets/w0/status | 🟢 200 |
    | 4 | 1 | POST | events/w0.* | 🟢 201; (optional) |
    | 5 | 9 | PUT | widgets/w0/status | 🔴 409 Conflict |
    """
    run_update.timeline().assert_matches(expected)


def test_a_mismatch_produces_a_readable_diff(run_update):
    expected = """
    | Step | Delta (ms) | Method | Target Resource | Result / Notes |
    |---|---|---|---|---|
    | 1 | 0 | PATCH | widgets/w0 | 🟢 200 |
    | 2 | 0 | PUT | widgets/w0/status | 🟢 200 |
    | 3 | 0 | PUT | widgets/w0/status | 🟢 200 |
    """
    result = Timeline.match(run_update.timeline(), expected)
    assert not result
    assert "MISSING  expected   3: UPDATE widgets/w0/status 🟢 200" in result.diff
    assert "closest actual" in result.diff and "code 409 != 200" in result.diff
    with pytest.raises(AssertionError, match="timeline mismatch"):
        run_update.timeline().assert_matches(expected)


def test_strict_mode_reports_unexpected_steps(run_update):
    timeline = run_update.timeline(objects="widgets/*")
    shorter = Timeline(timeline.rows[:-1])
    result = Timeline.match(timeline, shorter, ignore_unlisted=False)
    assert not result and "UNEXPECTED actual" in result.diff


def test_filters_by_object_and_time_window(run_update):
    everything = run_update.timeline()
    claims = run_update.timeline(objects=["widgets/w0"])
    assert {r.target.split("/")[0] for r in claims} == {"widgets"}
    late = run_update.timeline(since=0.015)
    assert len(late) < len(everything) and all(r.time >= 0.015 for r in late)
    reads = run_update.timeline(include_reads=True)
    assert any(r.method == "WATCH" for r in reads)


def test_summaries_by_resource_and_actor():
    sim, _ = widget_sim(status_mode="merge")
    sim.run()
    summary = sim.timeline().summary()
    assert summary["conflicts"] == 0
    assert summary["stale_by_resource"] == {"widgets/status": 1}
    assert summary["stale_by_actor"] == {"widget-controller": 1}
    assert "stale overwrite (1)" in sim.timeline().summary_markdown()


def test_svg_swim_lanes(run_update):
    svg = run_update.timeline().to_svg(title="widget w0")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "widget-controller" in svg and "#d62728" in svg  # a red 409 marker
