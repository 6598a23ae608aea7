"""The instruction-count suite: cachegrind's total of a child process, read from its summary line."""

from __future__ import annotations

import shutil

import pytest

from benchmarks import __main__ as runner
from benchmarks.bench_instructions import count_instructions, measure, summary_instructions


def test_the_total_is_the_summary_lines_first_event() -> None:
    text = "desc: --cache-sim=no\ncmd: python -c pass\nevents: Ir\nfl=x\n1 5\nsummary: 123456789\n"
    assert summary_instructions(text) == 123456789
    with pytest.raises(ValueError):
        summary_instructions("events: Ir\n")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")
@pytest.mark.slow
def test_a_longer_program_counts_more_and_the_count_repeats() -> None:
    idle = count_instructions("pass")
    busy = count_instructions("for i in range(200_000): pass")
    assert busy - idle > 200_000 * 10  # a loop iteration is tens of instructions at least
    assert count_instructions("pass") == idle  # PYTHONHASHSEED=0: the same program, the same count


def test_unknown_workloads_and_suites_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="unknown workload"):
        measure("seed-load")
    assert runner.main(["no-such-suite"]) == 2
    assert "instructions" in capsys.readouterr().err
