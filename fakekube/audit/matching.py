"""Matching an actual timeline against an expected one (a table pasted from a PR, a bug report, a test).

A row matches when the method, resource and subresource are equal; the code is equal when the expected row
gives one, else the colour class is (🟢 / 🟡 / 🔴); a reason, when both sides have one, names the same reason
(an HTTP phrase that is not a StatusReason, such as ``OK`` or ``Created``, says nothing beyond the code); the
actor matches when the expected row names one (shell wildcards allowed); each annotation of the expected row
(``; ``-separated: ``no-op``, ``stale overwrite: ...``) appears among the actual row's notes (as a substring,
wildcards allowed); and the name matches:

- a target with wildcards is a pattern over the whole target (``sandboxes/warmpool-0-*``), nothing bound;
- no name (``CREATE sandboxes``): a create with generateName, or any nameless request of that verb;
- a name or a name prefix: through `names.NameBinding` (``bind_names=True``, the default), else literally.

With ``ignore_unlisted`` (the default) the expected rows must appear in order among the actual rows, others
in between; when some cannot, the alignment matches as many as it can, so the diff names the steps that the
actual run really lacks (`_aligned`). Without it the rows must correspond one to one. Rows whose notes say
``(optional)`` may be missing.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fakekube.audit.codes import STATUS_REASONS, color, default_reason, reason_key, reason_names
from fakekube.audit.names import NameBinding
from fakekube.audit.rows import Row

_STATUS_REASON_KEYS = frozenset(reason_key(r) for r in STATUS_REASONS)


@dataclass
class MatchResult:
    ok: bool
    pairs: list[tuple[int, int | None]]  # (expected index, actual index or None), one per expected row
    diff: str
    bindings: dict[str, str] = field(default_factory=dict)  # expected name -> actual name
    expected: list[Row] = field(default_factory=list)
    actual: list[Row] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return self.diff

    @property
    def matched(self) -> list[tuple[Row, Row]]:
        return [(self.expected[e], self.actual[a]) for e, a in self.pairs if a is not None]

    @property
    def missing(self) -> list[Row]:
        """Expected rows without a match (optional ones included)."""
        return [self.expected[e] for e, a in self.pairs if a is None]


def _reason_compatible(actual: Row, expected: Row) -> bool:
    if not expected.reason:
        return True
    key = reason_key(expected.reason)
    if key not in _STATUS_REASON_KEYS and expected.code is not None and key in {
            reason_key(r) for r in reason_names(expected.code)}:
        return True  # "200 OK", "422 Unprocessable Entity": the HTTP phrase of the code, nothing more
    have = actual.reason or default_reason(actual.code)
    return not have or reason_key(have) == key


def _annotations_present(actual: Row, expected: Row) -> bool:
    for note in expected.annotations:
        if note.strip().lower() == "(optional)":
            continue
        pattern = f"*{note.strip()}*"
        if not any(fnmatch.fnmatchcase(n, pattern) for n in actual.notes):
            return False
    return True


def same_request(actual: Row, expected: Row) -> bool:
    """Everything but the name and the result: method, resource, subresource (and the actor if given)."""
    return (expected.method == actual.method and expected.resource == actual.resource
            and (expected.subresource or None) == (actual.subresource or None)
            and (not expected.actor or fnmatch.fnmatchcase(actual.actor or "", expected.actor)))


def result_matches(actual: Row, expected: Row) -> bool:
    if expected.code is not None:
        if expected.code != actual.code:
            return False
    elif expected.colour and color(actual.code) != expected.colour:
        return False
    return _reason_compatible(actual, expected) and _annotations_present(actual, expected)


def name_trial(actual: Row, expected: Row, binding: NameBinding | None) -> dict[str, str] | None:
    """The bindings that matching the names needs ({} for none), or None when the names do not match."""
    if expected.glob:
        return {} if fnmatch.fnmatchcase(actual.target, expected.target) else None
    if expected.name is None:
        if actual.name is None or (expected.method == "CREATE" and actual.generated):
            return {}
        return None
    if binding is None:
        if actual.name is None:
            return None
        ok = actual.name.startswith(expected.name) if expected.name_prefix else actual.name == expected.name
        return {} if ok else None
    return binding.trial(expected.name, actual.name, prefix=expected.name_prefix)


def row_trial(actual: Row, expected: Row, binding: NameBinding | None, *, loose: bool = False
              ) -> dict[str, str] | None:
    """The bindings matching ``actual`` to ``expected`` needs, or None. ``loose``: names not yet bound may
    stand for any actual name (the first round of an alignment)."""
    if not (same_request(actual, expected) and result_matches(actual, expected)):
        return None
    if loose and binding is not None and not expected.glob and expected.name is not None:
        return binding.loose(expected.name, actual.name, prefix=expected.name_prefix)
    return name_trial(actual, expected, binding)


def new_binding(actual: Sequence[Row], expected: Sequence[Row]) -> NameBinding:
    names = [r.name for r in expected if r.name and not r.name_prefix and not r.glob]
    prefixes = [r.name for r in expected if r.name and r.name_prefix and not r.glob]
    return NameBinding(names, prefixes, [r.name for r in actual if r.name])


def match_rows(acts: Sequence[Row], exps: Sequence[Row], *, ignore_unlisted: bool = True,
               bind_names: bool = True) -> MatchResult:
    binding = new_binding(acts, exps) if bind_names else None
    if ignore_unlisted:
        found = _aligned(acts, exps, binding)
    else:
        found = {}
        for i in range(min(len(acts), len(exps))):
            trial = row_trial(acts[i], exps[i], binding)
            if trial is None:
                break
            if binding is not None:
                binding.commit(trial)
            found[i] = i
    pairs: list[tuple[int, int | None]] = [(ei, found.get(ei)) for ei in range(len(exps))]
    ok = all(ai is not None or exps[ei].optional for ei, ai in pairs)
    last = max(found.values(), default=-1)
    extra = [] if ignore_unlisted else list(range(last + 1, len(acts)))
    ok = ok and not extra
    bindings = dict(binding.bound) if binding is not None else {}
    diff = "" if ok else _diff(acts, exps, pairs, extra, ignore_unlisted, binding)
    return MatchResult(ok, pairs, diff, bindings, list(exps), list(acts))


def _aligned(acts: Sequence[Row], exps: Sequence[Row], binding: NameBinding | None) -> dict[int, int]:
    """The expected rows' actual rows: the most expected rows matched in order (as difflib would align two
    sequences), names bound in the order the aligned rows come.

    Names make the rows' compatibility depend on each other, so the alignment is found in rounds: first with
    every unbound name free, then the aligned pairs are replayed in order binding names (a pair that
    contradicts an earlier binding is dropped), and the alignment is found again under those bindings, until
    it no longer changes.
    """
    found: dict[int, int] = {}
    for _ in range(4):
        def compatible(ai: int, ei: int) -> bool:
            return row_trial(acts[ai], exps[ei], binding, loose=True) is not None

        pairs = _longest_common(len(acts), len(exps), compatible)
        replayed: dict[int, int] = {}
        for ei, ai in pairs:
            trial = row_trial(acts[ai], exps[ei], binding)
            if trial is None:
                continue
            if binding is not None:
                binding.commit(trial)
            replayed[ei] = ai
        if replayed == found:
            break
        found = replayed
    return found


def _longest_common(n_act: int, n_exp: int, compatible: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """A longest common subsequence of expected and actual rows (pairs (expected, actual)); among the longest,
    each expected row takes the earliest actual row it can."""
    if not n_act or not n_exp:
        return []
    match = [[compatible(ai, ei) for ai in range(n_act)] for ei in range(n_exp)]
    best = [[0] * (n_act + 1) for _ in range(n_exp + 1)]
    for ei in range(n_exp - 1, -1, -1):
        row, below, hits = best[ei], best[ei + 1], match[ei]
        for ai in range(n_act - 1, -1, -1):
            row[ai] = max(below[ai], row[ai + 1], below[ai + 1] + 1 if hits[ai] else 0)
    pairs = []
    ei = ai = 0
    while ei < n_exp and ai < n_act:
        if match[ei][ai] and best[ei][ai] == best[ei + 1][ai + 1] + 1:
            pairs.append((ei, ai))
            ei, ai = ei + 1, ai + 1
        elif best[ei][ai + 1] == best[ei][ai]:
            ai += 1
        else:
            ei += 1
    return pairs


def _diff(acts: Sequence[Row], exps: Sequence[Row], pairs: list[tuple[int, int | None]], extra: list[int],
          ignore_unlisted: bool, binding: NameBinding | None) -> str:
    lines = [f"timeline mismatch ({'unlisted steps ignored' if ignore_unlisted else 'every step listed'}):"]
    if binding is not None and binding.bound:
        lines.append("  names bound: " + ", ".join(f"{k} = {v}" for k, v in sorted(binding.bound.items())))
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
        near = _closest(acts, exp, last + 1, binding)
        if near is not None:
            act = acts[near]
            lines.append(f"           closest actual {act.step:>3}: {act.describe()}  "
                         f"({why(act, exp, binding)})")
        elif last + 1 < len(acts):
            act = acts[last + 1]
            lines.append(f"           next actual {act.step:>3}: {act.describe()}")
        else:
            lines.append("           (no actual steps left)")
    for ai in extra:
        lines.append(f"  UNEXPECTED actual {acts[ai].step:>3}: {acts[ai].describe()}")
    return "\n".join(lines)


def _closest(acts: Sequence[Row], exp: Row, start: int, binding: NameBinding | None) -> int | None:
    """An actual row after ``start`` for the same request and object (so only the result differs), else for
    the same request, else on the same resource."""
    tests = (lambda a: same_request(a, exp) and name_trial(a, exp, binding) is not None,
             lambda a: same_request(a, exp),
             lambda a: a.resource == exp.resource)
    for test in tests:
        for ai in range(start, len(acts)):
            if test(acts[ai]):
                return ai
    return None


def why(act: Row, exp: Row, binding: NameBinding | None = None) -> str:
    """What differs between an actual row and an expected one, in words."""
    reasons = []
    if act.method != exp.method:
        reasons.append(f"method {act.method} != {exp.method}")
    if exp.code is not None and act.code != exp.code:
        reasons.append(f"code {act.code} != {exp.code}")
    elif exp.code is None and exp.colour and color(act.code) != exp.colour:
        reasons.append(f"class {color(act.code)} != {exp.colour}")
    if not _reason_compatible(act, exp):
        reasons.append(f"reason {act.reason or default_reason(act.code)} != {exp.reason}")
    if exp.actor and not fnmatch.fnmatchcase(act.actor or "", exp.actor):
        reasons.append(f"actor {act.actor} != {exp.actor}")
    if same_request(act, exp) and name_trial(act, exp, binding) is None:
        bound = binding.bound.get(exp.name or "") if binding is not None else None
        reasons.append(f"name {act.name} != {bound or exp.name}" + (" (bound)" if bound else ""))
    missing = [n for n in exp.annotations if n.strip().lower() != "(optional)"
               and not any(fnmatch.fnmatchcase(a, f"*{n.strip()}*") for a in act.notes)]
    if missing:
        reasons.append("notes lack " + ", ".join(repr(n) for n in missing))
    return "; ".join(reasons) or "out of order"
