"""Run the benchmarks and print one JSON object: ``python -m benchmarks [store|patch|sim|server|protobuf|agent_sandbox|requests|explore|audit|oracle|hardening|inprocess|instructions ...]``.

With no names, every suite in ``SUITES``; those in ``ON_REQUEST`` (slow) run only when named."""

from __future__ import annotations

import importlib
import json
import sys

SUITES = ("store", "patch", "sim", "server", "protobuf", "agent_sandbox", "requests", "explore", "audit", "oracle",
          "hardening", "docfigures", "inprocess")
ON_REQUEST = ("instructions",)  # seed-load and ``sim`` under valgrind: half an hour


def main(argv: list[str]) -> int:
    chosen = argv or list(SUITES)
    results: dict[str, object] = {}
    for name in chosen:
        if name not in SUITES and name not in ON_REQUEST:
            print(f"unknown suite {name!r}: one of {', '.join(SUITES + ON_REQUEST)}", file=sys.stderr)
            return 2
        try:
            module = importlib.import_module(f"benchmarks.bench_{name}")
        except ImportError as exc:
            results[name] = {"skipped": str(exc)}
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results[name] = module.run()
    print(json.dumps(results, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
