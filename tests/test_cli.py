"""The ``fakekube`` command itself: ``--version`` (launchers check it), ``python -m fakekube``, and the help of
every command: one line per command, an example each, defaults shown."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import fakekube
from fakekube.cli import _SUBCOMMANDS, build_parser, main


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


# --- help (issue 30 item 4) --------------------------------------------------------------------------------

def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def _every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    parsers = []
    for name, parser in _subparsers(build_parser()).items():
        parsers.append((name, parser))
        parsers.extend((f"{name} {inner}", p) for inner, p in _subparsers(parser).items())
    return parsers


def test_top_level_help_lists_every_command_on_one_line_each(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    block = text.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert block[0].strip() == "COMMAND"
    listed = dict(line.split(maxsplit=1) for line in block[1:])   # a wrapped help would break this
    assert list(listed) == list(_SUBCOMMANDS)
    assert set(listed) == {"serve", "explore", "audit", "fit", "simulate"}
    assert "``" not in text and "dispatches" not in text  # no developer docstring
    assert "fakekube serve --kubeconfig" in text.split("examples:", 1)[1]


@pytest.mark.parametrize(("name", "parser"), _every_parser(), ids=[n for n, _ in _every_parser()])
def test_every_command_shows_an_example_of_itself(name, parser):
    text = parser.format_help()
    assert "\nexamples:\n" in text
    example_lines = text.split("\nexamples:\n", 1)[1].splitlines()
    assert any(line.strip().startswith(f"fakekube {name}") for line in example_lines), example_lines


@pytest.mark.parametrize(("name", "parser"), _every_parser(), ids=[n for n, _ in _every_parser()])
def test_every_option_with_a_default_shows_it(name, parser):
    formatter = parser._get_formatter()
    for action in parser._actions:
        if not action.option_strings or action.default in (None, False, [], "", argparse.SUPPRESS):
            continue
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        assert "default" in formatter._get_help_string(action), f"{name} {action.option_strings[0]}"


@pytest.mark.parametrize(("argv", "option", "shown"), [
    (["simulate"], "--seed", "(default: 1)"),
    (["simulate"], "--claim-status", "(default: update and patch side by side)"),
    (["fit"], "--table", "(default: 1)"),
    (["explore"], "--jobs", "(default: 1)"),
    (["serve"], "--pod-start-latency", "(default: uniform 0.05-0.2 s)"),
    (["serve"], "--job-duration", "(default: 0.5 s)"),
])
def test_the_defaults_the_issue_named_are_stated(argv, option, shown):
    parser = _subparsers(build_parser())[argv[0]]
    action = next(a for a in parser._actions if option in a.option_strings)
    assert shown in parser._get_formatter()._get_help_string(action) % {"default": action.default}


def test_simulate_scenarios_are_described_in_words():
    text = " ".join(_subparsers(build_parser())["simulate"].format_help().split())
    assert "seed-timeline: 10 bursts of 1 claim created at 1/s, a warm pool of 2" in text
    assert "seed-load: 5 bursts of 300 claims created at 300/s, a warm pool of 600" in text
    assert "1/1/10/2" not in text
