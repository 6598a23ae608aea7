"""``fakekube simulate --audit-log``: the simulated cluster's audit log as kube-apiserver would write it —
byte for byte the same for one seed, and read by ``fakekube audit`` like a real cluster's log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakekube.audit import Timeline
from fakekube.audit.reader import read_log
from fakekube.cli import main
from tests.audit.event_schema import check


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("sim-audit")
    for run in ("a", "b"):
        code = main(["simulate", "--scenario", "seed-timeline", "--seed", "2", "--quiet", "--no-wall", "--json",
                     "--audit-log", str(root / f"{run}.log")])
        assert code == 0
    return {"root": root}


def test_one_seed_writes_identical_files(logs: dict) -> None:
    root: Path = logs["root"]
    for mode in ("update", "patch"):
        a, b = (root / f"a.{mode}.log").read_bytes(), (root / f"b.{mode}.log").read_bytes()
        assert a and a == b


def test_the_log_reads_back_with_the_simulations_figures(logs: dict, capsys: pytest.CaptureFixture[str]) -> None:
    root: Path = logs["root"]
    main(["simulate", "--scenario", "seed-timeline", "--seed", "2", "--quiet", "--no-wall", "--json"])
    runs = {r["strategies"]["claim_status"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    for mode, run in runs.items():
        entries, report = read_log(root / f"a.{mode}.log")
        assert report.problems == [] and len(entries) == run["api_requests"]["total"]
        assert sum(e.conflict for e in entries) == run["conflicts"]["total"]
        for line in (root / f"a.{mode}.log").read_text().splitlines()[:50]:
            check(json.loads(line))
    code = main(["audit", "compare", str(root / "a.update.log"), str(root / "a.patch.log"), "--resource-name",
                 "sandboxclaims/", "--json"])
    sides = json.loads(capsys.readouterr().out)
    assert code == 0
    assert sides["before"]["409"]["by_reason"].get("Conflict") == runs["update"]["conflicts"]["claim_status"] > 0
    assert sides["after"]["409"]["by_reason"].get("Conflict", 0) == 0


def test_a_claims_timeline_from_the_written_log(logs: dict, capsys: pytest.CaptureFixture[str]) -> None:
    root: Path = logs["root"]
    entries, _ = read_log(root / "a.update.log")
    claim = next(e.name for e in entries if e.conflict and e.resource == "sandboxclaims")
    assert main(["audit", "timeline", str(root / "a.update.log"), "--object", f"sandboxclaims/{claim}",
                 "--related", "--actor"]) == 0
    rows = Timeline.parse(capsys.readouterr().out).rows
    assert rows[0].method == "CREATE" and rows[0].target == f"sandboxclaims/{claim}"
    assert {r.resource for r in rows} >= {"sandboxclaims", "networkpolicies", "events"}
    assert any(r.code == 409 and r.subresource == "status" for r in rows)
