"""Written reproducers replay the failing run, pass because the bug is there, and flip with one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakekube.explore import AfterTime, HoldRule, Perturbation, explore, portable_timeline, render_test
from fakekube.explore.reproducer import to_source
from fakekube.sim import Timeline
from tests.explore import guestbook

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]
FLIP = "BUG_PRESENT = True"


@pytest.fixture(scope="module")
def found():
    return explore(guestbook.scenario, "1-10", {"lock": False}, invariants=[guestbook.every_guest_greeted])


def _run(pytester: pytest.Pytester, text: str, monkeypatch: pytest.MonkeyPatch) -> pytest.RunResult:
    monkeypatch.syspath_prepend(str(ROOT))  # the scenario is tests.explore.guestbook:scenario
    pytester.makepyfile(test_repro=text)
    return pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")


def test_the_written_test_passes_because_the_bug_is_there(found, pytester, monkeypatch) -> None:
    path = pytester.path / "written.py"
    outcome = found.write_test(str(path))
    assert outcome is found.smallest()
    text = path.read_text()
    assert text.count(FLIP) == 1 and "SCENARIO = 'tests.explore.guestbook:scenario'" in text
    assert f"SEED = {outcome.seed}" in text and "POINT = {'lock': False}" in text
    # The book's timeline: the write that lost a greeting marked, no timings, no resourceVersions.
    assert "|  | CREATE | configmaps/guestbook | loader | 🟢 201 Created |" in text
    assert "|  | PATCH | configmaps/guestbook | guestbook | 🟢 200 OK; stale overwrite: data.log |" in text
    assert "@rv" not in text.split('TIMELINE = """')[1]
    _run(pytester, text, monkeypatch).assert_outcomes(passed=1)


def test_flipping_one_line_turns_it_into_a_must_not_happen_test(found, pytester, monkeypatch) -> None:
    text = render_test(found, found.smallest(), "every-guest-greeted")
    result = _run(pytester, text.replace(FLIP, "BUG_PRESENT = False"), monkeypatch)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*was not greeted*"])


def test_it_asserts_the_timeline_not_just_the_invariant(found, pytester, monkeypatch) -> None:
    text = render_test(found, found.smallest(), "every-guest-greeted")
    table = text.split('TIMELINE = """')[1].split('"""')[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| Step")]
    assert len(rows) >= 3
    swapped = text.replace(rows[-1], rows[-1].replace("| guestbook |", "| someone-else |"))
    result = _run(pytester, swapped, monkeypatch)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*timeline mismatch*"])


def test_a_failed_run_is_reproduced_by_its_error(pytester, monkeypatch) -> None:
    crashed = explore(guestbook.crashes_on_even_seeds, "1-4")
    text = render_test(crashed, crashed.smallest(), "error")
    assert "driver failed on seed 2" in text
    _run(pytester, text, monkeypatch).assert_outcomes(passed=1)


def test_the_perturbation_is_written_as_source(pytester, monkeypatch) -> None:
    rule = HoldRule("configmaps", name=guestbook.BOOK, writer=guestbook.ACTOR, until=AfterTime(0.5))
    forced = explore(guestbook.scenario, "1-2", invariants=["no-stale-overwrite"],
                     perturbation=Perturbation(holds=(rule,)))
    text = render_test(forced, forced.smallest(), "no-stale-overwrite")
    assert "from fakekube.explore import AfterTime, HoldRule, ObjectRef, Perturbation, replay" in text
    assert "hold guestbook-manager cache (rule 1)" in text
    _run(pytester, text, monkeypatch).assert_outcomes(passed=1)


def test_source_and_portable_timelines() -> None:
    names: set[str] = set()
    rule = HoldRule("configmaps", until=(AfterTime(0.5),))
    source = to_source(Perturbation(cache_lag_scale=2.0, holds=(rule,)), names)
    assert eval(source, {"Perturbation": Perturbation, "HoldRule": HoldRule, "AfterTime": AfterTime}) == \
        Perturbation(cache_lag_scale=2.0, holds=(rule,))
    assert names == {"Perturbation", "HoldRule", "AfterTime"}
    with pytest.raises(TypeError):
        to_source(object(), names)
    table = Timeline.parse("| Step | Delta (ms) | Method | Target Resource | Result / Notes |\n|---|---|---|---|---|\n"
                           "| 1 | 0 | PATCH | pods/web-1/status | 200 OK; stale overwrite: spec[x] (after kubelet@rv 12) |\n"
                           "| 2 | 5 | PATCH | pods/web-10 | 200 OK |")
    portable = portable_timeline(table).to_markdown()
    assert "| 1 |  | PATCH | pods/web-1/status | 🟢 200 OK; stale overwrite: spec[[]x] |" in portable
    assert "@rv" not in portable
    assert Timeline.match(table, portable, ignore_unlisted=False)
    renamed = Timeline.parse(table.to_markdown().replace("web-1/", "web-7/"))  # another name, same interleaving
    assert Timeline.match(renamed, portable, ignore_unlisted=False)


def test_a_scenario_that_cannot_be_imported_cannot_be_written(found) -> None:
    def local(run):
        return guestbook.scenario(run)

    done = explore(local, "1-10", {"lock": False}, invariants=[guestbook.every_guest_greeted])
    with pytest.raises(ValueError, match="neither registered nor importable"):
        render_test(done, done.smallest(), "every-guest-greeted")
    with pytest.raises(RuntimeError, match="did not break"):
        render_test(found, found.outcomes[[o.failed for o in found.outcomes].index(False)], "every-guest-greeted")
