#!/usr/bin/env python3
"""What a load run's logs say about watch delivery: `scripts/watchlag_audit.py RUN [--watch FILE]`.

RUN is a `scripts/pr508-run` folder (its audit log logs every claim write with its response). Three readings:

- **stale gaps**: for each claim-status write that committed, how long after its response the same claim's next
  status write was received, split by that write's answer (409: its pass read the claim from a cache that did not
  have the write yet). Short gaps are a re-queued pass racing its own write's watch event; long ones a cache that
  stayed stale.
- **forced closes** (the real apiserver only): kube-apiserver's "Forcing ... watcher close due to unresponsiveness"
  lines for sandboxclaims (apiserver `storage/cacher/cache_watcher.go`, v0.37.2) and the share of claim-status
  409s within a second of one.
- **delivery lag** (with `--watch`, the output of `watchlag --watch-only` run beside): for each claim write, when
  an independent watcher decoded its event minus the write's `stageTimestamp`.

docs/reproducing-pr-508.md, "Watch event against response", has the figures; `scripts/watchlag-beside` makes RUN
and the watch file.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path


def _ms(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[int(p / 100 * (len(ordered) - 1))] if ordered else float("nan")


def _entries(audit: Path) -> Iterator[dict]:
    opener = gzip.open if audit.suffix == ".gz" else open
    with opener(audit, "rt") as fh:
        for line in fh:
            entry = json.loads(line)
            if entry.get("stage") == "ResponseComplete":
                yield entry


def _claim_write(entry: dict) -> bool:
    ref = entry.get("objectRef") or {}
    return ref.get("resource") == "sandboxclaims" and entry["verb"] in ("create", "update", "patch")


def stale_gaps(audit: Path) -> dict[str, list[float]]:
    """Milliseconds from a committed claim-status write's response to the claim's next status write, by whether
    that next write got a 409 ("stale") or not ("fresh")."""
    writes: dict[str, list[tuple[float, float, int]]] = {}
    for entry in _entries(audit):
        ref = entry.get("objectRef") or {}
        if _claim_write(entry) and ref.get("subresource") == "status":
            writes.setdefault(ref["name"], []).append(
                (_ms(entry["requestReceivedTimestamp"]), _ms(entry["stageTimestamp"]), entry["responseStatus"]["code"]))
    gaps: dict[str, list[float]] = {"stale": [], "fresh": []}
    for claim in writes.values():
        claim.sort()
        for (_, answered, code), (received, _, next_code) in zip(claim, claim[1:], strict=False):
            if code < 300:
                gaps["stale" if next_code == 409 else "fresh"].append(received - answered)
    return gaps


def delivery_lag(audit: Path, watch: Path) -> dict[str, list[float]]:
    """Milliseconds from each committed claim write's stageTimestamp to its event at the independent watcher
    (``watch``: "resourceVersion unix-µs" lines), by verb."""
    arrived: dict[str, float] = {}
    for line in watch.read_text().splitlines():
        rv, micros = line.split()
        arrived.setdefault(rv, int(micros) / 1000)
    lags: dict[str, list[float]] = {}
    for entry in _entries(audit):
        if not _claim_write(entry) or entry["responseStatus"]["code"] >= 300:
            continue
        rv = ((entry.get("responseObject") or {}).get("metadata") or {}).get("resourceVersion")
        if rv in arrived:
            sub = entry["objectRef"].get("subresource")
            lags.setdefault(entry["verb"] + (f"/{sub}" if sub else ""), []).append(arrived[rv] - _ms(entry["stageTimestamp"]))
    return lags


_FORCED = re.compile(r"I\d{4} (\d\d:\d\d:\d\d\.\d+) .*Forcing sandboxclaims\S* watcher close due to unresponsiveness")


def forced_closes(apiserver_log: Path, day: str) -> list[float]:
    """When kube-apiserver closed an unresponsive sandboxclaims watcher (ms since the epoch; klog has no date)."""
    if not apiserver_log.exists():
        return []
    return [_ms(f"{day}T{m.group(1)}+00:00") for m in map(_FORCED.match, apiserver_log.read_text().splitlines()) if m]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="a scripts/pr508-run folder")
    p.add_argument("--watch", type=Path, help="watchlag --watch-only output from beside the run")
    a = p.parse_args()
    audit = a.run / "audit.log"
    if not audit.exists():
        audit = a.run / "audit.log.gz"
    gaps = stale_gaps(audit)
    for kind, values in gaps.items():
        print(f"next claim-status write {kind:5} n={len(values):4}  ms after the previous response: "
              f"p10 {_pct(values, 10):.1f} p50 {_pct(values, 50):.1f} p90 {_pct(values, 90):.1f} max {_pct(values, 100):.1f}")
    first = next((e for e in _entries(audit) if _claim_write(e)), None)
    if first is not None:
        closes = forced_closes(a.run / "oracle" / "kube-apiserver.log", first["requestReceivedTimestamp"][:10])
        conflicts = [_ms(e["requestReceivedTimestamp"]) for e in _entries(audit)
                     if _claim_write(e) and e["responseStatus"]["code"] == 409
                     and e["objectRef"].get("subresource") == "status"]
        near = sum(any(c - 1000 <= t <= c + 1000 for c in closes) for t in conflicts)
        print(f"forced closes of a sandboxclaims watcher: {len(closes)}; claim-status 409s within 1 s of one: "
              f"{near}/{len(conflicts)}")
    if a.watch:
        for verb, values in sorted(delivery_lag(audit, a.watch).items()):
            print(f"claim {verb:14} n={len(values):4}  event at an independent watcher, ms after stageTimestamp: "
                  f"p10 {_pct(values, 10):.1f} p50 {_pct(values, 50):.1f} p90 {_pct(values, 90):.1f} "
                  f"max {_pct(values, 100):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
