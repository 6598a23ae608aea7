"""Timelines: the audit log as the table agent-sandbox PR #508 used, and back.

    | Step | Delta (ms) | Method | Target Resource | Result / Notes |
    |---:|---:|---|---|---|
    | 1 | 0 | UPDATE | sandboxes/warmpool-0-x7k2p | 🟢 200 OK |
    | 6 | 4 | UPDATE | sandboxclaims/agent-claim-4/status | 🔴 409 Conflict |

- Method is the audit verb in capitals (GET, LIST, WATCH, CREATE, UPDATE, PATCH, DELETE, DELETECOLLECTION);
  the parser also accepts HTTP spellings (POST → CREATE, PUT → UPDATE).
- Target is ``resource/name[/subresource]``; Delta is milliseconds since the previous row (``delta="start"``:
  since the first row).
- Result is 🟢 for 2xx, 🟡 for 404 and other expected 4xx (400, 410, 412, 415, 422, 429), 🔴 for 409 and 5xx,
  then the code and reason, then notes separated by ``; `` (stale overwrites, no-ops, injected faults).
- An optional ``Actor`` column is rendered with ``actor_column=True`` and understood by the parser.

``Timeline.match(actual, expected, ignore_unlisted=True)`` checks that the expected rows appear in order
(as a subsequence when unlisted rows are ignored, row for row otherwise), with shell wildcards in targets and
actors (``sandboxes/warmpool-0-*``), and rows whose notes say ``(optional)`` allowed to be missing.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakekube.audit import AuditEntry

HEADER = ("Step", "Delta (ms)", "Method", "Target Resource", "Result / Notes")
GREEN, YELLOW, RED = "🟢", "🟡", "🔴"
EXPECTED_4XX = (400, 404, 410, 412, 415, 422, 429)
HTTP_REASONS = {200: "OK", 201: "Created", 202: "Accepted", 204: "NoContent", 400: "BadRequest",
                404: "NotFound", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType",
                422: "Invalid", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
                504: "Timeout"}
METHOD_ALIASES = {"POST": "CREATE", "PUT": "UPDATE"}


def color(code: int | None) -> str:
    if code is None:
        return ""
    if 200 <= code < 300:
        return GREEN
    if code == 409 or code >= 500:
        return RED
    if 400 <= code < 500:
        return YELLOW if code in EXPECTED_4XX else RED
    return YELLOW


@dataclass
class Row:
    step: int
    method: str
    target: str
    code: int | None = None
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    delta_ms: float | None = None
    actor: str | None = None
    time: float | None = None  # seconds since the timeline's start
    seq: int | None = None

    @property
    def optional(self) -> bool:
        return any(n.strip().lower() == "(optional)" for n in self.notes)

    @property
    def result(self) -> str:
        parts = []
        if self.code is not None:
            parts.append(f"{color(self.code)} {self.code}" + (f" {self.reason}" if self.reason else ""))
        text = " ".join(parts)
        if self.notes:
            text = "; ".join([text, *self.notes]) if text else "; ".join(self.notes)
        return text

    def describe(self) -> str:
        who = f" [{self.actor}]" if self.actor else ""
        return f"{self.method} {self.target} {self.result}{who}".strip()


def _entry_row(entry: AuditEntry, step: int, start: float) -> Row:
    reason = entry.reason or HTTP_REASONS.get(entry.code, "")
    return Row(step=step, method=entry.verb.upper(), target=entry.path, code=entry.code, reason=reason,
               notes=list(entry.notes), actor=entry.actor, time=entry.time - start, seq=entry.seq)


def _globs(value: str | Iterable[str] | None) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def _any_glob(text: str | None, patterns: list[str]) -> bool:
    return text is not None and any(fnmatch.fnmatchcase(text, p) for p in patterns)


@dataclass
class MatchResult:
    ok: bool
    pairs: list[tuple[int, int | None]]  # (expected index, actual index or None)
    diff: str

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return self.diff


class Timeline:
    def __init__(self, rows: Sequence[Row] | None = None) -> None:
        self.rows: list[Row] = list(rows or [])

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __getitem__(self, index: int) -> Row:
        return self.rows[index]

    # -- building ---------------------------------------------------------------------------------------

    @classmethod
    def from_audit(cls, audit: Iterable[AuditEntry], *, actors: str | Iterable[str] | None = None,
                   exclude_actors: str | Iterable[str] | None = None,
                   objects: str | Iterable[str] | None = None, names: str | Iterable[str] | None = None,
                   resources: str | Iterable[str] | None = None, since: float | None = None,
                   until: float | None = None, verbs: Iterable[str] | None = None, include_reads: bool = False,
                   start: float | None = None, stale: Any = None) -> Timeline:
        """Select audit entries and number them as steps.

        ``actors`` / ``exclude_actors``: glob patterns on the actor. ``objects``: globs on
        ``resource/name`` (e.g. ``["sandboxclaims/C", "sandboxes/W", "pods/W", "events/C.*"]``);
        ``names``: globs on the name alone. ``since`` / ``until``: seconds since ``start`` (default: the
        first entry of the log). Reads (GET, LIST, WATCH) are left out unless ``include_reads``.
        """
        entries = list(audit)
        origin = start if start is not None else (entries[0].time if entries else 0.0)
        actor_globs, excluded = _globs(actors), _globs(exclude_actors) or []
        object_globs, name_globs, resource_globs = _globs(objects), _globs(names), _globs(resources)
        verb_set = tuple(v.lower() for v in verbs) if verbs is not None else None
        rows: list[Row] = []
        previous: float | None = None
        for entry in entries:
            if verb_set is not None:
                if entry.verb not in verb_set:
                    continue
            elif not include_reads and not entry.is_write:
                continue
            if actor_globs is not None and not _any_glob(entry.actor, actor_globs):
                continue
            if excluded and _any_glob(entry.actor, excluded):
                continue
            if resource_globs is not None and not _any_glob(entry.resource, resource_globs):
                continue
            if object_globs is not None and not _any_glob(f"{entry.resource}/{entry.name}", object_globs):
                continue
            if name_globs is not None and not _any_glob(entry.name, name_globs):
                continue
            rel = entry.time - origin
            if since is not None and rel < since - 1e-12:
                continue
            if until is not None and rel > until + 1e-12:
                continue
            row = _entry_row(entry, len(rows) + 1, origin)
            row.delta_ms = 0.0 if previous is None else round((entry.time - previous) * 1000, 3)
            previous = entry.time
            rows.append(row)
        return cls(rows)

    # -- markdown ---------------------------------------------------------------------------------------

    def to_markdown(self, *, delta: str = "previous", actor_column: bool = False) -> str:
        header = list(HEADER)
        if actor_column:
            header.insert(4, "Actor")
        lines = ["| " + " | ".join(header) + " |",
                 "|" + "|".join("---:" if h in ("Step", "Delta (ms)") else "---" for h in header) + "|"]
        first = self.rows[0].time if self.rows and self.rows[0].time is not None else None
        for row in self.rows:
            if delta == "start" and row.time is not None and first is not None:
                shown = round((row.time - first) * 1000, 3)
            else:
                shown = row.delta_ms
            cells = [str(row.step), _fmt_ms(shown), row.method, row.target]
            if actor_column:
                cells.append(row.actor or "")
            cells.append(row.result.replace("|", "\\|"))
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_markdown()

    @classmethod
    def parse(cls, text: str) -> Timeline:
        """Read a markdown table in the PR #508 layout (extra columns such as Actor are recognised)."""
        rows: list[Row] = []
        columns: list[str] | None = None
        for line in text.splitlines():
            line = line.strip()
            if not line.startswith("|"):
                continue
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip("|"))]
            if columns is None:
                columns = [c.lower() for c in cells]
                continue
            if all(set(c) <= set(":- ") for c in cells):
                continue
            record = dict(zip(columns, cells, strict=False))
            rows.append(_parse_row(record, len(rows) + 1))
        return cls(rows)

    # -- matching ---------------------------------------------------------------------------------------

    @staticmethod
    def row_matches(actual: Row, expected: Row) -> bool:
        if METHOD_ALIASES.get(expected.method, expected.method) != actual.method:
            return False
        if not fnmatch.fnmatchcase(actual.target, expected.target):
            return False
        if expected.code is not None and expected.code != actual.code:
            return False
        if expected.reason and actual.reason and expected.reason.lower() != actual.reason.lower():
            return False
        if expected.actor and not fnmatch.fnmatchcase(actual.actor or "", expected.actor):
            return False
        for note in expected.notes:
            if note.strip().lower() == "(optional)":
                continue
            pattern = f"*{note.strip()}*"
            if not any(fnmatch.fnmatchcase(n, pattern) for n in actual.notes):
                return False
        return True

    @classmethod
    def match(cls, actual: Timeline | str, expected: Timeline | str, ignore_unlisted: bool = True) -> MatchResult:
        actual_t = actual if isinstance(actual, Timeline) else cls.parse(actual)
        expected_t = expected if isinstance(expected, Timeline) else cls.parse(expected)
        acts, exps = actual_t.rows, expected_t.rows
        pairs: list[tuple[int, int | None]] = []
        ok = True
        pos = 0
        for ei, exp in enumerate(exps):
            found = None
            if ignore_unlisted:
                for ai in range(pos, len(acts)):
                    if cls.row_matches(acts[ai], exp):
                        found = ai
                        break
            elif pos < len(acts) and cls.row_matches(acts[pos], exp):
                found = pos
            if found is None:
                pairs.append((ei, None))
                if not exp.optional:
                    ok = False
                continue
            pairs.append((ei, found))
            pos = found + 1
        extra = [] if ignore_unlisted else list(range(pos, len(acts)))
        if extra:
            ok = False
        return MatchResult(ok, pairs, "" if ok else cls._diff(acts, exps, pairs, extra, ignore_unlisted))

    @staticmethod
    def _diff(acts: list[Row], exps: list[Row], pairs: list[tuple[int, int | None]], extra: list[int],
              ignore_unlisted: bool) -> str:
        lines = [f"timeline mismatch ({'unlisted steps ignored' if ignore_unlisted else 'every step listed'}):"]
        last = -1
        for ei, ai in pairs:
            exp = exps[ei]
            if ai is not None:
                lines.append(f"  ok       expected {exp.step:>3}: {exp.describe()}")
                lines.append(f"           = actual {acts[ai].step:>3}: {acts[ai].describe()}")
                last = ai
                continue
            tag = "skipped " if exp.optional else "MISSING "
            lines.append(f"  {tag} expected {exp.step:>3}: {exp.describe()}")
            near = _closest(acts, exp, last + 1)
            if near is not None:
                act = acts[near]
                lines.append(f"           closest actual {act.step:>3}: {act.describe()}  ({_why(act, exp)})")
            elif last + 1 < len(acts):
                act = acts[last + 1]
                lines.append(f"           next actual {act.step:>3}: {act.describe()}")
            else:
                lines.append("           (no actual steps left)")
        for ai in extra:
            lines.append(f"  UNEXPECTED actual {acts[ai].step:>3}: {acts[ai].describe()}")
        return "\n".join(lines)

    def assert_matches(self, expected: Timeline | str, ignore_unlisted: bool = True) -> None:
        result = self.match(self, expected, ignore_unlisted)
        if not result:
            raise AssertionError(result.diff)

    # -- summaries --------------------------------------------------------------------------------------

    def conflicts(self) -> list[Row]:
        return [r for r in self.rows if r.code == 409 and r.reason == "Conflict"]

    def stale_overwrites(self) -> list[Row]:
        return [r for r in self.rows if any(n.startswith("stale overwrite") for n in r.notes)]

    def summary(self) -> dict[str, Any]:
        def by(rows: list[Row], key: str) -> dict[str, int]:
            counts: Counter[str] = Counter()
            for r in rows:
                counts[(r.actor or "?") if key == "actor" else _resource_of(r.target)] += 1
            return dict(sorted(counts.items()))

        conflicts, stale = self.conflicts(), self.stale_overwrites()
        return {
            "steps": len(self.rows),
            "conflicts": len(conflicts),
            "conflicts_by_resource": by(conflicts, "resource"),
            "conflicts_by_actor": by(conflicts, "actor"),
            "stale_overwrites": len(stale),
            "stale_by_resource": by(stale, "resource"),
            "stale_by_actor": by(stale, "actor"),
        }

    def summary_markdown(self) -> str:
        s = self.summary()
        lines = ["| | by resource | by actor |", "|---|---|---|"]
        for label, key in (("409 Conflict", "conflicts"), ("stale overwrite", "stale")):
            res = ", ".join(f"{k}: {v}" for k, v in s[f"{key}_by_resource"].items()) or "–"
            act = ", ".join(f"{k}: {v}" for k, v in s[f"{key}_by_actor"].items()) or "–"
            total = s["conflicts"] if key == "conflicts" else s["stale_overwrites"]
            lines.append(f"| {label} ({total}) | {res} | {act} |")
        return "\n".join(lines) + "\n"

    # -- pictures ---------------------------------------------------------------------------------------

    def to_svg(self, **options: Any) -> str:
        from .svg import swimlanes

        return swimlanes(self.rows, **options)


def _fmt_ms(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:g}" if value != int(value) else str(int(value))


_RESULT = re.compile(r"^\s*(?:🟢|🟡|🔴)?\s*(\d{3})?\s*([A-Za-z][A-Za-z ]*?)?\s*$")


def _parse_row(record: dict[str, str], index: int) -> Row:
    step_text = record.get("step", "")
    step = int(step_text) if step_text.isdigit() else index
    delta_text = record.get("delta (ms)", record.get("delta", "")).replace("+", "").strip()
    try:
        delta = float(delta_text) if delta_text else None
    except ValueError:
        delta = None
    method = record.get("method", "").upper()
    method = METHOD_ALIASES.get(method, method)
    target = record.get("target resource", record.get("target", "")).strip("` ")
    result = record.get("result / notes", record.get("result", ""))
    head, *notes = [p.strip() for p in result.split(";")]
    code: int | None = None
    reason = ""
    match = _RESULT.match(head)
    if match and (match.group(1) or match.group(2)):
        code = int(match.group(1)) if match.group(1) else None
        reason = (match.group(2) or "").strip()
    elif head:
        notes.insert(0, head)
    actor = record.get("actor") or None
    return Row(step=step, method=method, target=target, code=code, reason=reason, notes=[n for n in notes if n],
               delta_ms=delta, actor=actor)


def _resource_of(target: str) -> str:
    parts = target.split("/")
    return parts[0] + (f"/{parts[2]}" if len(parts) > 2 else "")


def _closest(acts: list[Row], exp: Row, start: int) -> int | None:
    """An actual row after ``start`` with the same method and target (so only the result differs)."""
    for ai in range(start, len(acts)):
        act = acts[ai]
        if act.method == METHOD_ALIASES.get(exp.method, exp.method) and fnmatch.fnmatchcase(act.target, exp.target):
            return ai
    for ai in range(start, len(acts)):
        if fnmatch.fnmatchcase(acts[ai].target, exp.target):
            return ai
    return None


def _why(act: Row, exp: Row) -> str:
    reasons = []
    if act.method != METHOD_ALIASES.get(exp.method, exp.method):
        reasons.append(f"method {act.method} != {exp.method}")
    if exp.code is not None and act.code != exp.code:
        reasons.append(f"code {act.code} != {exp.code}")
    if exp.actor and not fnmatch.fnmatchcase(act.actor or "", exp.actor):
        reasons.append(f"actor {act.actor} != {exp.actor}")
    missing = [n for n in exp.notes if n.strip().lower() != "(optional)"
               and not any(fnmatch.fnmatchcase(a, f"*{n.strip()}*") for a in act.notes)]
    if missing:
        reasons.append("notes lack " + ", ".join(repr(n) for n in missing))
    return "; ".join(reasons) or "out of order"
