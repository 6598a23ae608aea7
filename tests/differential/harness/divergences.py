"""Compare a case's answers with the expected ones, less the accepted divergences of ``accepted.yaml``.

An accepted divergence is data: which case (a glob on its name), which step (its index or ``"*"``), which
part of the answer (``status``, ``reason``, ``warnings``, ``body.message``, ``body.metadata.labels`` — a path
and everything under it — or ``"*"``), a one-line reason and the upstream reference that shows what the real
server does. Entries are mirrored in docs/not-emulated.md.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ACCEPTED = Path(__file__).resolve().parent.parent / "accepted.yaml"
MISSING = "<absent>"
SHOWN_PER_STEP = 8
PLAIN_KEY = re.compile(r"[A-Za-z0-9_:-]+")


@dataclass(frozen=True)
class Accepted:
    case: str
    step: int | str
    field: str
    reason: str
    upstream: str

    def covers(self, case: str, difference: Difference) -> bool:
        if not fnmatch.fnmatchcase(case, self.case):
            return False
        if self.step != "*" and self.step != difference.step:
            return False
        path = difference.path
        return (self.field == "*" or path == self.field or path.startswith((self.field + ".", self.field + "["))
                or fnmatch.fnmatchcase(path, self.field))


@dataclass(frozen=True)
class Difference:
    step: int | str  # a step's index, or "setup" for the setup steps' statuses, "steps" for their number
    path: str
    expected: Any
    actual: Any


def load_accepted(path: Path = ACCEPTED) -> list[Accepted]:
    if not path.exists():
        return []
    entries = yaml.safe_load(path.read_text()) or []
    if not isinstance(entries, list):
        raise ValueError(f"{path.name}: a list of entries")
    accepted = []
    for index, entry in enumerate(entries):
        where = f"{path.name}: entry {index}"
        if not isinstance(entry, dict) or set(entry) != {"case", "step", "field", "reason", "upstream"}:
            raise ValueError(f"{where}: needs exactly case, step, field, reason, upstream")
        if not (entry["step"] == "*" or isinstance(entry["step"], int)):
            raise ValueError(f"{where}: step is an index or '*'")
        for key in ("case", "field", "reason", "upstream"):
            if not isinstance(entry[key], str) or not entry[key].strip():
                raise ValueError(f"{where}: {key} must be a non-empty string")
        if "\n" in entry["reason"].strip():
            raise ValueError(f"{where}: the reason is one line")
        accepted.append(Accepted(entry["case"], entry["step"], entry["field"], entry["reason"], entry["upstream"]))
    return accepted


def differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[Difference]:
    """Every difference between two recording lines (``setup`` statuses and ``answers``)."""
    found: list[Difference] = []
    if expected.get("setup", []) != actual.get("setup", []):
        found.append(Difference("setup", "setup", expected.get("setup", []), actual.get("setup", [])))
    want, got = expected.get("answers", []), actual.get("answers", [])
    if len(want) != len(got):
        found.append(Difference("steps", "steps", len(want), len(got)))
    for index, (one, other) in enumerate(zip(want, got, strict=False)):
        _diff(one, other, "", index, found)
    return found


def join(path: str, key: str | int) -> str:
    """``body.metadata.name``; a key that is not a plain word is quoted: ``labels["app.kubernetes.io/name"]``,
    ``f:data["."]``, so a path names one place."""
    if isinstance(key, int) or PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else str(key)
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _diff(expected: Any, actual: Any, path: str, step: int, into: list[Difference]) -> None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            _diff(expected.get(key, MISSING), actual.get(key, MISSING), join(path, key), step, into)
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (one, other) in enumerate(zip(expected, actual, strict=True)):
            _diff(one, other, join(path, index), step, into)
    elif expected != actual or type(expected) is not type(actual):
        into.append(Difference(step, path, expected, actual))


def unaccepted(case: str, found: list[Difference], accepted: list[Accepted]) -> list[Difference]:
    return [d for d in found if not any(a.covers(case, d) for a in accepted)]


def report(case: str, found: list[Difference], steps: list[dict[str, Any]] | None = None,
           expected_name: str = "oracle", actual_name: str = "fakekube") -> str:
    """The differences as text a reader can act on; empty when there are none."""
    if not found:
        return ""
    lines = [f"{case}: {len(found)} difference(s) from {expected_name}"]
    shown: dict[int | str, int] = {}
    for difference in found:
        count = shown[difference.step] = shown.get(difference.step, 0) + 1
        if count > SHOWN_PER_STEP:
            continue
        request = ""
        if isinstance(difference.step, int) and steps and difference.step < len(steps):
            step = steps[difference.step]
            request = f" {step['method']} {step['path']}"
        lines.append(f"  step {difference.step}{request} · {difference.path}")
        lines.append(f"    {expected_name}: {_short(difference.expected)}")
        lines.append(f"    {actual_name}: {_short(difference.actual)}")
    for step, count in shown.items():
        if count > SHOWN_PER_STEP:
            lines.append(f"  step {step}: … and {count - SHOWN_PER_STEP} more")
    return "\n".join(lines)


def _short(value: Any, limit: int = 400) -> str:
    text = value if value is MISSING else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"
