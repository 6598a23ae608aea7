"""The in-process benchmark (benchmarks/bench_inprocess.py) runs its three ways and reports every operation."""

from __future__ import annotations

import pytest

from benchmarks.bench_inprocess import OPERATIONS, run

pytest.importorskip("kubernetes")


@pytest.mark.slow
def test_a_small_run_reports_each_way_and_operation() -> None:
    result = run(n=3, repeat=1)
    assert set(result["us_per_operation"]) == {"in_process", "http", "store_api"}
    for way in result["us_per_operation"].values():
        assert set(way) == set(OPERATIONS)
    assert 0 < result["in_process_profile"]["front_share"] <= 1
    assert result["fixtures"]["mock_kubernetes_setup_ms"] > 0
    split = result["read_breakdown_us"]
    assert 0 < split["store_get"] < split["front_handle"] < split["in_process"]
    assert 0 < split["client_alone"] < split["in_process"]
