"""Timeline.parse on PR #508's tables as posted, and rendering in the PR's layout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fakekube.audit import Timeline
from fakekube.audit.codes import GREEN, RED, YELLOW
from tests.audit.pr508 import TABLE_PATCH, TABLE_UPDATE

SHARED = Path(__file__).resolve().parents[3] / "shared" / "reference" / "pr-508.md"


def _data_lines(table: str) -> list[list[str]]:
    """The table's data rows, split on '|' by hand (an oracle independent of the parser)."""
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in table.splitlines() if re.match(r"^\|\s*\d+\s*\|", line)]


@pytest.mark.skipif(not SHARED.exists(), reason="../shared is absent")
def test_tables_are_verbatim() -> None:
    text = SHARED.read_text()
    assert TABLE_UPDATE in text and TABLE_PATCH in text


@pytest.mark.parametrize(("table", "steps"), [(TABLE_UPDATE, 34), (TABLE_PATCH, 33)])
def test_pr_tables_parse_every_step_with_its_fields(table: str, steps: int) -> None:
    rows = Timeline.parse(table).rows
    lines = _data_lines(table)
    assert len(rows) == len(lines) == steps
    for row, cells in zip(rows, lines, strict=True):
        step, delta, method, target, result = cells
        assert row.step == int(step)
        assert row.method == method
        assert row.target == target
        assert row.offset_ms == float(delta)            # the PR's Delta: since step 1
        assert row.colour == result[0]                  # every cell of the PR starts with its colour
        code = re.match(r"^\S+ (\d{3})\b", result)
        assert row.code == (int(code.group(1)) if code else None)
        parts = [row.colour, str(row.code) if row.code else "", row.reason, *row.notes]
        assert " ".join(p for p in parts if p) == result


def test_cells_without_a_code_keep_the_colour_as_the_class_and_the_text_as_a_note() -> None:
    rows = Timeline.parse(TABLE_UPDATE).rows
    adopt, np404, event, replacement, retry404, conflict = rows[1], rows[2], rows[3], rows[4], rows[6], rows[8]
    assert (adopt.colour, adopt.code, adopt.reason, adopt.notes) == (GREEN, None, "", ["Claim Controller adopts Sandbox"])
    assert (np404.colour, np404.code, np404.reason, np404.notes) == (YELLOW, 404, "Not Found", [])
    assert (retry404.code, retry404.reason, retry404.notes) == (404, "Not Found", ["(Retry)"])
    assert (conflict.colour, conflict.code, conflict.reason, conflict.notes) == (
        RED, 409, "Conflict", ["(Claim collides w/ itself)"])
    assert not any(r.annotations for r in rows)         # prose only: nothing an actual row must carry
    assert (event.resource, event.name, event.name_prefix) == ("events", "agent-claim-4", True)
    assert (replacement.method, replacement.resource, replacement.name, replacement.generated) == (
        "CREATE", "sandboxes", None, True)
    assert Timeline.parse(TABLE_PATCH).rows[3].name == "agent-claim-4.18a"


def test_since_step_one_deltas_give_both_offsets_and_gaps() -> None:
    rows = Timeline.parse(TABLE_UPDATE).rows
    offsets = [float(cells[1]) for cells in _data_lines(TABLE_UPDATE)]
    assert [r.offset_ms for r in rows] == offsets
    assert [r.delta_ms for r in rows] == [0.0] + [b - a for a, b in zip(offsets, offsets[1:], strict=False)]
    assert [r.time for r in rows] == [o / 1000 for o in offsets]


def test_rendering_since_step_one_gives_back_the_pr_table() -> None:
    for table in (TABLE_UPDATE, TABLE_PATCH):
        assert Timeline.parse(table).to_markdown(delta="start") == table


def test_rendering_since_previous_and_reading_it_back() -> None:
    timeline = Timeline.parse(TABLE_UPDATE)
    gaps = timeline.to_markdown()                       # fakekube's default: since the previous row
    assert "| 2 | 17 | UPDATE | sandboxes/warmpool-0-6qkhx |" in gaps
    assert "| 3 | 11 | DELETE |" in gaps
    again = Timeline.parse(gaps)                        # a column that decreases is read as gaps
    assert [r.offset_ms for r in again] == [r.offset_ms for r in timeline]
    assert Timeline.parse(gaps, delta="start").rows[2].offset_ms == 11


def test_delta_mode_from_the_header_or_explicit() -> None:
    table = ("| Step | Delta since previous (ms) | Method | Target Resource | Result / Notes |\n|---|---|---|---|---|\n"
             "| 1 | 0 | GET | pods/a | 🟢 200 |\n| 2 | 5 | GET | pods/a | 🟢 200 |\n| 3 | 5 | GET | pods/a | 🟢 200 |\n")
    assert [r.offset_ms for r in Timeline.parse(table)] == [0, 5, 10]
    plain = table.replace("Delta since previous (ms)", "Delta (ms)")
    assert [r.offset_ms for r in Timeline.parse(plain)] == [0, 5, 5]   # never decreases: since step 1
    assert [r.offset_ms for r in Timeline.parse(plain, delta="previous")] == [0, 5, 10]
    with pytest.raises(ValueError):
        Timeline.parse(plain, delta="sideways")


def test_tab_separated_as_the_author_pasted_it() -> None:
    lines = ["Step\tDelta (ms)\tMethod\tTarget Resource\tResult / Notes"]
    lines += ["\t".join(cells) for cells in _data_lines(TABLE_UPDATE)]
    tsv = Timeline.parse("\n".join(lines))
    md = Timeline.parse(TABLE_UPDATE)
    assert [(r.step, r.method, r.target, r.code, r.colour, r.notes, r.offset_ms) for r in tsv] == [
        (r.step, r.method, r.target, r.code, r.colour, r.notes, r.offset_ms) for r in md]


def test_result_cells() -> None:
    table = """
    Some prose before the table.

    | Step | Delta (ms) | Method | Target Resource | Actor | Result / Notes |
    |---|---|---|---|---|---|
    | 1 | * | POST | `configmaps/c` | kubectl | 201 Created |
    | 2 | * | PUT | configmaps/c | ctrl | 🟢 200 OK; no-op; stale overwrite: data.k |
    | 3 | * | GET | configmaps | ctrl | 🟢 |
    | 4 | * | DELETE | configmaps/c | ctrl | 🔴 Conflict |
    | 5 | * | PATCH | configmaps/c | ctrl | 422 Unprocessable Entity (bad patch) |
    | 6 | * | PATCH | configmaps/c | ctrl | SUCCESS: patched \\| twice |
    """
    rows = Timeline.parse(table).rows
    assert [(r.method, r.target, r.actor) for r in rows][:3] == [
        ("CREATE", "configmaps/c", "kubectl"), ("UPDATE", "configmaps/c", "ctrl"), ("LIST", "configmaps", "ctrl")]
    assert (rows[0].colour, rows[0].code, rows[0].reason) == (GREEN, 201, "Created")
    assert rows[1].annotations == rows[1].notes == ["no-op", "stale overwrite: data.k"]
    assert rows[1].result == "🟢 200 OK; no-op; stale overwrite: data.k"
    assert (rows[2].colour, rows[2].code) == (GREEN, None)
    assert (rows[3].code, rows[3].reason) == (None, "Conflict")
    assert (rows[4].code, rows[4].reason, rows[4].notes) == (422, "Unprocessable Entity", ["(bad patch)"])
    assert (rows[5].colour, rows[5].code, rows[5].notes) == ("", None, ["SUCCESS: patched | twice"])
    assert all(r.offset_ms is None and r.delta_ms is None for r in rows)
