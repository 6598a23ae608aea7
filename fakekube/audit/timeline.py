"""Timelines: the audit log as the table agent-sandbox PR #508 used, and back.

    | Step | Delta (ms) | Method | Target Resource | Result / Notes |
    |---:|---:|---|---|---|
    | 1 | 0 | PATCH | sandboxclaims/agent-claim-4 | 🟢 Test Runner injects Claim |
    | 9 | 67 | UPDATE | sandboxclaims/agent-claim-4/status | 🔴 409 Conflict (Claim collides w/ itself) |

``Timeline.from_audit`` numbers audit entries as steps; ``Timeline.parse`` reads a table as pasted (PR #508's
verbatim — see `fakekube.audit.table`); ``to_markdown`` writes one (Delta since the previous row by default,
``delta="start"`` for since step 1 as the PR); ``Timeline.match(actual, expected)`` checks that the expected
rows appear in order, binding the expected table's names to the actual ones (`fakekube.audit.matching`,
`fakekube.audit.names`). The row model is `fakekube.audit.rows.Row`.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from fakekube.audit.align import Alignment, RoleFunction
from fakekube.audit.align import align as align_rows
from fakekube.audit.codes import EXPECTED_4XX, GREEN, HTTP_REASONS, RED, YELLOW, color, default_reason
from fakekube.audit.entry import AuditEntry
from fakekube.audit.matching import MatchResult, match_rows, row_trial
from fakekube.audit.rows import METHOD_ALIASES, Row
from fakekube.audit.table import HEADER, parse_table, render_table

__all__ = ["EXPECTED_4XX", "GREEN", "HEADER", "HTTP_REASONS", "METHOD_ALIASES", "RED", "YELLOW", "MatchResult",
           "Row", "Timeline", "color", "entry_row"]


def entry_row(entry: AuditEntry, step: int, start: float) -> Row:
    """An audit entry as a row (``time`` in seconds since ``start``)."""
    return Row(step=step, method=entry.verb.upper(), resource=entry.resource, name=entry.name,
               subresource=entry.subresource, code=entry.code, reason=entry.reason or default_reason(entry.code),
               notes=list(entry.notes), annotations=list(entry.notes), actor=entry.actor, time=entry.time - start,
               seq=entry.seq, namespace=entry.namespace, uid=entry.uid, generated=entry.generate_name is not None)


def _globs(value: str | Iterable[str] | None) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def _any_glob(text: str | None, patterns: list[str]) -> bool:
    return text is not None and any(fnmatch.fnmatchcase(text, p) for p in patterns)


class Timeline:
    def __init__(self, rows: Sequence[Row] | None = None) -> None:
        self.rows: list[Row] = list(rows or [])

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Row]:
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
        first: float | None = None
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
            row = entry_row(entry, len(rows) + 1, origin)
            row.delta_ms = 0.0 if previous is None else round((entry.time - previous) * 1000, 3)
            first = entry.time if first is None else first
            row.offset_ms = round((entry.time - first) * 1000, 3)
            previous = entry.time
            rows.append(row)
        return cls(rows)

    # -- markdown ---------------------------------------------------------------------------------------

    def to_markdown(self, *, delta: str = "previous", actor_column: bool = False) -> str:
        """The PR's table. ``delta="previous"``: milliseconds since the previous row; ``"start"``: since
        step 1, as PR #508 printed it."""
        return render_table(self.rows, delta=delta, actor_column=actor_column)

    def __str__(self) -> str:
        return self.to_markdown()

    @classmethod
    def parse(cls, text: str, *, delta: str = "auto") -> Timeline:
        """Read a table as pasted (Markdown or tab-separated; PR #508's layout; an Actor column is understood).
        ``delta``: ``"auto"`` (default), ``"start"`` (since step 1) or ``"previous"``."""
        return cls(parse_table(text, delta=delta))

    # -- matching ---------------------------------------------------------------------------------------

    @staticmethod
    def row_matches(actual: Row, expected: Row) -> bool:
        """One row against one row, names compared literally (wildcards allowed)."""
        return row_trial(actual, expected, None) is not None

    @classmethod
    def match(cls, actual: Timeline | str, expected: Timeline | str, ignore_unlisted: bool = True, *,
              bind_names: bool = True) -> MatchResult:
        """Whether ``expected``'s rows appear in ``actual`` (see `fakekube.audit.matching`). With
        ``bind_names`` each expected name stands for the first actual name it aligns with."""
        actual_t = actual if isinstance(actual, Timeline) else cls.parse(actual)
        expected_t = expected if isinstance(expected, Timeline) else cls.parse(expected)
        return match_rows(actual_t.rows, expected_t.rows, ignore_unlisted=ignore_unlisted, bind_names=bind_names)

    @classmethod
    def align(cls, actual: Timeline | str, expected: Timeline | str, roles: RoleFunction | None = None
              ) -> Alignment:
        """The steps the two timelines share in order, compared by method, role, subresource and result class,
        and the cadence ratio (`fakekube.audit.align`). ``roles`` maps a timeline's rows to object roles."""
        actual_t = actual if isinstance(actual, Timeline) else cls.parse(actual)
        expected_t = expected if isinstance(expected, Timeline) else cls.parse(expected)
        return align_rows(actual_t.rows, expected_t.rows, roles)

    def assert_matches(self, expected: Timeline | str, ignore_unlisted: bool = True, *,
                       bind_names: bool = True) -> MatchResult:
        result = self.match(self, expected, ignore_unlisted, bind_names=bind_names)
        if not result:
            raise AssertionError(result.diff)
        return result

    # -- summaries --------------------------------------------------------------------------------------

    def conflicts(self) -> list[Row]:
        return [r for r in self.rows if r.code == 409 and r.reason == "Conflict"]

    def stale_overwrites(self) -> list[Row]:
        return [r for r in self.rows if any(n.startswith("stale overwrite") for n in r.notes)]

    def summary(self) -> dict[str, Any]:
        def by(rows: list[Row], key: str) -> dict[str, int]:
            counts: Counter[str] = Counter()
            for r in rows:
                counts[(r.actor or "?") if key == "actor" else r.resource + (f"/{r.subresource}"
                                                                             if r.subresource else "")] += 1
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
        from fakekube.audit.svg import swimlanes

        return swimlanes(self.rows, **options)
