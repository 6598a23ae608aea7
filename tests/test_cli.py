"""The ``fakekube`` command itself: ``--version`` (launchers check it) and ``python -m fakekube``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import fakekube
from fakekube.cli import build_parser, main


def test_version_prints_the_package_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"fakekube {fakekube.__version__}\n"


def test_version_is_in_the_help_too():
    assert "--version" in build_parser().format_help()


@pytest.mark.slow
def test_python_dash_m_fakekube_runs_the_command():
    done = subprocess.run([sys.executable, "-m", "fakekube", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"fakekube {fakekube.__version__}"
    refused = subprocess.run([sys.executable, "-m", "fakekube", "no-such-command"], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 2 and "invalid choice" in refused.stderr
