"""``fakekube explore --write-test``: the destination is made and checked before any seed runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakekube.cli import main
from fakekube.explore import cli

SCENARIO = ["--scenario", "tests.explore.guestbook:scenario", "--invariant",
            "tests.explore.guestbook:every_guest_greeted", "--seeds", "1-4", "--grid", "none", "--quiet"]


def test_write_test_creates_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "not" / "yet" / "test_repro.py"
    assert main(["explore", *SCENARIO, "--write-test", str(path)]) == 0
    assert f"wrote {path}: seed " in capsys.readouterr().err
    assert "BUG_PRESENT = True" in path.read_text()


@pytest.mark.parametrize("where", ["directory", "under-a-file"])
def test_a_bad_destination_stops_before_any_seed_runs(where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("seeds ran before the destination was checked")

    monkeypatch.setattr(cli, "explore", must_not_run)
    (tmp_path / "a-file").write_text("")
    path = tmp_path if where == "directory" else tmp_path / "a-file" / "test_repro.py"
    assert main(["explore", *SCENARIO, "--write-test", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fakekube explore: --write-test {path}: ")
    assert ("is a directory" if where == "directory" else "cannot create its folder") in err


def test_no_runs_without_json_is_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", *SCENARIO, "--no-runs"]) == 0
    assert "fakekube explore: warning: --no-runs does nothing without --json" in capsys.readouterr().err
