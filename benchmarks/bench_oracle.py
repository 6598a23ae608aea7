"""fakekube serve against the real kube-apiserver, side by side in one run (issue 24, item 6).

    python -m benchmarks oracle        # needs scripts/build-oracle; prints JSON

Both servers run as processes on this machine over TLS, with the same client (the standard library's
http.client, one keep-alive connection) and the same requests, so the client's own cost is in both figures.
For each: boot time to the first answered request a test needs, then per operation requests per second and
p50/p99 latency (GET, LIST of 100, create, PUT, merge patch, server-side apply), and watch fan-out: 100
watchers of one namespace, the time from a write's answer until the last watcher has its event. Ratios are
fakekube's figure over the real server's (below 1: fakekube is faster).
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from benchmarks.servers import Served, fakekube_serve, real_apiserver
from benchmarks.timing import quiet_gc

SAMPLES = 300
WATCHERS = 100
WATCH_WRITES = 50
NS = "bench"


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"p50_ms": round(statistics.median(ordered) * 1000, 3), "p99_ms": round(p99 * 1000, 3),
            "rps": round(len(ordered) / sum(ordered), 1)}


def _timed(served: Served, conn: http.client.HTTPSConnection, request: Callable[[int], tuple[str, str, Any, str]],
           expect: int, n: int = SAMPLES) -> dict[str, float]:
    samples = []
    with quiet_gc():
        for i in range(n):
            method, path, body, ctype = request(i)
            start = time.perf_counter()
            status, payload = served.call(conn, method, path, body, ctype)
            samples.append(time.perf_counter() - start)
            if status != expect:
                raise RuntimeError(f"{served.name}: {method} {path} answered {status}: {payload[:300]!r}")
    return _percentiles(samples)


def _operations(served: Served) -> dict[str, dict[str, float]]:
    conn = served.connect()
    cms = f"/api/v1/namespaces/{NS}/configmaps"
    status, body = served.call(conn, "POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
    if status != 201:
        raise RuntimeError(f"{served.name}: namespace: {status} {body[:200]!r}")
    for i in range(100):
        served.call(conn, "POST", cms, {"metadata": {"name": f"list-{i}"}, "data": {"i": str(i)}})
    served.call(conn, "POST", cms, {"metadata": {"name": "target"}, "data": {"n": "0"}})
    target = f"{cms}/target"
    figures = {
        "get": _timed(served, conn, lambda i: ("GET", target, None, ""), 200),
        "list_100": _timed(served, conn, lambda i: ("GET", cms, None, ""), 200, n=SAMPLES // 3),
        "create": _timed(served, conn, lambda i: (
            "POST", cms, {"metadata": {"name": f"new-{i}"}, "data": {"i": str(i)}}, "application/json"), 201),
        "put": _timed(served, conn, lambda i: (
            "PUT", target, {"metadata": {"name": "target"}, "data": {"n": f"put-{i}"}}, "application/json"), 200),
        "merge_patch": _timed(served, conn, lambda i: (
            "PATCH", target, {"data": {"n": f"merge-{i}"}}, "application/merge-patch+json"), 200),
        "apply": _timed(served, conn, lambda i: (
            "PATCH", f"{target}?fieldManager=bench&force=true",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"}, "data": {"m": f"apply-{i}"}},
            "application/apply-patch+yaml"), 200),
    }
    conn.close()
    return figures


def _watch_fan_out(served: Served) -> dict[str, float]:
    """WATCHERS streams on one namespace; each write's latency is until its event reached every watcher."""
    conn = served.connect()
    cms = f"/api/v1/namespaces/{NS}/configmaps"
    served.call(conn, "POST", cms, {"metadata": {"name": "watched"}, "data": {"n": "0"}})
    status, body = served.call(conn, "GET", f"{cms}/watched")
    start_rv = json.loads(body)["metadata"]["resourceVersion"]
    seen: dict[str, list[float]] = {}
    lock = threading.Lock()
    streams: list[http.client.HTTPSConnection] = []
    opened = threading.Barrier(WATCHERS + 1)

    def watch() -> None:
        stream = served.connect(timeout=60)
        streams.append(stream)
        stream.request("GET", f"{cms}?watch=1&fieldSelector=metadata.name%3Dwatched&resourceVersion={start_rv}"
                       "&timeoutSeconds=120", headers=served.headers)
        response = stream.getresponse()
        opened.wait()
        for line in response:
            event = json.loads(line)
            value = event["object"].get("data", {}).get("n")
            with lock:
                seen.setdefault(value, []).append(time.perf_counter())
            if value == str(WATCH_WRITES):
                return

    threads = [threading.Thread(target=watch, daemon=True) for _ in range(WATCHERS)]
    for thread in threads:
        thread.start()
    opened.wait()
    time.sleep(0.5)  # both servers' watchers are registered once the headers came; let them settle
    written: dict[str, float] = {}
    for i in range(1, WATCH_WRITES + 1):
        served.call(conn, "PATCH", f"{cms}/watched", {"data": {"n": str(i)}}, "application/merge-patch+json")
        written[str(i)] = time.perf_counter()
        time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=60)
    for stream in streams:
        stream.close()
    conn.close()
    latencies = [max(seen[v]) - written[v] for v in written if len(seen.get(v, [])) == WATCHERS]
    delivered = sum(len(seen.get(v, [])) for v in written)
    figures = _percentiles(latencies) if latencies else {}
    figures.pop("rps", None)
    return {**figures, "events_delivered": delivered, "events_expected": WATCHERS * WATCH_WRITES}


def _measure(start: Callable[[], Any]) -> dict[str, Any]:
    with start() as served:
        return {"boot_s": round(served.boot_seconds, 3), **_operations(served), "watch_fan_out": _watch_fan_out(served)}


def run() -> dict[str, Any]:
    try:
        real = _measure(real_apiserver)
    except FileNotFoundError as exc:
        return {"skipped": str(exc)}
    fake = _measure(fakekube_serve)
    ratios: dict[str, float] = {"boot_s": round(fake["boot_s"] / real["boot_s"], 3)}
    for op, figures in fake.items():
        if isinstance(figures, dict) and "p50_ms" in figures and "p50_ms" in real.get(op, {}):
            ratios[f"{op}_p50"] = round(figures["p50_ms"] / real[op]["p50_ms"], 3)
    return {"real_apiserver": real, "fakekube_serve": fake, "ratio_fakekube_over_real": ratios}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2, sort_keys=True))
