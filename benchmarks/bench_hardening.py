"""Benchmark of issue 28's targets for the HTTP front: how soon a watch stream notices its client closed and
delivers a new event, the memory ``fakekube serve`` holds after 100,000 requests, and how long one client's
heavy request holds another client's GETs.

    python -m benchmarks hardening           # prints the figures as JSON

Figures are milliseconds unless named otherwise. Targets (docs/http/README.md, "Limits"): a closed watch client
noticed within a few milliseconds (not at the next 0.25 s poll); RSS after 100,000 requests under 100 MiB
(``RSS_BOUND_MIB``); a GET delayed at most 100 ms beyond its own work while another connection sends a 3 MiB
body, lists 1,000 objects or sends a document nested 10,000 deep.
"""

from __future__ import annotations

import http.client
import json
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fakekube.server import ApiServer
from fakekube.store import Store

CMS = "/api/v1/namespaces/default/configmaps"
RSS_BOUND_MIB = 100
HOLD_TARGET_MS = 100.0


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _spread(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"median_ms": _ms(statistics.median(ordered)), "p99_ms": _ms(ordered[max(0, int(len(ordered) * 0.99) - 1)]),
            "max_ms": _ms(ordered[-1])}


def _wait(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if predicate():
            return True
        time.sleep(0.0002)
    return predicate()


# -- watch streams ---------------------------------------------------------------------------------------------


def watch_disconnect(trials: int = 40) -> dict[str, float]:
    """From the client's close of an idle watch stream to the server's watcher leaving the hub."""
    store = Store(audit=False)
    samples = []
    with ApiServer(store) as server:
        parts = urlsplit(server.url)
        for _ in range(trials):
            sock = socket.create_connection((parts.hostname, parts.port))
            sock.sendall(f"GET {CMS}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            assert _wait(lambda: store.hub.watcher_count() == 1)
            time.sleep(0.01 + 0.25 * len(samples) / trials)  # spread the closes over a poll period
            started = time.perf_counter()
            sock.close()
            assert _wait(lambda: store.hub.watcher_count() == 0)
            samples.append(time.perf_counter() - started)
    return _spread(samples)


def watch_delivery(events: int = 200, pace: float = 0.005) -> dict[str, float]:
    """From a commit to the client reading the event, one idle stream, events ``pace`` seconds apart."""
    store = Store(audit=False)
    latencies = []
    with ApiServer(store) as server:
        parts = urlsplit(server.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        conn.request("GET", f"{CMS}?watch=true&timeoutSeconds=120")
        resp = conn.getresponse()
        assert _wait(lambda: store.hub.watcher_count() == 1)
        for i in range(events):
            time.sleep(pace)
            started = time.perf_counter()
            store.create("configmaps", {"metadata": {"name": f"d{i}"}}, "default")
            line = resp.readline()
            latencies.append(time.perf_counter() - started)
            assert json.loads(line)["object"]["metadata"]["name"] == f"d{i}"
        conn.close()
    return _spread(latencies)


# -- fakekube serve: memory and one client holding another ---------------------------------------------------


@contextmanager
def _serve() -> Iterator[tuple[int, int]]:
    """``fakekube serve`` as a user starts it (default flags, no nodes): (pid, port)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen([sys.executable, "-m", "fakekube", "serve", "--port", str(port), "--no-controllers"],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the URL: serving
        yield proc.pid, port
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmRSS")


class _Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def __call__(self, method: str, path: str, body: Any = None, ctype: str = "application/json") -> int:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        self.conn.request(method, path, body=data, headers={"Content-Type": ctype} if data is not None else {})
        resp = self.conn.getresponse()
        resp.read()
        return resp.status


def _mixed_requests(port: int, count: int, seed: int) -> None:
    """A controller's mix on 100 names: gets, lists, patches, creates and deletes, a few 404s and 409s."""
    rng = random.Random(seed)
    call = _Client(port)
    base = CMS  # every client the same collection, as controllers share one
    for _ in range(count):
        name = f"m{rng.randrange(100)}"
        roll = rng.random()
        if roll < 0.6:
            call("GET", f"{base}/{name}")
        elif roll < 0.7:
            call("GET", f"{base}?limit=50")
        elif roll < 0.85:
            call("PATCH", f"{base}/{name}", {"data": {"n": str(rng.randrange(10**6))}}, "application/merge-patch+json")
        elif roll < 0.95:
            call("POST", base, {"metadata": {"name": name, "labels": {"a": "b"}}, "data": {"k": "v" * 100}})
        else:
            call("DELETE", f"{base}/{name}")


def memory(requests: int = 100_000, clients: int = 4) -> dict[str, float]:
    """RSS of ``fakekube serve`` after startup and at checkpoints up to ``requests``: what it holds once its
    bounded buffers (the audit ring, the watch history of 10,000 changes) are full."""
    checkpoints = sorted({requests // 10, requests // 4, requests // 2, requests})
    with _serve() as (pid, port):
        figures: dict[str, float] = {"requests": requests, "rss_start_mib": _rss_mib(pid)}
        started = time.perf_counter()
        done = 0
        for checkpoint in checkpoints:
            share = checkpoint - done
            threads = [threading.Thread(target=_mixed_requests, args=(port, share // clients, done + i))
                       for i in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            done = checkpoint
            figures[f"rss_after_{done}_mib"] = _rss_mib(pid)
        figures["requests_per_s"] = round(requests / (time.perf_counter() - started))
        figures["rss_bound_mib"] = RSS_BOUND_MIB
        figures["growth_second_half_mib"] = round(
            figures[f"rss_after_{requests}_mib"] - figures[f"rss_after_{requests // 2}_mib"], 1)
    return figures


def _heavy_loads(port: int) -> dict[str, Callable[[_Client], int]]:
    big_value = "x" * (900 * 1024)  # under the 1 MiB ConfigMap limit
    over_limit = b'{"metadata":{"name":"huge"},"data":{"k":"' + b"y" * (3 * 1024 * 1024) + b'"}}'
    deep = b'{"metadata":{"name":"deep"},"data":{}, "x":' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    setup = _Client(port)
    for i in range(1000):
        setup("POST", f"{CMS}", {"metadata": {"name": f"l{i}", "labels": {"set": "list"}}, "data": {"k": "v" * 200}})
    return {
        "put_900KiB_configmap": lambda c: c("PUT", f"{CMS}/big", {"metadata": {"name": "big"}, "data": {"k": big_value}}),
        "body_over_3MiB": lambda c: c("POST", CMS, over_limit),
        "list_1000": lambda c: c("GET", f"{CMS}?labelSelector=set%3Dlist"),
        "nested_10000_deep": lambda c: c("POST", CMS, deep),
    }


def holding(rounds: int = 10, gets: int = 30) -> dict[str, Any]:
    """Latency of one client's GET while another connection sends heavy requests back to back, against the same
    GET with the other connection idle, in alternating rounds so both see the same load from the rest of the
    machine; the hold is how much the GET's p99 and median grew over its own work alone."""
    with _serve() as (_pid, port):
        probe = _Client(port)
        probe("POST", CMS, {"metadata": {"name": "probe"}})

        def sample(into: list[float]) -> None:
            for _ in range(gets):
                started = time.perf_counter()
                assert probe("GET", f"{CMS}/probe") == 200
                into.append(time.perf_counter() - started)
                time.sleep(0.002)

        figures: dict[str, Any] = {}
        for name, load in _heavy_loads(port).items():
            heavy = _Client(port)
            busy, stop = threading.Event(), threading.Event()
            durations: list[float] = []

            def hammer(load: Callable[[_Client], int] = load, heavy: _Client = heavy, durations: list[float] = durations,
                       busy: threading.Event = busy, stop: threading.Event = stop) -> None:
                while not stop.is_set():
                    if not busy.wait(0.05):
                        continue
                    started = time.perf_counter()
                    load(heavy)
                    durations.append(time.perf_counter() - started)

            thread = threading.Thread(target=hammer)
            thread.start()
            alone: list[float] = []
            during: list[float] = []
            try:
                for _ in range(rounds):
                    sample(alone)
                    busy.set()
                    time.sleep(0.01)
                    sample(during)
                    busy.clear()
                    time.sleep(0.05)  # the last heavy request ends
            finally:
                stop.set()
                thread.join()
            quiet, loaded = _spread(alone), _spread(during)
            figures[name] = {"heavy_request_median_ms": _ms(statistics.median(durations)), "get_alone": quiet,
                             "get_during": loaded,
                             "hold_median_ms": round(loaded["median_ms"] - quiet["median_ms"], 3),
                             "hold_p99_ms": round(loaded["p99_ms"] - quiet["p99_ms"], 3)}
        figures["hold_target_ms"] = HOLD_TARGET_MS
    return figures


def run() -> dict[str, Any]:
    return {"watch_disconnect_noticed": watch_disconnect(), "watch_event_delivered": watch_delivery(),
            "serve_memory": memory(), "one_client_holding_another": holding()}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2, sort_keys=True))
