"""The ``fakekube`` command: ``fakekube simulate`` (the agent-sandbox experiments), ``fakekube serve`` and
``fakekube audit`` and ``fakekube fit`` (a timing model from evidence).

Each subcommand lives with the layer it drives; this module only dispatches.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys

from fakekube import __version__

_SUBCOMMANDS = {
    "simulate": ("fakekube.agentsandbox.simulate", "Run the agent-sandbox PR #508 experiments (Update vs Patch)."),
    "serve": ("fakekube.cluster.cli", "Serve the fake API server over HTTP for kubectl and client libraries, "
                                      "with a simulated cluster acting on it (nodes, scheduler, controllers)."),
    "fit": ("fakekube.agentsandbox.fitcmd", "Estimate a cluster timing model from a PR-style table or an audit log."),
    "explore": ("fakekube.explore.cli", "Run a scenario over many seeds and perturbations; write reproducers."),
    "audit": ("fakekube.audit.cli", "Read an audit log (kube-apiserver, GKE, AKS, fakekube): summary, conflicts, "
                                    "timeline, compare."),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fakekube", description=__doc__)
    parser.add_argument("--version", action="version", version=f"fakekube {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_text) in _SUBCOMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        try:
            importlib.import_module(module).add_arguments(command)
        except ImportError as exc:
            command.set_defaults(_unavailable=str(exc))
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
