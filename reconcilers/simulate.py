"""``fakekube simulate``: the agent-sandbox PR #508 experiments (claim status Update vs Patch) in seconds.

Runs a scenario (seed-load by default) once per claim-status write strategy and prints, per strategy,
conflicts (409) by resource/subresource and by actor, stale overwrites likewise, claims Ready, Ready latency
percentiles in simulated time, total API requests and wall-clock seconds; seed-timeline also prints one
claim's audit timeline in the PR's table format. ``--json`` prints one JSON object instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fakekube.agentsandbox.builds import BUILDS, DEFAULT_BUILD
from fakekube.agentsandbox.scenarios import SCENARIOS, run_scenario
from fakekube.agentsandbox.strategies import (
    CLAIM_STATUS_MODES,
    POD_METADATA_MODES,
    SANDBOX_STATUS_MODES,
    WriteStrategies,
)
from fakekube.audit.writer import write_log
from fakekube.clihelp import examples, warn
from fakekube.sim.model import ClusterModel

COMPARE_DEFAULT = ("update", "patch")
PR_CLAIM = "sandboxclaim-4"  # PR #508's tables show agent-claim-4, the fifth claim of its run: ours is the fifth too
LABELS = {
    "update": "Status().Update (before #508)",
    "patch": "Status().Patch(MergeFrom) (#508)",
    "patch-lock": "Status().Patch(MergeFromWithOptimisticLock), 409 benign (#1256)",
}
DESCRIPTION = """\
Run one of agent-sandbox's load scenarios on the simulated cluster once per claim-status write strategy
(default: Status().Update as before PR #508, and Status().Patch as after it) and print, per strategy: 409
conflicts and stale overwrites by resource and actor, claims Ready, Ready latency in simulated time, API
requests and wall-clock seconds. seed-timeline also prints one claim's requests as PR #508's table.
See docs/reproducing-pr-508.md."""

EXAMPLES = examples(
    "fakekube simulate --scenario seed-timeline           # seconds: 10 claims, one claim's timeline",
    "fakekube simulate                                    # seed-load: 1,500 claims, 1-3 minutes",
    "fakekube simulate --scenario seed-timeline --claim-status patch-lock --seed 3 --json",
    "fakekube simulate --scenario seed-timeline --total-bursts 20 --warmpool-size 0",
)
_PARAMS = (
    ("burst_size", int, "claims per burst (CL2_BURST_SIZE)"),
    ("qps", float, "claim creations per second within a burst (CL2_QPS)"),
    ("total_bursts", int, "number of bursts (CL2_TOTAL_BURSTS)"),
    ("warmpool_size", int, "warm pool replicas (CL2_WARMPOOL_SIZE)"),
    ("pause_seconds", float, "simulated pause between bursts"),
    ("sandbox_workers", int, "--sandbox-concurrent-workers"),
    ("claim_workers", int, "--sandbox-claim-concurrent-workers"),
    ("warmpool_workers", int, "--sandbox-warm-pool-concurrent-workers"),
    ("client_qps", float, "--kube-api-qps of the controller manager"),
    ("client_burst", int, "--kube-api-burst of the controller manager"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="seed-load",
                        help="; ".join(f"{name}: {scenario_words(s.params)}" for name, s in SCENARIOS.items())
                        + " (default: seed-load; the options below change one figure)")
    parser.add_argument("--claim-status", default=None,
                        help=f"claim status write strategy, or a comma list: {', '.join(CLAIM_STATUS_MODES)} "
                             f"(default: {' and '.join(COMPARE_DEFAULT)} side by side)")
    parser.add_argument("--compare", action="store_true",
                        help="run update and patch side by side (the default without --claim-status)")
    parser.add_argument("--build", choices=sorted(BUILDS), default=DEFAULT_BUILD,
                        help=f"agent-sandbox build: {DEFAULT_BUILD} (what PR #508's tables show; the default) or "
                             "26288535 (main when the PR was opened); see docs/reproducing-pr-508.md")
    parser.add_argument("--sandbox-status", choices=SANDBOX_STATUS_MODES, default=None,
                        help="sandbox status write: update (26288535) or patch (#509, the 953032b3 build; #1254); "
                             "default: as the build does")
    parser.add_argument("--pod-metadata", choices=POD_METADATA_MODES, default=None,
                        help="pod label propagation: update (2026-04) or patch (#784); default: as the build does")
    parser.add_argument("--seed", type=int, default=1, help="simulation seed (same seed, same output)")
    load = parser.add_argument_group("load (default: the scenario's, see --scenario)")
    for name, kind, text in _PARAMS:
        load.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=text,
                          metavar="N" if kind is int else "X")
    parser.add_argument("--timeline-claim", default=None,
                        help="claim whose timeline to print (seed-timeline; default: the one showing most of "
                             "the PR table's features)")
    parser.add_argument("--model", default=None, metavar="FILE",
                        help="timing model JSON (from `fakekube fit`); default: the one fitted from PR #508's "
                             "first table")
    parser.add_argument("--cpu-cores", type=int, default=None, metavar="N",
                        help="model the controller process's CPU: N cores and published per-operation costs "
                             "(reconcilers/cpumodel.py); default: off (work costs no time)")
    parser.add_argument("--expected", default=None, metavar="TABLE",
                        help="a PR-style table to align the claim's timeline with (seed-timeline); prints both "
                             "timelines with the unmatched steps and the cadence ratio")
    parser.add_argument("--expected-table", type=int, default=1, help="which table of --expected (1-based)")
    parser.add_argument("--json", action="store_true", help="print one JSON object with an entry per run")
    parser.add_argument("--no-wall", action="store_true", help="leave out wall-clock fields (byte-comparable)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--audit-log", metavar="PATH", default=None,
                        help="write each run's audit log as audit.k8s.io/v1 Events (Metadata level) to PATH; with "
                             "several strategies, PATH gets the strategy before its suffix (audit.update.log)")


def scenario_words(params: Any) -> str:
    """A scenario's load in words: the recipe's four numbers (CL2_BURST_SIZE, CL2_QPS, CL2_TOTAL_BURSTS,
    CL2_WARMPOOL_SIZE) named."""
    claims = "claim" if params.burst_size == 1 else "claims"
    return (f"{params.total_bursts} bursts of {params.burst_size} {claims} created at {params.qps:g}/s, "
            f"a warm pool of {params.warmpool_size}")


def _warnings(args: argparse.Namespace) -> None:
    timeline = SCENARIOS[args.scenario].timeline
    for flag, given, why in (
            ("--timeline-claim", args.timeline_claim is not None and not timeline, "only seed-timeline prints a timeline"),
            ("--expected-table", args.expected_table != 1 and not args.expected, "it picks a table of --expected")):
        if given:
            warn("simulate", f"{flag} does nothing here: {why}")


def _modes(args: argparse.Namespace) -> list[str]:
    if args.claim_status and not args.compare:
        modes = [m.strip() for m in args.claim_status.split(",") if m.strip()]
    elif args.claim_status and args.compare:
        modes = list(dict.fromkeys([*COMPARE_DEFAULT, *args.claim_status.split(",")]))
    else:
        modes = list(COMPARE_DEFAULT)
    for mode in modes:
        if mode not in CLAIM_STATUS_MODES:
            raise SystemExit(f"fakekube simulate: unknown claim status strategy {mode!r}")
    return modes


def _expected(args: argparse.Namespace) -> Any:
    from fakekube.agentsandbox.fitcmd import tables
    from fakekube.audit import Timeline

    found = tables(Path(args.expected).read_text())
    if not 1 <= args.expected_table <= len(found):
        raise SystemExit(f"fakekube simulate: --expected-table {args.expected_table}, but {args.expected} has "
                         f"{len(found)} table(s)")
    return Timeline.parse(found[args.expected_table - 1])


def run(args: argparse.Namespace) -> int:
    from fakekube.agentsandbox.report import align_with, summarize, timeline_for

    _warnings(args)
    scenario = SCENARIOS[args.scenario].with_overrides(**{n: getattr(args, n, None) for n, _, _ in _PARAMS})
    model = ClusterModel.load(args.model) if args.model else None
    if args.cpu_cores is not None:
        from fakekube.agentsandbox.cpumodel import pr508_cpu
        from fakekube.agentsandbox.env import default_model

        if args.cpu_cores < 1:
            raise SystemExit("fakekube simulate: --cpu-cores needs at least 1")
        model = (model or default_model()).with_changes(cpu=pr508_cpu(args.cpu_cores))
    expected = _expected(args) if args.expected else None
    if expected is not None and not scenario.timeline:
        raise SystemExit("fakekube simulate: --expected aligns one claim's timeline: use --scenario seed-timeline")
    results: list[dict[str, Any]] = []
    for mode in _modes(args):
        strategies = WriteStrategies(mode, args.sandbox_status, args.pod_metadata)  # type: ignore[arg-type]

        def progress(msg: str, mode: str = mode) -> None:
            if not args.quiet:
                print(f"[{scenario.name} {mode}] {msg}", file=sys.stderr, flush=True)

        progress("starting")
        result_run = run_scenario(scenario, strategies, seed=args.seed, progress=progress, build=args.build,
                                  model=model)
        summary = summarize(result_run)
        if scenario.timeline:
            claim = args.timeline_claim
            if expected is not None and claim is None:
                claim = PR_CLAIM if PR_CLAIM in result_run.tracker.claim_created else None
            summary["timeline"] = timeline_for(result_run, claim)
            if expected is not None:
                summary["alignment"] = align_with(result_run, summary["timeline"]["claim"], expected)
        if args.no_wall:
            summary.pop("wall", None)
        results.append(summary)
        progress(f"done in {result_run.wall_seconds:.1f}s wall")
        if args.audit_log:
            path = audit_log_path(args.audit_log, mode, len(_modes(args)) > 1)
            count = write_log(result_run.env.store.audit, path, seed=args.seed)
            progress(f"{count} audit events written to {path}")

    if args.json:
        print(json.dumps({"scenario": scenario.name, "seed": args.seed, "runs": results}, indent=2, sort_keys=True))
    else:
        print(render_text(results))
    return 0


def audit_log_path(path: str, mode: str, several: bool) -> Path:
    """``audit.log`` → ``audit.update.log`` when several strategies run, else ``path`` itself."""
    target = Path(path)
    return target.with_name(f"{target.stem}.{mode}{target.suffix}") if several else target


def _fmt_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} ms"


def render_text(results: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for r in results:
        mode = r["strategies"]["claim_status"]
        lines.append(f"== {r['scenario']} · build {r['build']} · claim status {mode}: {LABELS[mode]} · "
                     f"seed {r['seed']} ==")
        lat = r["ready_latency_ms"]
        rows = [
            ("claims Ready", f"{r['claims']['ready']}/{r['claims']['expected']}"),
            ("Ready latency (simulated)", f"p50 {_ms(lat['p50'])}  p90 {_ms(lat['p90'])}  p99 {_ms(lat['p99'])}"),
            ("conflicts (409)", f"{r['conflicts']['total']} (sandboxclaims/status {r['conflicts']['claim_status']}; "
                                f"the PR's filter, sandboxclaims/* and pods/sandboxclaim-*: {r['conflicts']['pr_filter']})"),
            ("  by resource", _fmt_counts(r["conflicts"]["by_resource"])),
            ("  by actor", _fmt_counts(r["conflicts"]["by_actor"])),
            ("stale overwrites", f"{r['stale_overwrites']['total']} "
                                 f"(sandboxclaims/status {r['stale_overwrites']['claim_status']})"),
            ("  by resource", _fmt_counts(r["stale_overwrites"]["by_resource"])),
            ("  by actor", _fmt_counts(r["stale_overwrites"]["by_actor"])),
            ("warm pool", f"{r['warm_pool']['ready']}/{r['warm_pool']['size']} Ready, "
                          f"{r['warm_pool']['sandboxes_created']} sandboxes created in total"),
            ("sandboxes held by two claims", str(r["sandboxes_held_by_two_claims"])),
            ("API requests", str(r["api_requests"]["total"])),
            ("simulated time", f"{r['simulated_seconds']:.1f} s"),
        ]
        if "cpu" in r:
            c = r["cpu"]
            rows.append(("controller CPU", f"{c['cores']} cores, {c['cpu_seconds']:.1f} CPU-s, queued jobs wait "
                                           f"{c['mean_wait_ms']:.2f} ms mean, {c['max_wait_ms']:.1f} ms max"))
        if "wall" in r:
            rows.append(("wall clock", f"{r['wall']['seconds']:.2f} s"))
        if r["timed_out"]:
            rows.append(("timed out", ", ".join(r["timed_out"])))
        width = max(len(k) for k, _ in rows)
        lines.extend(f"{k.ljust(width)}  {v}" for k, v in rows)
        if r.get("timeline"):
            lines.append("")
            lines.append(f"Timeline of {r['timeline']['claim']}:")
            lines.append(r["timeline"]["table"])
        if r.get("alignment"):
            lines.append(f"Aligned with the expected table (expected left, {r['timeline']['claim']} right):")
            lines.append(r["alignment"]["text"])
        lines.append("")
    if len(results) > 1:
        lines.append(_comparison(results))
    return "\n".join(lines).rstrip() + "\n"


def _comparison(results: list[dict[str, Any]]) -> str:
    head = ["", *[r["strategies"]["claim_status"] for r in results]]
    rows = [
        ["claim status 409s", *[str(r["conflicts"]["claim_status"]) for r in results]],
        ["all 409s", *[str(r["conflicts"]["total"]) for r in results]],
        ["claim status stale overwrites", *[str(r["stale_overwrites"]["claim_status"]) for r in results]],
        ["all stale overwrites", *[str(r["stale_overwrites"]["total"]) for r in results]],
        ["claims Ready", *[f"{r['claims']['ready']}/{r['claims']['expected']}" for r in results]],
        ["Ready p99", *[_ms(r["ready_latency_ms"]["p99"]) for r in results]],
        ["API requests", *[str(r["api_requests"]["total"]) for r in results]],
    ]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    out = ["side by side:"]
    for row in [head, *rows]:
        out.append("  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                                     enumerate(zip(row, widths, strict=True))))
    return "\n".join(out)
