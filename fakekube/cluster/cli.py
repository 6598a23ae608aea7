"""``fakekube serve`` with a cluster: the HTTP front's options plus the cluster's.

    fakekube serve [server options] [--nodes N] [--controllers deployment,job,...|--no-controllers]
                   [--pod-start-latency S] [--job-duration S] [--fail-image PATTERN=MODE ...] ...
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fakekube.clihelp import examples, warn
from fakekube.server import cli as server_cli
from fakekube.sim.lag import Lag

from .cluster import ACTORS
from .runner import ClusterRunner
from .timing import FAILURE_MODES, FailureRule, Timing

DESCRIPTION = """\
Serve the fake API server over HTTP until interrupted (Ctrl-C or SIGTERM), with a simulated cluster acting on
it: nodes with kubelets, the scheduler and kube-controller-manager's controllers. It prints its URL on stdout;
--kubeconfig writes a kubeconfig for kubectl and client libraries. See docs/http/ and docs/cluster.md."""

EXAMPLES = examples(
    "fakekube serve --kubeconfig kc.yaml           # then: kubectl --kubeconfig kc.yaml get nodes",
    "fakekube serve --port 6443 --crd crds.yaml --load objects.yaml --kubeconfig kc.yaml",
    "fakekube serve --tls --token s3cret --authorization-mode RBAC --kubeconfig kc.yaml",
    "fakekube serve --no-controllers --ready-file ready   # a bare API server, as envtest's",
    "fakekube serve --nodes 3 --pod-start-latency 2 --fail-image '*:broken=ImagePullBackOff'",
)


def _lag_text(lag: Lag) -> str:
    if lag.kind == "uniform":
        return f"uniform {lag.a:g}-{lag.b:g} s"
    return f"{lag.a:g} s" if lag.kind == "fixed" else f"{lag.kind} {lag.a:g} s"


def _seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a delay cannot be negative")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    server_cli.add_arguments(parser)
    timing = Timing()
    group = parser.add_argument_group("cluster", "the simulated cluster acting on the served store "
                                                 "(see docs/cluster.md)")
    group.add_argument("--nodes", type=int, default=1, help="fake nodes, each with a kubelet (default 1)")
    group.add_argument("--controllers", default="all", metavar="LIST",
                       help=f"actors to run, comma-separated; 'all' or '*' for all, '-name' to leave one out "
                            f"(known: {', '.join(ACTORS)}; default: all)")
    group.add_argument("--no-controllers", action="store_true",
                       help="no actors at all (no nodes, controllers, garbage collector, default ServiceAccounts) "
                            "and no ServiceAccount admission: a bare API server, as envtest gives")
    group.add_argument("--no-bootstrap", action="store_true",
                       help="do not create the bootstrap objects (default/kubernetes, kube-system DNS, ...)")
    group.add_argument("--pod-start-latency", type=_seconds, metavar="S",
                       help="seconds from a pod's binding until its containers run "
                            f"(default: {_lag_text(timing.start_latency)})")
    group.add_argument("--job-duration", type=_seconds, metavar="S",
                       help="seconds a Never/OnFailure pod's containers run before they exit "
                            f"(default: {_lag_text(timing.run_duration)})")
    group.add_argument("--probe-scale", type=_seconds, metavar="F",
                       help="multiplies readiness probes' initialDelaySeconds (0: ready at once; "
                            f"default: {timing.probe_scale:g})")
    group.add_argument("--restart-backoff", type=_seconds, metavar="S",
                       help=f"kubelet's first crash-loop back-off, doubling (default: {timing.restart_backoff:g} s, "
                            "as upstream)")
    group.add_argument("--job-backoff", type=_seconds, metavar="S",
                       help=f"job controller's first pod-failure back-off, doubling (default: {timing.job_backoff:g} "
                            "s, as upstream)")
    group.add_argument("--fail-image", action="append", default=[], metavar="PATTERN=MODE",
                       help=f"containers whose image matches PATTERN fail: MODE is one of {', '.join(FAILURE_MODES)} "
                            "(repeatable)")


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
    if args.no_controllers:
        ignored = [flag for flag, changed in (
            ("--nodes", args.nodes != 1), ("--controllers", args.controllers != "all"),
            ("--pod-start-latency", args.pod_start_latency is not None),
            ("--job-duration", args.job_duration is not None), ("--probe-scale", args.probe_scale is not None),
            ("--restart-backoff", args.restart_backoff is not None),
            ("--job-backoff", args.job_backoff is not None), ("--fail-image", bool(args.fail_image))) if changed]
        if ignored:
            warn("serve", f"{', '.join(ignored)} {'does' if len(ignored) == 1 else 'do'} nothing with "
                          "--no-controllers: no nodes, kubelets or controllers run")
        # envtest starts kube-apiserver with --disable-admission-plugins=ServiceAccount (controller-runtime
        # pkg/internal/testing/controlplane/apiserver.go): without the controller, pods would need accounts made by hand.
        plugins = {p for p in (args.disable_admission_plugins or "").split(",") if p}
        args.disable_admission_plugins = ",".join(sorted(plugins | {"ServiceAccount"}))

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
