"""The default differential run: fakekube against the recorded answers of the real kube-apiserver.

One fakekube server per recording (its Kubernetes release); one test per area of the corpus, whose cases are
sent to it side by side (each has a namespace of its own, as when they were recorded with several jobs) and
each compared with its recording less the accepted divergences (accepted.yaml). The open divergences
(open.txt) may still differ, and must be removed from that list once they agree. A case with no recording, or
recorded for other requests than it now sends, fails and says to run scripts/record-oracle.
See tests/differential/README.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.differential.fakekube_side import running_fakekube
from tests.differential.harness import corpus, divergences, openlist, recordings, verdicts
from tests.differential.harness.client import Client
from tests.differential.harness.runner import run_all

CASES = corpus.load()
BY_NAME = {case.name: case for case in CASES}
AREAS = sorted({case.area for case in CASES})
SOURCES = recordings.sources() or [recordings.RECORDINGS_DIR / "oracle.jsonl"]
ACCEPTED = divergences.load_accepted()
OPEN = openlist.read()
REPO = Path(__file__).resolve().parents[2]
# fakekube's garbage collector and namespace cleanup run inside the request and its other controllers within
# milliseconds: a wait that has not succeeded in this long is a divergence, not slowness.
FAKEKUBE_MAX_WAIT = 3.0
# Cases side by side: most of a case's time is its waits and the round trips, so threads overlap them; more
# would only queue on the interpreter lock.
JOBS = 8


def _recording(path: Path) -> recordings.Recording | None:
    return recordings.read(path) if path.exists() else None


RECORDED = {path: _recording(path) for path in SOURCES}


@pytest.fixture(scope="module", params=SOURCES, ids=lambda p: p.stem)
def source(request: pytest.FixtureRequest) -> Iterator[tuple[recordings.Recording | None, Path, Client]]:
    recording = RECORDED[request.param]
    version = recording.kubernetes_version if recording is not None else None
    with running_fakekube(version) as client:
        yield recording, request.param, client


@pytest.mark.parametrize("area", AREAS)
def test_area_agrees_with_recording(area: str, source: tuple[recordings.Recording | None, Path, Client]) -> None:
    recording, path, client = source
    where = path.relative_to(REPO)
    cases = [case for case in CASES if case.area == area]
    stale: dict[str, str] = {}
    expected = {}
    for case in cases:
        line = recording.cases.get(case.name) if recording is not None else None
        if line is None:
            stale[case.name] = (f"{case.source}: case {case.name!r} has no recording in {where}: run "
                                f"scripts/record-oracle --only '{case.name}'")
        elif line["digest"] != case.digest:
            stale[case.name] = (f"{case.source}: case {case.name!r} changed since it was recorded in {where}: "
                                f"run scripts/record-oracle --only '{case.name}'")
        else:
            expected[case.name] = line
    def judged_run(names: list[str]) -> verdicts.Verdicts:
        chosen = [c for c in cases if c.name in expected and c.name in names]
        runs = run_all(client, chosen, jobs=JOBS, max_wait=FAKEKUBE_MAX_WAIT)
        return verdicts.judge(chosen, expected, runs, ACCEPTED, OPEN)

    judged = verdicts.settle_flakes(judged_run(list(expected)), judged_run)
    judged.failures.update(stale)
    assert not judged.failures, judged.message(f"area {area} against {where}")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_recordings_hold_only_corpus_cases(path: Path) -> None:
    recording = RECORDED[path]
    if recording is None:
        pytest.fail(f"{path.relative_to(REPO)} does not exist: run scripts/record-oracle")
    stale = sorted(set(recording.cases) - set(BY_NAME))
    assert not stale, f"recorded cases no longer in the corpus (scripts/record-oracle drops them): {stale}"


def test_accepted_divergences_name_existing_cases() -> None:
    """An accepted entry whose glob matches no case is a leftover that would silently accept a new one."""
    unused = [a.case for a in ACCEPTED if not corpus.select(CASES, [a.case])]
    assert not unused, f"accepted.yaml entries that match no case: {unused}"


def test_open_divergences_name_existing_cases() -> None:
    """The open list, counted by area (shown with -rP); a name no case has any more is a leftover."""
    counts = openlist.counts_by_area(OPEN, {c.name: c.area for c in CASES})
    print(f"open divergences: {len(OPEN)} of {len(CASES)} cases; by area: "
          + ", ".join(f"{area} {n}" for area, n in sorted(counts.items())))
    gone = sorted(set(OPEN) - set(BY_NAME))
    assert not gone, f"open.txt names cases that are not in the corpus (remove them): {gone}"
