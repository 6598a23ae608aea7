"""The default differential run: fakekube against the recorded answers of the real kube-apiserver.

One fakekube server per recording (its Kubernetes release), every case of the corpus sent to it over HTTP in
sequence, each compared with its recording less the accepted divergences (accepted.yaml). A case with no
recording, or recorded for other requests than it now sends, fails and says to run scripts/record-oracle.
See tests/differential/README.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.differential.fakekube_side import running_fakekube
from tests.differential.harness import corpus, divergences, recordings
from tests.differential.harness.client import Client
from tests.differential.harness.runner import Runner

CASES = corpus.load()
BY_NAME = {case.name: case for case in CASES}
SOURCES = recordings.sources() or [recordings.RECORDINGS_DIR / "oracle.jsonl"]
ACCEPTED = divergences.load_accepted()
REPO = Path(__file__).resolve().parents[2]
# fakekube's garbage collector and namespace cleanup run inside the request and its other controllers within
# milliseconds: a wait that has not succeeded in this long is a divergence, not slowness.
FAKEKUBE_MAX_WAIT = 3.0


def _recording(path: Path) -> recordings.Recording | None:
    return recordings.read(path) if path.exists() else None


RECORDED = {path: _recording(path) for path in SOURCES}


@pytest.fixture(scope="module", params=SOURCES, ids=lambda p: p.stem)
def source(request: pytest.FixtureRequest) -> Iterator[tuple[recordings.Recording | None, Path, Client]]:
    recording = RECORDED[request.param]
    version = recording.kubernetes_version if recording is not None else None
    with running_fakekube(version) as client:
        yield recording, request.param, client


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_case_agrees_with_recording(name: str, source: tuple[recordings.Recording | None, Path, Client]) -> None:
    recording, path, client = source
    case = BY_NAME[name]
    where = path.relative_to(REPO)
    expected = recording.cases.get(name) if recording is not None else None
    if expected is None:
        pytest.fail(f"{case.source}: case {name!r} has no recording in {where}: run scripts/record-oracle "
                    f"--only '{name}'")
    if expected["digest"] != case.digest:
        pytest.fail(f"{case.source}: case {name!r} changed since it was recorded in {where}: run "
                    f"scripts/record-oracle --only '{name}'")
    run = Runner(client, max_wait=FAKEKUBE_MAX_WAIT).run(case)
    actual = recordings.line_for(name, case.digest, run.setup, run.answers)
    found = divergences.unaccepted(name, divergences.differences(expected, actual), ACCEPTED)
    problems = "".join(f"\n  problem: {p}" for p in run.problems)
    assert not found, divergences.report(name, found, case.steps) + problems


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
