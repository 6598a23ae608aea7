"""The ``fakekube`` command: dispatches to each subcommand's module (it lives with the layer it drives)."""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

from fakekube import __version__
from fakekube.clihelp import HelpFormatter, examples

# name: (module with add_arguments/run and EXAMPLES, one line for the command list)
_SUBCOMMANDS = {
    "serve": ("fakekube.cluster.cli", "serve the fake API server over HTTP, with a simulated cluster"),
    "explore": ("fakekube.explore.cli", "run a scenario over many seeds; find races; write a reproducer"),
    "audit": ("fakekube.audit.cli", "read audit logs: summary, conflicts, timeline, compare, denials"),
    "fit": ("fakekube.agentsandbox.fitcmd", "fit a timing model to a PR's timeline table or an audit log"),
    "simulate": ("fakekube.agentsandbox.simulate", "run agent-sandbox PR #508's experiments (Update vs Patch)"),
}

DESCRIPTION = """\
fakekube: an in-memory fake Kubernetes API server and a simulated cluster, for tests.

In Python tests, fakekube's pytest fixtures (kube, kube_server, kube_cluster, sim) need no command;
`fakekube serve` is for kubectl, other languages' clients and Go suites."""

EXAMPLES = examples(
    "fakekube serve --kubeconfig kubeconfig.yaml      # then: kubectl --kubeconfig kubeconfig.yaml get nodes",
    "fakekube explore --scenario seed-timeline --claim-status patch --cache-lag-scale 4",
    "fakekube audit summary audit.log",
    "fakekube COMMAND --help                          # a command's options, defaults and examples",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fakekube", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"fakekube {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND")
    for name, (module, help_text) in _SUBCOMMANDS.items():
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            command = sub.add_parser(name, help=help_text, description=help_text, formatter_class=HelpFormatter)
            command.set_defaults(_unavailable=str(exc))
        else:
            command = sub.add_parser(name, help=help_text, description=loaded.DESCRIPTION or help_text,
                                     epilog=loaded.EXAMPLES, formatter_class=HelpFormatter)
            loaded.add_arguments(command)
        command.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv) == ["--version"]:
        # Launchers (the Go module's Environment) ask before every start: skip importing every subcommand.
        print(f"fakekube {__version__}")
        return 0
    args = build_parser().parse_args(argv)
    if getattr(args, "_unavailable", None):
        print(f"fakekube {args.command}: not available: {args._unavailable}", file=sys.stderr)
        return 2
    code = int(importlib.import_module(args._module).run(args) or 0)
    if argv is None:
        # Run as the program, which exits next: a finished simulation is millions of objects in reference
        # cycles, and collecting them at interpreter exit took ~3 s after a seed-load run. Frozen objects are
        # skipped by that last collection; the OS takes the memory back. (Callers passing argv keep normal GC.)
        gc.freeze()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
