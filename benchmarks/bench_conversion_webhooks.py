"""Latency a CRD conversion webhook adds to reads: GETs of a custom resource through its storage version (no
call) and through the other version (one ConversionReview each), and a list of 50 through each, in process,
served by a local HTTPS server (tests/webhooks/server.py, the stdlib's ThreadingHTTPServer, keep-alive).
``python benchmarks/bench_conversion_webhooks.py``; figures in docs/admission.md ("Conversion webhooks": cost)."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakekube.store import Store  # noqa: E402
from tests.webhooks.server import WebhookServer, converter  # noqa: E402
from tests.webhooks.test_conversion_oracle import GROUP, crd, widget  # noqa: E402

N = 400
V1, V2 = f"widgets.v1.{GROUP}", f"widgets.v2.{GROUP}"


def gets(store: Store, resource: str) -> None:
    times = []
    for _ in range(N):
        started = time.perf_counter()
        store.get(resource, "w1", "default")
        times.append(time.perf_counter() - started)
    times.sort()
    print(f"GET {resource:28s} median {statistics.median(times) * 1000:6.3f} ms  "
          f"p95 {times[int(N * 0.95)] * 1000:6.3f} ms")


def main() -> None:
    server = WebhookServer()
    server.handlers["/convert"] = converter(widget)
    try:
        store = Store(seed=1, audit=False)
        store.create("customresourcedefinitions", crd(server.client_config("/convert"), ["v1"]))
        for i in range(1, 51):
            store.create(V2, {"apiVersion": f"{GROUP}/v2", "kind": "Widget", "metadata": {"name": f"w{i}"},
                              "spec": {"amount": str(i)}}, "default")
        for _ in range(20):
            store.get(V1, "w1", "default")  # (warm: the TLS session, the keep-alive connection)
        gets(store, V2)
        gets(store, V1)
        for resource in (V2, V1):
            started = time.perf_counter()
            store.list(resource, "default")
            print(f"LIST of 50 {resource:21s} {(time.perf_counter() - started) * 1000:6.2f} ms")
    finally:
        server.close()


if __name__ == "__main__":
    main()
