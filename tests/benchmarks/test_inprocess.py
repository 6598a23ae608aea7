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
    split = result["in_process_split_us"]
    for op in OPERATIONS:
        parts = split[op]
        assert all(parts[part] > 0 for part in ("client", "transport", "front", "store")), parts
        assert parts["front_encoding"] < parts["front"]
        assert parts["client"] + parts["transport"] + parts["front"] + parts["store"] == pytest.approx(
            parts["total"], abs=0.5)
    assert set(result["client_alone_us"]) == set(OPERATIONS)
