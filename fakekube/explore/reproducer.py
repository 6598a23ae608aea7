"""Reproducers: a failing run written out as a pytest module that replays it and asserts the bug.

The module pins the run (scenario by registered name or import path, seed, grid point, perturbation) and the
timeline of the object the violation is about — every write to it, without timings, so it reads like the PR's
table and asserts the order of events, not their milliseconds. The table's names are bound when it is matched
(``Timeline.match`` binds each expected name to the actual one it aligns with), so a generated name that
changes does not break it. ``BUG_PRESENT = True`` is its one switch: flipped to False once the bug is fixed,
the same test asserts that the run keeps the invariant.
"""

from __future__ import annotations

import re
from dataclasses import is_dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fakekube.sim import Timeline

from .perturb import _non_defaults
from .registry import REGISTRY, _import_path
from .run import RunResult, Violation

if TYPE_CHECKING:
    from .explorer import Exploration
    from .run import Outcome

_RV_NOTE = re.compile(r" \(after [^()]*@rv \d+\)")  # "(after X@rv 290)": resourceVersions drift, the fact stays


def portable_timeline(timeline: Timeline) -> Timeline:
    """A copy for a reproducer: no timings, and notes without the resourceVersion numbers that any unrelated
    write shifts; glob characters in notes escaped (expected notes are matched as patterns)."""
    rows = []
    for row in timeline.rows:
        notes = [_escape(_RV_NOTE.sub("", n)) for n in row.notes]
        rows.append(replace(row, notes=notes, annotations=notes, delta_ms=None, offset_ms=None, time=None))
    return Timeline(rows)


def _escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


# -- source of the values the module pins ----------------------------------------------------------------

def to_source(value: Any, names: set[str]) -> str:
    """Python source that rebuilds ``value`` (dataclasses by their non-default fields); the classes it names
    are added to ``names`` for the module's imports."""
    if is_dataclass(value) and not isinstance(value, type):
        names.add(type(value).__name__)
        args = [f"{k}={to_source(v, names)}" for k, v in _non_defaults(value)]
        return f"{type(value).__name__}({', '.join(args)})"
    if isinstance(value, tuple):
        inner = ", ".join(to_source(v, names) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(to_source(v, names) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{to_source(k, names)}: {to_source(v, names)}" for k, v in value.items()) + "}"
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    raise TypeError(f"cannot write {type(value).__name__} {value!r} into a reproducer")


def _scenario_ref(exploration: Exploration) -> str:
    spec = exploration.scenario
    if REGISTRY.load().scenarios.get(spec.name) is spec or ":" in spec.name:
        return spec.name
    raise ValueError(f"scenario {spec.name!r} is neither registered nor importable (module:function), so a "
                     "written test could not replay it: register it or define it at module level")


def _invariant_ref(exploration: Exploration, name: str) -> str:
    inv = next((i for i in exploration.invariants if i.name == name), None)
    if inv is None or REGISTRY.invariants.get(name) is inv:
        return name
    path = _import_path(inv.check)
    if path is None:
        raise ValueError(f"invariant {name!r} is neither registered nor importable (module:function), so a "
                         "written test could not check it: register it or define it at module level")
    return path


def _pick(result: RunResult, invariant: str) -> Violation | None:
    if invariant == "error":
        return None
    found = result.violations(invariant)
    return next((v for v in found if v.object is not None), found[0] if found else None)


def _isort_key(name: str) -> tuple[int, str]:
    """isort's order-by-type: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def _test_name(scenario: str, seed: int, invariant: str) -> str:
    return re.sub(r"\W+", "_", f"test_{scenario.rsplit(':', 1)[-1]}_seed_{seed}_breaks_{invariant}").lower()


def render_test(exploration: Exploration, outcome: Outcome, invariant: str) -> str:
    """The reproducer module's text for ``outcome`` breaking ``invariant`` (``"error"``: the run failed)."""
    scenario = _scenario_ref(exploration)
    result = exploration.replay(outcome)
    if invariant not in (["error"] if result.error is not None else []) + \
            [name for name, found in result.checked.items() if found]:
        raise RuntimeError(f"replaying seed {outcome.seed} did not break {invariant} again: the scenario is "
                           "not deterministic for its seed and parameters")
    names = {"replay"}
    point = to_source(exploration.point_of(outcome), names)
    perturbation = exploration.perturbation
    pert_line = f"PERTURBATION = {to_source(perturbation, names)}\n" if not perturbation.is_identity else \
        "PERTURBATION = None\n"
    violation = _pick(result, invariant)
    described = str(violation) if violation is not None else str(result.error)
    lines = [
        f'"""Reproducer: {scenario} seed {outcome.seed} breaks {invariant}.',
        "",
        "Written by fakekube explore --write-test (fakekube.explore.reproducer). It replays that run — the",
        "simulation is deterministic per seed and parameters — and asserts what went wrong:",
        "",
        f"    {described}",
        "",
        "Once the bug is fixed, flip BUG_PRESENT to False: the same test then asserts the run keeps the invariant.",
        '"""',
        "",
    ]
    body = [
        f"SCENARIO = {scenario!r}",
        f"SEED = {outcome.seed}",
        f"POINT = {point}",
        pert_line.rstrip("\n"),
        f"INVARIANT = {_invariant_ref(exploration, invariant) if invariant != 'error' else None!r}",
    ]
    check_timeline: list[str] = []
    if violation is not None and violation.object is not None:
        obj = violation.object
        table = portable_timeline(result.timeline_of(obj)).to_markdown(actor_column=True)
        body.append(f"OBJECT = {to_source(obj, names)}")
        body.append("# Every write to that object in the failing run, in order (names are bound when matched).")
        body.append(f'TIMELINE = """\n{table}"""')
        check_timeline = [
            "    hit = next((v for v in violations if v.object and v.object.resource == OBJECT.resource), None)",
            '    assert hit is not None, f"no violation is about {OBJECT.resource} any more: {violations}"',
            "    result.timeline_of(hit.object).assert_matches(TIMELINE, ignore_unlisted=False)",
        ]
    imports = f"from fakekube.explore import {', '.join(sorted(names, key=_isort_key))}"
    lines += [imports, "", *body, "", "BUG_PRESENT = True  # <- flip to False once fixed: then the run must keep "
              "the invariant", "", ""]
    lines.append(f"def {_test_name(scenario, outcome.seed, invariant)}() -> None:")
    checked = "[]" if invariant == "error" else "[INVARIANT]"
    lines.append(f"    result = replay(SCENARIO, SEED, POINT, perturbation=PERTURBATION, invariants={checked})")
    if invariant == "error":
        lines += [
            "    if not BUG_PRESENT:",
            '        assert result.error is None, f"the run failed: {result.error}"',
            "        return",
            f'    assert result.error is not None and str(result.error) == {str(result.error)!r}',
        ]
    else:
        lines += [
            '    assert result.error is None, f"the run failed: {result.error}"',
            "    violations = result.violations()  # of INVARIANT, the one invariant checked",
            "    if not BUG_PRESENT:",
            '        assert not violations, "\\n".join(map(str, violations))',
            "        return",
            '    assert violations, f"seed {SEED} keeps {INVARIANT} now: if that is the fix, flip BUG_PRESENT"',
            *check_timeline,
        ]
    return "\n".join(lines) + "\n"


def write_test(exploration: Exploration, path: str | Path, outcome: Outcome | None = None,
               invariant: str | None = None) -> Outcome:
    if outcome is None:
        outcome = exploration.smallest(invariant)
        if outcome is None:
            raise ValueError("no run failed" + (f" {invariant}" if invariant else "") + ": nothing to reproduce")
    if invariant is None:
        broken = outcome.broken()
        if not broken:
            raise ValueError(f"seed {outcome.seed} broke nothing: nothing to reproduce")
        invariant = broken[0]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(render_test(exploration, outcome, invariant))
    return outcome

