"""PR #508's table layout, read as people paste it and written as the PR showed it.

    | Step | Delta (ms) | Method | Target Resource | Result / Notes |
    |---:|---:|---|---|---|
    | 9 | 67 | UPDATE | sandboxclaims/agent-claim-4/status | 🔴 409 Conflict (Claim collides w/ itself) |

Reading (``parse_table``) takes a Markdown table or the tab-separated text a spreadsheet or a terminal gives
(the PR's author pasted TSV); columns are found by their header, an extra ``Actor`` column included.

- Result / Notes: an optional colour, an optional code, a reason when one follows the code (a StatusReason
  such as ``Conflict`` or the code's HTTP phrase such as ``Not Found``), then free text; ``; `` starts
  annotations, which an actual row must carry when the row is expected (see `rows.Row`).
- Delta: the PR's is milliseconds since step 1; fakekube's default rendering is milliseconds since the
  previous row. ``delta="auto"`` takes a header that says which (``since step 1``, ``offset``, ``elapsed`` /
  ``since previous``, ``gap``), otherwise a column that never decreases as since-step-1 — a since-previous
  column of three or more rows that happens never to decrease must be named with ``delta="previous"``.
  ``*``, ``?`` or an empty cell is no value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fakekube.audit.codes import COLOURS, STATUS_REASONS, color, reason_names
from fakekube.audit.rows import METHOD_ALIASES, Row, split_target

HEADER = ("Step", "Delta (ms)", "Method", "Target Resource", "Result / Notes")
DELTA_MODES = ("auto", "start", "previous")

_COLUMNS = {
    "step": ("step", "#", "no", "n"),
    "delta": ("delta (ms)", "delta", "Δ (ms)", "δ (ms)", "delta(ms)", "time (ms)", "t (ms)", "offset (ms)",
              "elapsed (ms)"),
    "method": ("method", "verb"),
    "target": ("target resource", "target", "resource", "object", "request"),
    "result": ("result / notes", "result/notes", "result", "notes", "status", "outcome"),
    "actor": ("actor", "user", "who", "client"),
}
_SINCE_START = ("since step 1", "since start", "since first", "offset", "elapsed", "time", "t (ms)")
_SINCE_PREVIOUS = ("since previous", "since prev", "since last", "gap", "Δt")
_HEAD = re.compile(r"^\s*(?P<colour>" + "|".join(COLOURS) + r")?\s*(?:(?P<code>[1-5]\d\d)(?!\w))?\s*(?P<rest>.*)$",
                   re.S)


def _column_of(header: str) -> str | None:
    key = " ".join(header.lower().split())
    for column, names in _COLUMNS.items():
        if key in names:
            return column
    if key.startswith("delta") or key.startswith("δ"):
        return "delta"
    return None


def _cells(line: str) -> list[str] | None:
    line = line.strip()
    if line.startswith("|"):
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
    return None


def _lines(text: str) -> list[list[str]]:
    """The table's lines as cells: Markdown rows if there are any, else tab-separated lines."""
    markdown = [cells for line in text.splitlines() if (cells := _cells(line)) is not None]
    if markdown:
        return markdown
    return [[c.strip() for c in line.split("\t")] for line in text.splitlines() if "\t" in line]


def _delta_value(text: str) -> float | None:
    text = text.replace("+", "").replace("ms", "").strip()
    try:
        return float(text) if text else None
    except ValueError:
        return None


def _delta_mode(header: str, values: list[float | None], mode: str) -> str:
    if mode not in DELTA_MODES:
        raise ValueError(f"delta must be one of {DELTA_MODES}, not {mode!r}")
    if mode != "auto":
        return mode
    key = header.lower()
    if any(hint.lower() in key for hint in _SINCE_PREVIOUS):
        return "previous"
    if any(hint in key for hint in _SINCE_START):
        return "start"
    known = [v for v in values if v is not None]
    return "start" if all(b >= a for a, b in zip(known, known[1:], strict=False)) else "previous"


def _reason_at(rest: str, code: int | None) -> str:
    """The reason that ``rest`` starts with after ``code`` (longest spelling), or ''."""
    candidates = reason_names(code) if code is not None else list(STATUS_REASONS)
    best = ""
    for name in candidates:
        n = len(name)
        if len(name) > len(best) and rest[:n].lower() == name.lower() and (len(rest) == n or not rest[n].isalnum()):
            best = rest[:n]
    if code is None and best != rest.strip():
        return ""  # without a code, only a cell that is nothing but a reason names one ("🔴 Conflict")
    return best


def parse_result(cell: str) -> tuple[str, int | None, str, list[str], list[str]]:
    """A Result / Notes cell → colour, code, reason, notes (prose first) and annotations."""
    head, *annotations = [p.strip() for p in cell.split(";")]
    annotations = [a for a in annotations if a]
    match = _HEAD.match(head)
    assert match is not None  # every part of the pattern is optional
    code = int(match["code"]) if match["code"] else None
    rest = match["rest"].strip()
    reason = _reason_at(rest, code)
    prose = rest[len(reason):].strip()
    colour = match["colour"] or color(code)
    return colour, code, reason, ([prose] if prose else []) + annotations, annotations


def parse_row(record: dict[str, str], index: int) -> Row:
    step_text = record.get("step", "").strip()
    step = int(step_text) if step_text.isdigit() else index
    method = record.get("method", "").strip().upper()
    method = METHOD_ALIASES.get(method, method)
    resource, name, subresource, prefix = split_target(record.get("target", ""))
    if method == "GET" and name is None:
        method = "LIST"  # a GET of a collection is the audit verb list
    colour, code, reason, notes, annotations = parse_result(record.get("result", ""))
    return Row(step=step, method=method, resource=resource, name=name, subresource=subresource, code=code,
               reason=reason, notes=notes, annotations=annotations, colour=colour,
               actor=record.get("actor") or None, name_prefix=prefix,
               generated=method == "CREATE" and name is None)


def parse_table(text: str, delta: str = "auto") -> list[Row]:
    """Rows of a pasted table (see the module docstring for what is understood)."""
    rows: list[Row] = []
    columns: list[str | None] | None = None
    delta_header = ""
    deltas: list[float | None] = []
    for cells in _lines(text):
        if columns is None:
            columns = [_column_of(c) for c in cells]
            if "method" not in columns and "target" not in columns:
                columns = None  # prose before the table
                continue
            delta_header = next((c for c, col in zip(cells, columns, strict=False) if col == "delta"), "")
            continue
        if all(set(c) <= set(":- ") for c in cells):
            continue  # the |---:|---| line
        record = {col: cell for col, cell in zip(columns, cells, strict=False) if col is not None}
        rows.append(parse_row(record, len(rows) + 1))
        deltas.append(_delta_value(record.get("delta", "")))
    _set_times(rows, deltas, _delta_mode(delta_header, deltas, delta))
    return rows


def _set_times(rows: list[Row], values: list[float | None], mode: str) -> None:
    previous_offset: float | None = 0.0
    for i, (row, value) in enumerate(zip(rows, values, strict=True)):
        if mode == "start":
            row.offset_ms = value
            row.delta_ms = (value - previous_offset if value is not None and previous_offset is not None
                            else None) if i else value
            previous_offset = value
        else:
            row.delta_ms = value
            row.offset_ms = (previous_offset + value) if value is not None and previous_offset is not None else None
            previous_offset = row.offset_ms
        if row.offset_ms is not None:
            row.time = row.offset_ms / 1000
        if row.delta_ms is not None:
            row.delta_ms = round(row.delta_ms, 6)


def fmt_ms(value: float | None) -> str:
    """Milliseconds as the tables show them: integers bare, else six significant digits (no exponent)."""
    if value is None:
        return ""
    if value == int(value):
        return str(int(value))
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3f}".rstrip("0").rstrip(".")


def render_table(rows: Sequence[Row], *, delta: str = "previous", actor_column: bool = False) -> str:
    """The PR's layout. ``delta="start"``: Delta is milliseconds since step 1 (as the PR); ``"previous"``:
    since the previous row."""
    if delta not in ("start", "previous"):
        raise ValueError(f"delta must be 'start' or 'previous', not {delta!r}")
    header = list(HEADER)
    if actor_column:
        header.insert(4, "Actor")
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if h in ("Step", "Delta (ms)") else "---" for h in header) + "|"]
    first = rows[0].time if rows and rows[0].time is not None else None
    for row in rows:
        if delta == "start":
            shown = row.offset_ms
            if shown is None and row.time is not None and first is not None:
                shown = round((row.time - first) * 1000, 3)
        else:
            shown = row.delta_ms
        cells = [str(row.step), fmt_ms(shown), row.method, row.target]
        if actor_column:
            cells.append(row.actor or "")
        cells.append(row.result.replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
