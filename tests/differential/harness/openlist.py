"""The open divergences: cases that still diverge from the real server for a defect of fakekube's that is to be
fixed (``open.txt``), so the replay stays green while they are fixed one session at a time.

The list is a ratchet: a case not in it must agree (a regression fails), a case in it that now agrees fails
until it is removed, so the list only shrinks. What should not be emulated at all is not here but in
``accepted.yaml``. One case name a line, then ``#`` and the first place its answers differ (a category for the
reader, not compared); ``python -m tests.differential.open`` writes it.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from .divergences import Difference

OPEN = Path(__file__).resolve().parent.parent / "open.txt"
HEADER = ("# Open divergences: cases that differ from the real kube-apiserver for a fakekube defect still to fix.\n"
          "# A case listed here may diverge; one not listed must agree; a listed case that agrees must be removed.\n"
          "# Regenerate: python -m tests.differential.open   (see tests/differential/README.md)\n")


def read(path: Path = OPEN) -> dict[str, str]:
    """Case name -> its category comment ("" when it has none)."""
    if not path.exists():
        return {}
    found: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        name, _, comment = line.partition("#")
        name = name.strip()
        if not name:
            continue
        if name in found:
            raise ValueError(f"{path.name}:{number}: {name!r} is listed twice")
        found[name] = comment.strip()
    return found


def category(found: list[Difference]) -> str:
    """The first difference's step and field path: where to start looking."""
    first = found[0]
    return f"step {first.step} {first.path}"


def write_entries(entries: Mapping[str, str], path: Path = OPEN) -> None:
    """Case name -> category, one line each, sorted, names padded so the comments line up."""
    width = max((len(n) for n in entries), default=0)
    lines = [f"{name.ljust(width)}  # {entries[name]}".rstrip() for name in sorted(entries)]
    path.write_text(HEADER + "".join(line + "\n" for line in lines), encoding="utf-8")


def counts_by_area(names: Iterable[str], area_of: Mapping[str, str]) -> Counter[str]:
    return Counter(area_of.get(name, "(not in the corpus)") for name in names)
