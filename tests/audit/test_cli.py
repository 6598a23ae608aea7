"""``fakekube audit`` on real samples and on fakekube's own logs."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from fakekube import Store, errors
from fakekube.audit import Timeline
from fakekube.cli import main

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "audit-samples"
CLO = SAMPLES / "openshift+cluster-logging-operator" / "test_functional_filters_apiaudit_vrl_testdata_audit_in.log"
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared is absent")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["audit", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@needs_samples
def test_timeline_of_a_real_object_prints_the_pr_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "timeline", CLO, "--object", "catalogsources/redhat-operators", "--related")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "| Step | Delta (ms) | Method | Target Resource | Result / Notes |"
    rows = Timeline.parse(out).rows
    assert [(r.method, r.target, r.code, r.reason) for r in rows] == [
        ("CREATE", "serviceaccounts/redhat-operators", 409, "AlreadyExists"),  # owned by the catalog source
        ("CREATE", "pods", 403, "Forbidden"),                                  # generateName redhat-operators-
        ("UPDATE", "catalogsources/redhat-operators/status", 200, "OK")]
    stamps = [json.loads(line)["stageTimestamp"] for line in CLO.read_text().splitlines()
              if "redhat-operators" in line]
    times = [datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() for s in stamps]
    assert [r.offset_ms for r in rows] == [round((t - times[0]) * 1000, 3) for t in times]  # since step 1
    code, alone, _ = _run(capsys, "timeline", CLO, "--object", "catalogsources/redhat-operators", "--delta",
                          "previous", "--actor")
    assert Timeline.parse(alone).rows[0].actor == "catalog" and len(Timeline.parse(alone)) == 1


@needs_samples
def test_summary_splits_409s_by_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "summary", CLO)
    assert code == 0 and "409s" in out and "Conflict 0, AlreadyExists 4" in out
    code, out, _ = _run(capsys, "summary", CLO, "--json")
    data = json.loads(out)
    assert data["summary"]["requests"] == 100 and data["summary"]["409"]["by_reason"] == {"AlreadyExists": 4}
    assert data["summary"]["409"]["AlreadyExists"]["by_actor"] == {"catalog": 3, "cluster-version-operator": 1}
    assert data["read"]["problems"] == []


def _log(tmp_path: Path, name: str, conflicts: dict[str, int]) -> Path:
    """A fakekube log with ``conflicts[resource]`` optimistic-lock 409s per resource."""
    store = Store(seed=1)
    path = tmp_path / name
    store.audit.write_events(path)
    for resource, count in conflicts.items():
        for i in range(count):
            obj = store.create(resource, {"metadata": {"name": f"x{i}"}}, "default", actor="ctrl")
            store.patch(resource, f"x{i}", {"metadata": {"labels": {"a": "b"}}}, "default", actor="other")
            with pytest.raises(errors.Conflict):
                store.update(resource, obj, "default", actor="ctrl")
    store.audit.close_writers()
    return path


def test_conflicts_with_a_resource_name_filter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path, "a.log", {"configmaps": 3, "secrets": 2})
    code, out, _ = _run(capsys, "conflicts", log, "--json")
    assert code == 0 and json.loads(out)["conflicts"]["by_reason"] == {"Conflict": 5}
    code, out, _ = _run(capsys, "conflicts", log, "--resource-name", "configmaps/x1", "--resource-name",
                        "secrets/", "--json", "--svg", tmp_path / "c.svg")
    data = json.loads(out)
    assert [(r["resource"], r["name"]) for r in data["requests"]] == [
        ("configmaps", "x1"), ("secrets", "x0"), ("secrets", "x1")]
    assert (tmp_path / "c.svg").read_text().startswith("<svg")
    code, out, _ = _run(capsys, "conflicts", log)
    assert "Conflict by actor: ctrl 5" in out and "| UPDATE | configmaps/x0 | ctrl | 🔴 409 Conflict |" in out


def test_compare_before_and_after(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, after = _log(tmp_path, "b.log", {"configmaps": 3}), _log(tmp_path, "c.log", {"configmaps": 0})
    code, out, _ = _run(capsys, "compare", before, after)
    assert code == 0
    rows = {line.split("  ")[0].strip(): line.split()[-2:] for line in out.splitlines()[1:]}
    assert rows["409 Conflict"] == ["3", "0"] and rows["requests"] == ["9", "0"]
    data = json.loads(_run(capsys, "compare", before, after, "--json")[1])
    assert data["before"]["409"]["Conflict"]["by_object"] == {f"configmaps/default/x{i}": 1 for i in range(3)}


def test_bad_input_is_reported_not_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.log"
    good = _log(tmp_path, "good.log", {"configmaps": 1}).read_text().splitlines()
    log.write_text("\n".join([good[0], "{not json", good[1][:40]]) + "\n")
    code, out, err = _run(capsys, "summary", log)
    assert code == 0 and "requests     1" in out
    assert f"{log}:2: invalid JSON" in err and f"{log}:3: truncated JSON" in err
    assert _run(capsys, "summary", tmp_path / "nope.log")[0] == 2
    assert _run(capsys, "timeline", log, "--object", "configmaps")[0] == 2
    code, _, err = _run(capsys, "timeline", log, "--object", "configmaps/zzz")
    assert code == 1 and "no writes for configmaps/zzz" in err
