"""Run every benchmark and print one JSON object: ``python -m benchmarks [store|patch|sim|server|agent_sandbox|requests|audit ...]``."""

from __future__ import annotations

import importlib
import json
import sys

SUITES = ("store", "patch", "sim", "server", "agent_sandbox", "requests", "explore", "audit")


def main(argv: list[str]) -> int:
    chosen = argv or list(SUITES)
    results: dict[str, object] = {}
    for name in chosen:
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
