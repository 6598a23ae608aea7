"""The audit.k8s.io/v1 writer and readers: what writing an audit log costs the store's requests (by level,
as ratios to no log), and how fast logs are written and read (events per second, MB per second)."""

from __future__ import annotations

import io
import os
import time
from typing import Any

from benchmarks.objects import pod
from benchmarks.timing import median_seconds, quiet_gc
from fakekube.audit.reader import AuditLogReader
from fakekube.audit.writer import write_log
from fakekube.store import Store


def _requests_per_op(level: str | None) -> float:
    """One create, one merge patch, one get and one delete of a Pod, with an audit log at ``level``."""
    store = Store(managed_fields=False)
    sink = open(os.devnull, "w")  # noqa: SIM115 - closed below
    if level is not None:
        store.audit.write_events(sink, level=level)
    counter = [0]

    def cycle() -> None:
        counter[0] += 1
        name = f"p{counter[0]}"
        store.create("pods", pod(name), "default")
        store.patch("pods", name, {"metadata": {"labels": {"x": "y"}}}, "default")
        store.get("pods", name, "default")
        store.delete("pods", name, "default")

    try:
        return median_seconds(cycle, number=100, repeat=7) / 4
    finally:
        store.audit.close_writers()
        sink.close()


def _log(events: int) -> tuple[str, list[Any]]:
    store = Store(managed_fields=False)
    for i in range(events // 2):
        store.create("pods", pod(f"p{i}"), "default")
        store.patch("pods", f"p{i}", {"metadata": {"labels": {"x": "y"}}}, "default")
    out = io.StringIO()
    write_log(store.audit, out)
    return out.getvalue(), store.audit.entries


def run() -> dict[str, Any]:
    plain = _requests_per_op(None)
    by_level = {level: _requests_per_op(level) for level in ("Metadata", "Request", "RequestResponse")}
    text, entries = _log(20_000)
    with quiet_gc():
        start = time.perf_counter()
        write_log(entries, io.StringIO())
        write_seconds = time.perf_counter() - start
        start = time.perf_counter()
        reader = AuditLogReader(io.StringIO(text))
        count = sum(1 for _ in reader)
        read_seconds = time.perf_counter() - start
    return {
        "request_seconds_without_log": plain,
        "request_seconds_with_log": {k: v for k, v in by_level.items()},
        "ratio_to_without_log": {k: round(v / plain, 2) for k, v in by_level.items()},
        "write_events_per_second": round(len(entries) / write_seconds),
        "read_events_per_second": round(count / read_seconds),
        "read_mb_per_second": round(len(text) / read_seconds / 1e6, 1),
        "events": count,
    }
