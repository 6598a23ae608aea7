"""Regenerate tests/differential/open.txt: replay the whole corpus against fakekube and list every case that
still diverges from its recording (less accepted.yaml), each with where it first differs.

    python -m tests.differential.open [--only GLOB ...]
    python -m tests.differential.open --show --only 'priorityclass*/create/*'   # print, write nothing

With --only, only the matching cases are replayed and the other entries are kept as they were. Run it after
fixing divergences (the replay then says which listed cases agree) or after re-recording; read the diff before
committing: a case that joins the list is a regression unless the recording changed.
"""

from __future__ import annotations

import argparse
import sys
import time

from tests.differential.fakekube_side import running_fakekube
from tests.differential.harness import corpus, divergences, openlist, recordings, verdicts
from tests.differential.harness.runner import run_all

JOBS = 8


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="GLOB", help="replay only these cases")
    parser.add_argument("--show", action="store_true",
                        help="print each diverging case's differences (oracle vs fakekube); open.txt is left as is")
    args = parser.parse_args(argv)
    cases = corpus.load()
    chosen = corpus.select(cases, args.only) if args.only else cases
    accepted = divergences.load_accepted()
    previous = openlist.read()
    diverging: dict[str, list[divergences.Difference]] = {}
    kept = {c.name for c in cases} - {c.name for c in chosen}
    started = time.monotonic()
    for path in recordings.sources():
        recording = recordings.read(path)
        expected = {c.name: recording.cases[c.name] for c in chosen
                    if c.name in recording.cases and recording.cases[c.name]["digest"] == c.digest}
        unrecorded = len(chosen) - len(expected)
        if unrecorded:
            print(f"open: {unrecorded} case(s) have no current recording in {path.name} (scripts/record-oracle)",
                  file=sys.stderr)
        with running_fakekube(recording.kubernetes_version) as client:
            runs = run_all(client, [c for c in chosen if c.name in expected], jobs=JOBS, max_wait=3.0)
        for name, found in verdicts.judge(chosen, expected, runs, accepted, {}).diverging.items():
            diverging.setdefault(name, found)
            if args.show:
                case = next(c for c in chosen if c.name == name)
                print(divergences.report(name, found, case.steps) + "\n")
    if args.show:
        print(f"open --show: {len(diverging)} of {len(chosen)} case(s) diverge", file=sys.stderr)
        return 0
    old = {name: previous[name] for name in kept if name in previous}
    openlist.write_entries({**{n: openlist.category(f) for n, f in diverging.items()}, **old})
    area_of = {c.name: c.area for c in cases}
    names = set(diverging) | set(old)
    counts = openlist.counts_by_area(names, area_of)
    print(f"open: {len(names)} open divergence(s) of {len(cases)} cases in {time.monotonic() - started:.0f}s; "
          + ", ".join(f"{a} {n}" for a, n in sorted(counts.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
