"""Latency a webhook call adds to a write: creates of ConfigMaps in process, without webhooks, with one
validating webhook and with one mutating webhook that returns a JSON patch, all served by a local HTTPS
server (tests/webhooks/server.py, the stdlib's ThreadingHTTPServer). ``python benchmarks/bench_webhooks.py``;
figures in docs/admission.md ("Admission webhooks": cost)."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fakekube.store import Store  # noqa: E402
from tests.webhooks.server import WebhookServer, patch  # noqa: E402

N = 300
RULE = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}


def run(store: Store, label: str) -> float:
    times = []
    for i in range(N):
        body = {"metadata": {"name": f"{label}-{i}"}, "data": {"k": "v"}}
        started = time.perf_counter()
        store.create("configmaps", body, "default")
        times.append(time.perf_counter() - started)
    median = statistics.median(times) * 1000
    p99 = sorted(times)[int(N * 0.99) - 1] * 1000
    print(f"{label:12s} median {median:6.2f} ms  p99 {p99:6.2f} ms")
    return median


def main() -> None:
    server = WebhookServer()
    server.handlers["/m"] = lambda req: patch([{"op": "add", "path": "/data/m", "value": "1"}])
    try:
        base = run(Store(seed=1, audit=False), "none")
        for kind, path in (("Validating", "/v"), ("Mutating", "/m")):
            store = Store(seed=1, audit=False)
            plural = f"{kind.lower()}webhookconfigurations"
            store.create(plural, {"metadata": {"name": "h"}, "webhooks": [{
                "name": "h.example.com", "clientConfig": server.client_config(path), "rules": [RULE],
                "sideEffects": "None", "admissionReviewVersions": ["v1"]}]})
            median = run(store, kind.lower())
            print(f"{'':12s} added per write: {median - base:.2f} ms")
    finally:
        server.close()


if __name__ == "__main__":
    main()
