"""Instruction counts of seed-load and of the ``sim`` benchmark's timed run, under valgrind's cachegrind.

The project's machines are shared, and the same run's wall time swings by 2× and more between minutes; an
instruction count does not (the same binary, inputs and ``PYTHONHASHSEED`` give the same total whatever else
the machine runs). So before/after comparisons of the two slow targets of issue 16 are made on these counts
(docs/benchmarks.md). Each workload is a child process under ``valgrind --tool=cachegrind --cache-sim=no``:

- ``seed-load-update`` / ``seed-load-patch``: one seed-load run (seed 1) with that claim-status strategy, the
  whole process (imports and interpreter exit included: exit is ~1.4G of the update run's ~40G);
- ``sim``: the ``sim`` benchmark's scenario less the same scenario with ``Simulation.run`` left out, i.e. the
  timed run without its setup.

Slow (valgrind runs Python ~50× slower: seed-load takes 10-15 minutes per strategy), so ``python -m benchmarks``
runs it only when named: ``python -m benchmarks instructions``. Needs ``valgrind`` on the PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_SEED_LOAD = """
from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
run_scenario("seed-load", WriteStrategies({mode!r}), seed=1)
"""

_SIM = """
from fakekube.sim import Simulation
if {setup_only!r}:
    Simulation.run = lambda self, *args, **kwargs: None
from benchmarks.bench_sim import _scenario
try:
    _scenario()
except ZeroDivisionError:  # the setup alone times no requests
    assert {setup_only!r}
"""

WORKLOADS = ("seed-load-update", "seed-load-patch", "sim")


def count_instructions(code: str) -> int:
    """Instructions cachegrind counts for ``python -c code`` run from the checkout (``PYTHONHASHSEED=0``)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("valgrind not found on the PATH")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        subprocess.run([valgrind, "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                        sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return summary_instructions(out.read_text())


def summary_instructions(text: str) -> int:
    """The total of a cachegrind output file: its ``summary:`` line's first event (``Ir``)."""
    for line in text.splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError("no summary line in the cachegrind output")


def measure(workload: str) -> dict[str, int]:
    if workload.startswith("seed-load-"):
        return {"instructions": count_instructions(_SEED_LOAD.format(mode=workload.removeprefix("seed-load-")))}
    if workload == "sim":
        full = count_instructions(_SIM.format(setup_only=False))
        setup = count_instructions(_SIM.format(setup_only=True))
        return {"instructions": full - setup, "full": full, "setup": setup}
    raise ValueError(f"unknown workload {workload!r}: one of {', '.join(WORKLOADS)}")


def run(workloads: tuple[str, ...] = WORKLOADS) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind not found on the PATH"}
    results: dict[str, Any] = {}
    for workload in workloads:
        print(f"  {workload} under cachegrind ...", file=sys.stderr, flush=True)
        results[workload] = measure(workload)
    return {"tool": "valgrind --tool=cachegrind --cache-sim=no", "PYTHONHASHSEED": 0, "workloads": results}
