"""``fakekube serve`` with a cluster: the HTTP front's options plus the cluster's.

    fakekube serve [server options] [--nodes N] [--controllers deployment,job,...|--no-controllers]
                   [--pod-start-latency S] [--job-duration S] [--fail-image PATTERN=MODE ...] ...
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fakekube.server import cli as server_cli
from fakekube.sim.lag import Lag

from .cluster import ACTORS
from .runner import ClusterRunner
from .timing import FAILURE_MODES, FailureRule, Timing


def _seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a delay cannot be negative")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    server_cli.add_arguments(parser)
    group = parser.add_argument_group("cluster", "the simulated cluster acting on the served store "
                                                 "(see docs/cluster.md)")
    group.add_argument("--nodes", type=int, default=1, help="fake nodes, each with a kubelet (default 1)")
    group.add_argument("--controllers", default="all", metavar="LIST",
                       help=f"actors to run, comma-separated; '*' for all, '-name' to leave one out "
                            f"(known: {', '.join(ACTORS)})")
    group.add_argument("--no-controllers", action="store_true",
                       help="no actors at all: a bare API server, as envtest gives")
    group.add_argument("--no-bootstrap", action="store_true",
                       help="do not create the bootstrap objects (default/kubernetes, kube-system DNS, ...)")
    group.add_argument("--pod-start-latency", type=_seconds, metavar="S",
                       help="seconds from a pod's binding until its containers run")
    group.add_argument("--job-duration", type=_seconds, metavar="S",
                       help="seconds a Never/OnFailure pod's containers run before they exit")
    group.add_argument("--probe-scale", type=_seconds, metavar="F",
                       help="multiplies readiness probes' initialDelaySeconds (0: ready at once)")
    group.add_argument("--restart-backoff", type=_seconds, metavar="S",
                       help="kubelet's first crash-loop back-off (upstream 10 s, doubling)")
    group.add_argument("--job-backoff", type=_seconds, metavar="S",
                       help="job controller's first pod-failure back-off (upstream 10 s, doubling)")
    group.add_argument("--fail-image", action="append", default=[], metavar="PATTERN=MODE",
                       help=f"containers whose image matches PATTERN fail: MODE is one of {', '.join(FAILURE_MODES)}")


def timing_from(args: argparse.Namespace) -> Timing:
    changes: dict[str, Any] = {}
    if args.pod_start_latency is not None:
        changes["start_latency"] = Lag.fixed(args.pod_start_latency)
    if args.job_duration is not None:
        changes["run_duration"] = Lag.fixed(args.job_duration)
    if args.probe_scale is not None:
        changes["probe_scale"] = args.probe_scale
    if args.restart_backoff is not None:
        changes["restart_backoff"] = args.restart_backoff
    if args.job_backoff is not None:
        changes["job_backoff"] = args.job_backoff
    if args.fail_image:
        changes["failures"] = tuple(FailureRule.parse(text) for text in args.fail_image)
    return Timing(**changes)


def run(args: argparse.Namespace) -> int:
    try:
        timing = timing_from(args)
    except ValueError as exc:
        print(f"fakekube serve: {exc}", file=sys.stderr)
        return 2
    controllers = () if args.no_controllers else args.controllers

    def start(store: Any, server: Any) -> Any:
        runner = ClusterRunner(store, nodes=args.nodes, controllers=controllers, timing=timing,
                               bootstrap_objects=not args.no_bootstrap,
                               ca_pem=server.ca_pem.decode() if server.ca_pem else None).start()
        try:
            # Ready means a pod created now gets scheduled: every kubelet has registered its node.
            runner.wait_ready()
        except TimeoutError:
            runner.stop()
            raise
        return runner.stop

    return server_cli.run(args, before_serve=start)
