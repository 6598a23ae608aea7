"""An exploration's report: per grid point, which seeds broke which invariant, and the 409s and stale
overwrites by resource and by actor. Only seeds, parameters and audit-log counts go in — no wall-clock time —
so the same exploration prints the same bytes however many processes ran it."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from .grid import describe_point, describe_seeds

if TYPE_CHECKING:
    from .explorer import Exploration
    from .run import Outcome

SEEDS_SHOWN = 12


def _totals(outcomes: list[Outcome], key: str) -> dict[str, Any]:
    by_resource: Counter[str] = Counter()
    by_actor: Counter[str] = Counter()
    runs_with = total = 0
    for outcome in outcomes:
        counts = getattr(outcome, key)
        if counts.get("total"):
            runs_with += 1
            total += counts["total"]
            by_resource.update(counts["by_resource"])
            by_actor.update(counts["by_actor"])
    return {"runs_with": runs_with, "total": total, "by_resource": dict(sorted(by_resource.items())),
            "by_actor": dict(sorted(by_actor.items()))}


def _point_summary(exploration: Exploration, index: int) -> dict[str, Any]:
    outcomes = exploration.at(index)
    invariants: dict[str, Any] = {}
    for inv in exploration.invariants:
        failing = [o for o in outcomes if o.violations.get(inv.name)]
        invariants[inv.name] = {
            "failing_runs": len(failing),
            "violations": sum(len(o.violations[inv.name]) for o in failing),
            "seeds": describe_seeds([o.seed for o in failing]),
            "smallest_seed": min((o.seed for o in failing), default=None),
        }
    errors = [o for o in outcomes if o.error is not None]
    return {
        "point": outcomes[0].point if outcomes else {},
        "runs": len(outcomes),
        "failing_runs": sum(o.failed for o in outcomes),
        "invariants": invariants,
        "errors": {"runs": len(errors), "seeds": describe_seeds([o.seed for o in errors]),
                   "first": errors[0].error if errors else None},
        "conflicts": _totals(outcomes, "conflicts"),
        "stale_overwrites": _totals(outcomes, "stale_overwrites"),
        "holds": sum(o.holds for o in outcomes),
    }


def summary(exploration: Exploration) -> dict[str, Any]:
    smallest = {}
    for name in ["error", *(inv.name for inv in exploration.invariants)]:
        outcome = exploration.smallest(name)
        if outcome is not None:
            smallest[name] = {"seed": outcome.seed, "point": outcome.point}
    table = exploration.table
    return {
        "scenario": exploration.scenario.name,
        "seeds": describe_seeds(exploration.seeds),
        "runs": len(exploration.outcomes),
        "grid": None if table is None else {"name": table.name, "mode": table.mode,
                                             "axes": [{"key": a.key, "values": list(a.values)} for a in table.axes]},
        "points": [_point_summary(exploration, i) for i in range(len(exploration.points))],
        "perturbation": exploration.perturbation.to_dict(),
        "invariants": [inv.name for inv in exploration.invariants],
        "failing_runs": sum(o.failed for o in exploration.outcomes),
        "smallest_failing": smallest,
    }


def to_json(exploration: Exploration, *, runs: bool = True) -> str:
    data = summary(exploration)
    if runs:
        data["outcomes"] = [o.to_dict() for o in exploration.outcomes]
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def _seeds(text: str) -> str:
    parts = text.split(",")
    return ",".join(parts[:SEEDS_SHOWN]) + (f",… ({len(parts) - SEEDS_SHOWN} more ranges)"
                                             if len(parts) > SEEDS_SHOWN else "")


def render_text(exploration: Exploration) -> str:
    data = summary(exploration)
    head = (f"explore {data['scenario']} · seeds {data['seeds']} ({len(exploration.seeds)}) · "
            f"{len(exploration.points)} grid point{'s' if len(exploration.points) != 1 else ''} · "
            f"{data['runs']} runs · invariants: {', '.join(data['invariants']) or 'none'}")
    lines = [head]
    if exploration.table is not None:
        lines.append(f"grid {exploration.table.describe()}")
    if data["perturbation"]:
        lines.append(f"every run: {describe_point(data['perturbation'])}")
    for point in data["points"]:
        lines.append("")
        lines.append(f"[{describe_point(point['point'])}] {point['failing_runs']}/{point['runs']} runs failing")
        rows: list[tuple[str, str]] = []
        for name, inv in point["invariants"].items():
            if inv["failing_runs"]:
                rows.append((name, f"broken in {inv['failing_runs']}/{point['runs']} runs "
                                   f"({_n(inv['violations'], 'violation')}), smallest seed {inv['smallest_seed']}; "
                                   f"seeds {_seeds(inv['seeds'])}"))
            else:
                rows.append((name, f"holds in all {point['runs']} runs"))
        if point["errors"]["runs"]:
            rows.append(("error", f"{point['errors']['runs']} runs failed (seeds {_seeds(point['errors']['seeds'])}): "
                                  f"{point['errors']['first']}"))
        for label, key in (("409 conflicts", "conflicts"), ("stale overwrites", "stale_overwrites")):
            t = point[key]
            rows.append((label, f"{t['total']} in {t['runs_with']}/{point['runs']} runs"))
            if t["total"]:
                rows.append(("  by resource", _counts(t["by_resource"])))
                rows.append(("  by actor", _counts(t["by_actor"])))
        if point["holds"]:
            rows.append(("holds", f"{point['holds']} held deliveries"))
        width = max(len(k) for k, _ in rows)
        lines.extend(f"  {k.ljust(width)}  {v}" for k, v in rows)
    if len(data["points"]) > 1 and data["failing_runs"]:
        lines.append("")
        lines.extend(_breaking_points(data))
    if data["smallest_failing"]:
        lines.append("")
        for name, where in data["smallest_failing"].items():
            lines.append(f"smallest seed breaking {name}: {where['seed']} [{describe_point(where['point'])}]")
    return "\n".join(lines) + "\n"


def _breaking_points(data: dict[str, Any]) -> list[str]:
    """Per invariant, the grid points where it broke and in which seeds: what a grid search found."""
    lines: list[str] = []
    for name in data["invariants"]:
        broken = [p for p in data["points"] if p["invariants"][name]["failing_runs"]]
        if not broken:
            lines.append(f"{name}: holds at all {len(data['points'])} grid points")
            continue
        lines.append(f"{name}: broken at {len(broken)} of {len(data['points'])} grid points")
        for point in broken:
            inv = point["invariants"][name]
            lines.append(f"  [{describe_point(point['point'])}] {inv['failing_runs']}/{point['runs']} runs, "
                         f"seeds {_seeds(inv['seeds'])}")
    errors = [p for p in data["points"] if p["errors"]["runs"]]
    if errors:
        lines.append(f"error: runs failed at {len(errors)} of {len(data['points'])} grid points")
    return lines
