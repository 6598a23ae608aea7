"""The verdict on a batch of cases run against the server under test: which fail, and why, given the expected
answers (a recording or the oracle's live answers), the accepted divergences and the open list (openlist.py).

A batch is judged as a whole (the cases run side by side, runner.run_all) but each failure names its case, so
a failing test reads as one report per case.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import divergences, recordings
from .corpus import Case
from .runner import CaseRun

SHOWN = 40  # cases reported in full in one failure message; the rest are named


@dataclass
class Verdicts:
    failures: dict[str, str] = field(default_factory=dict)  # case -> why it fails
    diverging: dict[str, list[divergences.Difference]] = field(default_factory=dict)  # unaccepted differences

    def message(self, what: str) -> str:
        names = sorted(self.failures)
        shown = "\n\n".join(self.failures[n] for n in names[:SHOWN])
        rest = f"\n\n… and {len(names) - SHOWN} more: {names[SHOWN:]}" if len(names) > SHOWN else ""
        return f"{len(names)} case(s) of {what} fail:\n\n{shown}{rest}"


def judge(cases: list[Case], expected: Mapping[str, dict[str, Any]], runs: Mapping[str, CaseRun],
          accepted: list[divergences.Accepted], open_cases: Mapping[str, str]) -> Verdicts:
    """``expected``: the expected recording line of each case that has one (the caller reports the others)."""
    verdicts = Verdicts()
    for case in cases:
        if case.name not in expected or case.name not in runs:
            continue
        run = runs[case.name]
        actual = recordings.line_for(case.name, case.digest, run.setup, run.answers)
        found = divergences.unaccepted(case.name, divergences.differences(expected[case.name], actual), accepted)
        if found:
            verdicts.diverging[case.name] = found
        if found and case.name not in open_cases:
            problems = "".join(f"\n  problem: {p}" for p in run.problems)
            verdicts.failures[case.name] = f"{case.source}: " + divergences.report(case.name, found, case.steps) \
                + problems
        elif not found and case.name in open_cases:
            verdicts.failures[case.name] = (f"{case.source}: {case.name} agrees now: remove it from "
                                            "tests/differential/open.txt (the list only shrinks)")
    return verdicts


def settle_flakes(first: Verdicts, again: Callable[[list[str]], Verdicts], *, retries: int = 2) -> Verdicts:
    """The failing cases judged anew, up to ``retries`` more times (``again`` runs and judges the named cases);
    a case fails only if it fails every time. Both servers stamp managedFields and status times with wall-clock
    time to the second, and the real server writes an apply or update that changes nothing but that time
    (kube-apiserver v1.37.2's field manager; a PersistentVolume's lastPhaseTransitionTime likewise), so a case
    whose steps straddle a second boundary differs from one run within one second — on either server, by chance,
    and on a loaded machine more than once in a row. A real divergence repeats; such a chance does not. The live
    run's ``again`` starts each server's run of the failing cases just after a second boundary, so a case shorter
    than a second runs within one second on both (tests/differential/test_live.py)."""
    settled = Verdicts(dict(first.failures), dict(first.diverging))
    for _ in range(retries):
        if not settled.failures:
            break
        names = sorted(settled.failures)
        later = again(names)
        for name in names:
            if name not in later.failures:
                del settled.failures[name]
                settled.diverging.pop(name, None)
    return settled
