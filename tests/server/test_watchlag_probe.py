"""go/cmd/watchlag against `fakekube serve --tls`: client-go's own watch and writes, as a controller's, see each
write's watch event arrive with the write's answer, as on the real apiserver (docs/reproducing-pr-508.md, "Watch
event against response": within half a millisecond either way at the median on both). Slow: builds the probe (Go
module cache) and starts a server; `pytest -m slow`."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_a_writes_watch_event_arrives_with_its_answer_on_fakekube_serve(tmp_path: Path) -> None:
    if shutil.which("go") is None:
        pytest.skip("no Go toolchain")
    probe = tmp_path / "watchlag"
    subprocess.run(["go", "build", "-o", str(probe), "./cmd/watchlag"], cwd=ROOT / "go", check=True, timeout=600)
    kubeconfig, ready = tmp_path / "kubeconfig", tmp_path / "ready"
    server = subprocess.Popen([sys.executable, "-m", "fakekube.cli", "serve", "--tls", "--kubeconfig", str(kubeconfig),
                               "--ready-file", str(ready), "--no-controllers"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert server.poll() is None and time.monotonic() < deadline, "fakekube serve did not start"
            time.sleep(0.1)
        out = tmp_path / "samples.json"
        subprocess.run([str(probe), "--kubeconfig", str(kubeconfig), "--samples", "60", "--pause", "2ms",
                        "--only", "configmaps/patch,probes/status,clusterprobes/put", "--json", str(out)],
                       check=True, timeout=300, capture_output=True)
    finally:
        server.terminate()
        server.wait(20)
    rows = json.loads(out.read_text())
    assert [(r["resource"], r["write"]) for r in rows] == [
        ("configmaps", "patch"), ("probes", "status"), ("clusterprobes", "put")]
    for row in rows:
        assert row["missing"] == 0 and row["samples"] == 60  # every write's event came, with its resourceVersion
        # A shared CI machine can stall either side for a while; the median cannot move by milliseconds.
        assert abs(statistics.median(row["gaps_ms"])) < 2.0, row["gaps_ms"]
