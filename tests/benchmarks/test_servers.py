"""The side-by-side servers of benchmarks/bench_oracle.py: credentials from a kubeconfig, boot measured to the
first request a test needs, the percentile arithmetic."""

from __future__ import annotations

import json

from benchmarks.bench_oracle import _percentiles
from benchmarks.servers import READY_PATH, fakekube_serve


def test_percentiles_of_known_samples() -> None:
    samples = [0.001] * 98 + [0.010, 0.100]
    figures = _percentiles(samples)
    assert figures["p50_ms"] == 1.0
    assert figures["p99_ms"] == 100.0  # the 99th of 100 ordered samples
    assert figures["rps"] == round(100 / sum(samples), 1)


def test_fakekube_serve_boots_over_tls_with_its_token_and_answers() -> None:
    with fakekube_serve() as served:
        assert 0 < served.boot_seconds < 60
        assert served.headers == {"Authorization": "Bearer bench"}
        conn = served.connect()
        status, body = served.call(conn, "GET", READY_PATH)
        assert status == 200 and json.loads(body)["metadata"]["name"] == "default"
        served.headers = {"Authorization": "Bearer wrong"}
        status, _ = served.call(conn, "GET", READY_PATH)
        assert status == 401
        conn.close()
