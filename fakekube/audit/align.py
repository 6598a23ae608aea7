"""Aligning two timelines of the same story: which steps they share, in order, and how fast each one runs.

``Timeline.match`` asks whether an expected table's rows appear in an actual run; ``align`` measures how much
of it does when the two come from different clusters. Steps are compared by

- method (``UPDATE``, ``PATCH``, ...), subresource (``status`` or none) and result class (the PR's colours:
  🟢 2xx, 🟡 an expected 4xx such as a blind DELETE's 404, 🔴 a 409 or 5xx — so a table's colour-only cell
  compares with a code), and
- the object's **role** in the story instead of its name, given by a function over the whole timeline (the
  roles of agent-sandbox objects — the claim, the adopted sandbox, the replacement, their pods... — are
  ``fakekube.agentsandbox.roles.story_roles``; without one, the resource stands for the role).

The alignment is a longest common subsequence of the two step sequences under that comparison (among the
longest, each expected step takes the earliest actual step it can). The **cadence ratio** is the median, over
the aligned steps after the first one, of actual over expected time since the first aligned step: 1 means the
actual run keeps the expected pace, 0.5 that it runs twice as fast.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from fakekube.audit.codes import color
from fakekube.audit.matching import _longest_common
from fakekube.audit.rows import Row

RoleFunction = Callable[[Sequence[Row]], Sequence[str]]


def _resource_roles(rows: Sequence[Row]) -> list[str]:
    return [r.resource for r in rows]


def result_class(row: Row) -> str:
    """The row's colour class (from its code, else the colour the table gave)."""
    return color(row.code) if row.code is not None else row.colour


def step_key(row: Row, role: str) -> tuple[str, str, str, str]:
    return (row.method, role, row.subresource or "", result_class(row))


@dataclass
class Alignment:
    expected: list[Row]
    actual: list[Row]
    pairs: list[tuple[int, int]]  # (expected index, actual index), in order
    expected_roles: list[str] = field(default_factory=list)
    actual_roles: list[str] = field(default_factory=list)

    @property
    def aligned(self) -> int:
        return len(self.pairs)

    @property
    def fraction(self) -> float:
        """Aligned steps over the expected timeline's steps."""
        return self.aligned / len(self.expected) if self.expected else 0.0

    @property
    def unmatched_expected(self) -> list[Row]:
        taken = {e for e, _ in self.pairs}
        return [r for i, r in enumerate(self.expected) if i not in taken]

    @property
    def unmatched_actual(self) -> list[Row]:
        taken = {a for _, a in self.pairs}
        return [r for i, r in enumerate(self.actual) if i not in taken]

    @property
    def ratios(self) -> list[float]:
        """Actual over expected time since the first aligned step, for each later aligned step."""
        if not self.pairs:
            return []
        e0, a0 = self.expected[self.pairs[0][0]].time, self.actual[self.pairs[0][1]].time
        if e0 is None or a0 is None:
            return []
        out = []
        for e, a in self.pairs[1:]:
            te, ta = self.expected[e].time, self.actual[a].time
            if te is None or ta is None or te - e0 <= 0:
                continue
            out.append((ta - a0) / (te - e0))
        return out

    @property
    def cadence(self) -> float | None:
        """The median of `ratios` (None without timed aligned steps)."""
        ratios = self.ratios
        return statistics.median(ratios) if ratios else None

    def summary(self) -> dict[str, Any]:
        cadence = self.cadence
        return {"expected_steps": len(self.expected), "actual_steps": len(self.actual), "aligned": self.aligned,
                "fraction": round(self.fraction, 4), "cadence": round(cadence, 4) if cadence is not None else None,
                "unmatched_expected": [r.step for r in self.unmatched_expected],
                "unmatched_actual": [r.step for r in self.unmatched_actual]}

    def to_text(self) -> str:
        """Both timelines side by side (expected left, actual right), unmatched steps on their own lines."""
        def cell(row: Row | None, role: str | None) -> str:
            if row is None:
                return ""
            offset = f"{row.time * 1000:.1f}" if row.time is not None else "?"
            who = f" [{row.actor}]" if row.actor else ""
            return f"{row.step:>3} {offset:>8} ms  {row.method} {row.target} {result_class(row)}{who} ({role})"

        left_cells = [cell(r, role) for r, role in zip(self.expected, self.expected_roles, strict=True)]
        width = max((len(c) for c in left_cells), default=0)
        lines = []
        e_next = a_next = 0
        for e, a in [*self.pairs, (len(self.expected), len(self.actual))]:
            for i in range(e_next, e):
                lines.append(f"  -  {left_cells[i]}")
            for i in range(a_next, a):
                lines.append(f"  +  {'':<{width}}  {cell(self.actual[i], self.actual_roles[i])}")
            if e < len(self.expected):
                lines.append(f"  =  {left_cells[e]:<{width}}  {cell(self.actual[a], self.actual_roles[a])}")
            e_next, a_next = e + 1, a + 1
        cadence = self.cadence
        head = (f"aligned {self.aligned} of {len(self.expected)} expected steps ({self.fraction:.0%}) in order; "
                f"cadence ratio (actual / expected time since the first aligned step, median): "
                + (f"{cadence:.2f}" if cadence is not None else "n/a"))
        legend = "  = aligned   - expected only   + actual only"
        return "\n".join([head, legend, *lines]) + "\n"


def align(actual: Sequence[Row], expected: Sequence[Row], roles: RoleFunction | None = None) -> Alignment:
    """The longest in-order common subsequence of ``expected`` in ``actual`` (module docstring)."""
    role_of = roles or _resource_roles
    actual_roles, expected_roles = list(role_of(actual)), list(role_of(expected))
    actual_keys = [step_key(r, role) for r, role in zip(actual, actual_roles, strict=True)]
    expected_keys = [step_key(r, role) for r, role in zip(expected, expected_roles, strict=True)]
    pairs = _longest_common(len(actual), len(expected), lambda a, e: actual_keys[a] == expected_keys[e])
    return Alignment(list(expected), list(actual), pairs, expected_roles, actual_roles)
