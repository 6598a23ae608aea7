"""The asyncio operator of docs/simulation-asyncio.md ("Exploring its races") under ``fakekube explore``: forked
workers and another hash seed give the report, byte for byte, that one process gives."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("kubernetes_asyncio")

PAGE = Path(__file__).parents[2] / "docs" / "simulation-asyncio.md"
FENCE = re.compile(r"```python\n(.*?)```", re.S)

PROGRAM = """
import sys
from fakekube.explore import explore
exec(sys.stdin.read())  # the page's block that defines the operator, its scenario and its invariant
found = explore(roster_scenario, "1-6", {"lock": [False, True]}, invariants=[everyone_listed, "no-conflict"],
                jobs=int(sys.argv[1]))
print(found.render_text())
"""


def scenario_block() -> str:
    block = next(b for b in FENCE.findall(PAGE.read_text()) if "def roster_scenario" in b)
    return block[:block.index("found = explore(")]  # the definitions, not the page's own exploration


def report(jobs: int, hash_seed: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(jobs)], input=scenario_block(), text=True,
                          capture_output=True, timeout=120, check=True, env={"PYTHONHASHSEED": hash_seed,
                                                                             "PATH": "/usr/bin:/bin"})
    return done.stdout


def test_forked_workers_and_another_hash_seed_give_the_same_report():
    one = report(1, "1")
    assert "[lock=False]" in one and "smallest seed breaking everyone-listed" in one
    assert report(2, "7") == one
