"""Grid tables: the default perturbations as data — their points, files, the command line over them, and the
same report however the runs are split."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from fakekube.explore import Perturbation, explore
from fakekube.explore import cli as explore_cli
from fakekube.explore.gridtable import DEFAULT_GRID, Axis, Grid
from fakekube.explore.perturb import PERTURBATION_FIELDS
from fakekube.explore.registry import REGISTRY
from tests.explore import guestbook

pytest_plugins = ["pytester"]
SMALL = Grid("small", (Axis("cache_lag_scale", (1, 4)), Axis("commit_point", (None, 0.5))), seeds="1-3")


@pytest.fixture(scope="module")
def small():
    return explore(guestbook.scenario, None, SMALL, invariants=[guestbook.every_guest_greeted])


def test_all_multiplies_the_axes_out_and_none_means_the_model() -> None:
    assert SMALL.points() == [{"cache_lag_scale": 1}, {"cache_lag_scale": 1, "commit_point": 0.5},
                              {"cache_lag_scale": 4}, {"cache_lag_scale": 4, "commit_point": 0.5}]
    assert Grid("empty").points() == [{}]


def test_each_varies_one_axis_at_a_time_around_the_first_values() -> None:
    each = Grid("e", (Axis("a", (None, 1, 2)), Axis("b", ("x", "y"))), mode="each")
    assert each.points() == [{"b": "x"}, {"a": 1, "b": "x"}, {"a": 2, "b": "x"}, {"b": "y"}]


def test_bad_tables_are_errors() -> None:
    with pytest.raises(ValueError, match="no values"):
        Axis("a", ())
    with pytest.raises(ValueError, match="mode"):
        Grid("g", mode="some")
    with pytest.raises(ValueError, match="twice"):
        Grid("g", (Axis("a", (1,)), Axis("a", (2,))))
    with pytest.raises(ValueError, match="unknown key colour"):
        Grid.from_dict({"colour": "red"})


def test_a_table_written_as_toml_loads_back(tmp_path: Path) -> None:
    table = DEFAULT_GRID.with_axis("workers", [None, 1, {"sandbox*": 4}])
    path = tmp_path / "grid.toml"
    path.write_text(table.to_toml())
    assert Grid.load(path) == table
    as_json = tmp_path / "grid.json"
    as_json.write_text(json.dumps({"name": "j", "axis": [{"key": "commit_point", "values": [None, 0.5]}]}))
    assert Grid.load(as_json).points() == [{}, {"commit_point": 0.5}]


def test_default_tables_name_only_mechanisms_and_say_why() -> None:
    for table in (DEFAULT_GRID, *(s.default_grid for s in REGISTRY.load().scenarios.values())):
        assert table.axes and all(axis.why for axis in table.axes)
        for axis in table.axes:
            assert axis.key in PERTURBATION_FIELDS or axis.key == "cpu_cores"
        spec_ok = [Perturbation.split(p)[0] for p in table.points()]  # every point is a valid perturbation
        assert len(spec_ok) == len(table.points())
    assert DEFAULT_GRID.points()[0] == {"cache_lag_scale": 1}  # the baseline: the model as it is


def test_a_grid_exploration_is_the_same_serially_and_in_parallel(small) -> None:
    serial = small
    parallel = explore(guestbook.scenario, None, SMALL, invariants=[guestbook.every_guest_greeted], jobs=2)
    assert serial.seeds == [1, 2, 3] and len(serial.outcomes) == 12
    assert parallel.render_text() == serial.render_text()
    assert parallel.to_json() == serial.to_json()
    text = serial.render_text()
    assert "grid small: all 4 points of cache_lag_scale 1,4 × commit_point model,0.5" in text
    assert "every-guest-greeted: broken at " in text and "[cache_lag_scale=4 commit_point=0.5] " in text
    assert json.loads(serial.to_json())["grid"]["axes"][1] == {"key": "commit_point", "values": [None, 0.5]}


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    explore_cli.add_arguments(parser)
    return parser.parse_args(["--scenario", "seed-timeline", *argv])


def test_the_command_line_puts_its_axes_over_the_table(tmp_path: Path) -> None:
    spec = REGISTRY.get_scenario("seed-timeline")
    table = explore_cli.build_grid(_args("--claim-status", "patch", "--cache-lag-scale", "8"), spec)
    assert isinstance(table, Grid) and table.name == spec.default_grid.name
    assert [a.key for a in table.axes][:2] == ["claim_status", "cache_lag_scale"]
    assert table.axes[1].values == (8.0,) and len(table.points()) == len(spec.default_grid.points()) // 3
    # --grid none: only the command line's axes, as a plain grid (the report of before the tables)
    assert explore_cli.build_grid(_args("--grid", "none", "--claim-status", "patch,update"), spec) == \
        {"claim_status": ["patch", "update"]}
    path = tmp_path / "g.toml"
    path.write_text(SMALL.to_toml())
    assert explore_cli.build_grid(_args("--grid", str(path)), spec) == SMALL
    with pytest.raises(ValueError, match="no such file"):
        explore_cli.build_grid(_args("--grid", str(tmp_path / "missing.toml")), spec)


def test_show_grid_prints_the_table_and_its_cost(capsys: pytest.CaptureFixture[str]) -> None:
    from fakekube.cli import main

    assert main(["explore", "--scenario", "seed-timeline", "--show-grid", "--seeds", "1-3"]) == 0
    out, err = capsys.readouterr()
    assert Grid.from_dict(__import__("tomllib").loads(out)) == REGISTRY.get_scenario("seed-timeline").default_grid
    n = len(REGISTRY.get_scenario("seed-timeline").default_grid.points())
    assert f"× seeds 1-3 (3) = {n * 3} runs" in err


def test_the_replay_command_runs_only_the_failing_point(small) -> None:
    found = small
    outcome = found.smallest()
    command = explore_cli.replay_command(found, outcome.seed, found.point_of(outcome))
    assert " --grid none " in command and "--invariant tests.explore.guestbook:every_guest_greeted" in command


def test_the_reproducer_records_the_grid_point(small, pytester: pytest.Pytester,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    found = small
    outcome = next(o for o in found.failures() if found.point_of(o) == {"cache_lag_scale": 4, "commit_point": 0.5})
    path = pytester.path / "test_repro.py"
    found.write_test(str(path), outcome)
    text = path.read_text()
    assert "POINT = {'cache_lag_scale': 4, 'commit_point': 0.5}" in text and f"SEED = {outcome.seed}" in text
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", str(path)).assert_outcomes(passed=1)
