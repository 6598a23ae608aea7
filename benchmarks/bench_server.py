"""Benchmark of the HTTP front: request round trips against the in-process call, watch delivery latency, and
100 concurrent watch streams (no dropped or reordered events).

    python -m benchmarks.bench_server        # prints the figures as JSON

``run()`` returns a dict of figures (milliseconds unless named otherwise). Targets: <= 1 ms median per request
on loopback; every watcher sees every event, in order.
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from benchmarks.timing import quiet_gc
from fakekube.server import ApiServer
from fakekube.store import Store

CMS = "/api/v1/namespaces/default/configmaps"


def _median_ms(fn: Callable[[], Any], n: int, warmup: int = 50) -> float:
    """Median of single-call times: what one request costs, not a batch mean."""
    for _ in range(warmup):
        fn()
    samples = []
    with quiet_gc():
        for _ in range(n):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
    return round(statistics.median(samples) * 1000, 4)


def _paired_median_ms(first: Callable[[], Any], second: Callable[[], Any], n: int, warmup: int = 20) -> tuple[float, float]:
    """Medians of single-call times of two calls made in turn, so both see the same load on a shared machine."""
    for _ in range(warmup):
        first()
        second()
    samples: tuple[list[float], list[float]] = ([], [])
    with quiet_gc():
        for _ in range(n):
            for fn, out in ((first, samples[0]), (second, samples[1])):
                start = time.perf_counter()
                fn()
                out.append(time.perf_counter() - start)
    return round(statistics.median(samples[0]) * 1000, 4), round(statistics.median(samples[1]) * 1000, 4)


def _requests(server: ApiServer, store: Store, n: int) -> dict[str, float]:
    store.create("configmaps", {"metadata": {"name": "bench"}, "data": {"n": "0"}}, "default")
    counter = iter(range(10**9))
    figures: dict[str, float] = {
        "inprocess_get_ms": _median_ms(lambda: store.get("configmaps", "bench", "default"), n),
        "inprocess_patch_ms": _median_ms(lambda: store.patch("configmaps", "bench", {"data": {"n": str(next(counter))}},
                                                             "default"), n),
    }
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)

    def raw(method: str, path: str, body: bytes | None = None, ctype: str = "application/json") -> None:
        conn.request(method, path, body=body, headers={"Content-Type": ctype} if body else {})
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200, resp.status

    figures["http_raw_get_ms"] = _median_ms(lambda: raw("GET", f"{CMS}/bench"), n)
    figures["http_raw_patch_ms"] = _median_ms(
        lambda: raw("PATCH", f"{CMS}/bench", json.dumps({"data": {"n": str(next(counter))}}).encode(),
                    "application/merge-patch+json"), n)
    figures.update(_protobuf_round_trips(conn, store, n))
    conn.close()
    try:
        from kubernetes import client, config
    except ImportError:
        return figures
    from pathlib import Path
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as tmp:
        kubeconfig = server.write_kubeconfig(Path(tmp) / "kubeconfig")
        api_client = config.new_client_from_config(config_file=str(kubeconfig))
    core = client.CoreV1Api(api_client)
    figures["client_get_ms"] = _median_ms(lambda: core.read_namespaced_config_map("bench", "default"), n)
    figures["client_patch_ms"] = _median_ms(
        lambda: core.patch_namespaced_config_map("bench", "default", {"data": {"n": str(next(counter))}}), n)
    # Without model deserialisation: the client's HTTP path alone.
    figures["client_get_raw_ms"] = _median_ms(
        lambda: core.read_namespaced_config_map("bench", "default", _preload_content=False).data, n)
    api_client.close()
    return figures


def _protobuf_round_trips(conn: http.client.HTTPConnection, store: Store, n: int) -> dict[str, float]:
    """A client's whole round trip (encode its body, the request, decode the reply) in JSON and in protobuf,
    for a GET and a PUT of a ConfigMap and a LIST of 100, JSON and protobuf calls in turn; the protobuf side
    uses fakekube's codec as a client would use its own (client-go's generated code is faster than either)."""
    from fakekube.server.protobuf import MEDIA_TYPE, default_codec

    codec = default_codec()
    for i in range(100):
        store.create("configmaps", {"metadata": {"name": f"pb-{i}", "labels": {"set": "pb"}}, "data": {"k": "v" * 20}},
                     "default")

    def call(method: str, path: str, accept: str, body: bytes | None = None) -> bytes:
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = accept
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        assert resp.status == 200, (resp.status, data[:200])
        return data

    def json_put() -> None:
        live = json.loads(call("GET", f"{CMS}/bench", "application/json"))
        json.loads(call("PUT", f"{CMS}/bench", "application/json", json.dumps(live).encode()))

    def protobuf_put() -> None:
        live = codec.decode(call("GET", f"{CMS}/bench", MEDIA_TYPE))
        codec.decode(call("PUT", f"{CMS}/bench", MEDIA_TYPE, codec.encode(live)))

    listing = f"{CMS}?labelSelector=set%3Dpb"
    pairs = {
        "get": (lambda: json.loads(call("GET", f"{CMS}/bench", "application/json")),
                lambda: codec.decode(call("GET", f"{CMS}/bench", MEDIA_TYPE)), n),
        "get_put": (json_put, protobuf_put, n // 2),
        "list_100": (lambda: json.loads(call("GET", listing, "application/json")),
                     lambda: codec.decode(call("GET", listing, MEDIA_TYPE)), n // 5),
    }
    figures: dict[str, float] = {}
    for op, (json_call, protobuf_call, count) in pairs.items():
        figures[f"json_client_{op}_ms"], figures[f"protobuf_client_{op}_ms"] = _paired_median_ms(
            json_call, protobuf_call, count)
    for op in pairs:
        figures[f"protobuf_vs_json_{op}_x"] = round(figures[f"protobuf_client_{op}_ms"] / figures[f"json_client_{op}_ms"], 2)
    return figures


def _watchers(server: ApiServer, store: Store, watchers: int, events: int, pace: float) -> dict[str, Any]:
    """``watchers`` streams from the same resourceVersion, ``events`` creates ``pace`` seconds apart (0: a burst);
    checks every stream got every event in order; per-event delivery latency from commit to client."""
    parts = urlsplit(server.url)
    rv = store.resource_version
    sent: dict[str, float] = {}
    received: list[list[tuple[str, float]]] = [[] for _ in range(watchers)]
    connected = threading.Barrier(watchers + 1)

    def watch(i: int) -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        conn.request("GET", f"{CMS}?watch=true&resourceVersion={rv}&timeoutSeconds=60")
        resp = conn.getresponse()
        connected.wait()
        mine = received[i]
        while len(mine) < events:
            line = resp.readline()
            if not line:
                break
            mine.append((json.loads(line)["object"]["metadata"]["resourceVersion"], time.perf_counter()))
        conn.close()

    threads = [threading.Thread(target=watch, args=(i,), daemon=True) for i in range(watchers)]
    for t in threads:
        t.start()
    connected.wait()
    started = time.perf_counter()
    order = []
    for _ in range(events):
        t0 = time.perf_counter()
        obj = store.create("configmaps", {"metadata": {"generateName": f"w{watchers}-"}}, "default")
        sent[obj["metadata"]["resourceVersion"]] = t0
        order.append(obj["metadata"]["resourceVersion"])
        if pace:
            time.sleep(pace)
    for t in threads:
        t.join(60)
    elapsed = time.perf_counter() - started
    complete = sum(1 for r in received if [rv for rv, _ in r] == order)
    latencies = [at - sent[rv] for r in received for rv, at in r if rv in sent]
    return {
        "watchers": watchers,
        "events": events,
        "pace_ms": pace * 1000,
        "watchers_complete_and_ordered": complete,
        "delivery_median_ms": round(statistics.median(latencies) * 1000, 3) if latencies else None,
        "delivery_p99_ms": round(sorted(latencies)[int(len(latencies) * 0.99) - 1] * 1000, 3) if latencies else None,
        "events_delivered_per_s": round(len(latencies) / elapsed) if elapsed else None,
    }


def run(n: int = 1000, watchers: int = 100, events: int = 200) -> dict[str, Any]:
    store = Store(audit=False)
    with ApiServer(store) as server:
        figures: dict[str, Any] = _requests(server, store, n)
        figures["watch_1"] = _watchers(server, store, 1, 200, pace=0.001)
        figures[f"watch_{watchers}_paced"] = _watchers(server, store, watchers, events, pace=0.01)
        figures[f"watch_{watchers}_burst"] = _watchers(server, store, watchers, events, pace=0)
    figures["get_overhead_x"] = round(figures["http_raw_get_ms"] / figures["inprocess_get_ms"], 1)
    return figures


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
