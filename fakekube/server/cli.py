"""``fakekube serve``: run the fake API server until interrupted.

    fakekube serve [--host 127.0.0.1] [--port 0] [--crd FILE ...] [--kubeconfig PATH] [--token TOKEN]
                   [--tls] [--authorization-mode AlwaysAllow|RBAC] [--kubernetes-version 1.30] [--ready-file PATH]
                   [--audit-log PATH [--audit-level LEVEL | --audit-policy FILE]] [--audit-memory N]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from fakekube.apimodel import DEFAULT_KUBERNETES_VERSION, supported_versions
from fakekube.audit.policy import Policy, PolicyError
from fakekube.clihelp import warn
from fakekube.server.app import ApiServer
from fakekube.server.rbacmode import rbac_options
from fakekube.server.tokenfile import TokenFileError, read_token_file
from fakekube.store import Store

# Enough for a test to look back over its own requests; a server that runs for days stays bounded.
AUDIT_MEMORY = 10_000
DISABLEABLE_ADMISSION = frozenset({"ServiceAccount", "StorageObjectInUseProtection", "TaintNodesByCondition"})


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default: loopback only; the fake has no real security)")
    parser.add_argument("--port", type=int, default=0, help="port (default: 0, any free port)")
    parser.add_argument("--crd", action="append", default=[], metavar="FILE",
                        help="register the CustomResourceDefinitions in FILE (repeatable)")
    parser.add_argument("--load", action="append", default=[], metavar="FILE",
                        help="create the objects in FILE after the CRDs (repeatable)")
    parser.add_argument("--kubeconfig", metavar="PATH", help="write a kubeconfig for this server to PATH")
    parser.add_argument("--token", help="require this bearer token (401 without it); kubectl sends it only over "
                                        "HTTPS, so use it with --tls")
    parser.add_argument("--token-auth-file", metavar="FILE",
                        help="bearer tokens and their users, as kube-apiserver's flag: CSV records "
                             "token,user,uid[,\"group1,group2\"] (401 without a credential, as with --token; "
                             "see docs/http/auth.md)")
    parser.add_argument("--ready-file", metavar="PATH",
                        help="write PATH once the server listens and the cluster's actors run (its content: the "
                             "kubeconfig path with --kubeconfig, else the URL); removed when serving ends")
    parser.add_argument("--authorization-mode", choices=("AlwaysAllow", "RBAC"), default="AlwaysAllow",
                        help="AlwaysAllow (default: every request is allowed) or RBAC: the store's Roles, "
                             "ClusterRoles and bindings decide, as kube-apiserver's RBAC mode (the admin of --tls "
                             "and of --token is cluster-admin; anonymous gets what system:unauthenticated is "
                             "granted; see docs/http/auth.md)")
    parser.add_argument("--tls", action="store_true",
                        help="serve HTTPS with a throwaway CA (needs 'cryptography'); kubectl sends tokens only over TLS")
    parser.add_argument("--max-body-bytes", type=int, default=None, metavar="N",
                        help="request body limit in bytes (default: 3 MiB, as kube-apiserver)")
    parser.add_argument("--kubernetes-version", metavar="1.X", default=None,
                        help="the Kubernetes release whose built-in API to serve (default: "
                             f"{DEFAULT_KUBERNETES_VERSION}; supported: "
                             f"{supported_versions()[0]} to {supported_versions()[-1]})")
    parser.add_argument("--disable-admission-plugins", metavar="LIST", default="",
                        help="admission plugins not to run, as kube-apiserver's flag (only ServiceAccount: pods then "
                             "need no ServiceAccount, as on envtest's server)")
    parser.add_argument("--webhook-service", action="append", default=[], metavar="NAMESPACE/NAME[:PORT]=HOST:PORT",
                        help="send admission webhooks' calls to this Service to HOST:PORT (no Service network "
                             "here; repeatable; the TLS check keeps NAME.NAMESPACE.svc)")
    parser.add_argument("--audit-memory", metavar="N", type=_count, default=AUDIT_MEMORY,
                        help=f"audit entries kept in memory, newest first out of the ring (default {AUDIT_MEMORY}; "
                             "--audit-log still gets every one)")
    parser.add_argument("--audit-log", metavar="PATH",
                        help="write every request as an audit.k8s.io/v1 Event (JSON lines), as --audit-log-path does")
    level = parser.add_mutually_exclusive_group()
    level.add_argument("--audit-level", choices=("Metadata", "Request", "RequestResponse"), default=None,
                       help="audit level for every request (default: Metadata)")
    level.add_argument("--audit-policy", metavar="FILE", help="an audit.k8s.io/v1 Policy file, as --audit-policy-file")


def _audit_policy(args: argparse.Namespace) -> Policy | None:
    if getattr(args, "audit_policy", None):
        return Policy.load(args.audit_policy)
    return Policy.level(args.audit_level or "Metadata")


def run(args: argparse.Namespace, *, before_serve: Callable[[Store, ApiServer], Any] | None = None) -> int:
    """Serve until interrupted; ``before_serve(store, server)`` runs once the server listens (a layer above
    starts its actors there) and may return a callable to run when serving ends."""
    try:
        store = Store(kubernetes_version=getattr(args, "kubernetes_version", None))
    except ValueError as exc:
        print(f"fakekube serve: {exc}", file=sys.stderr)
        return 2
    text = getattr(args, "disable_admission_plugins", "") or ""
    disabled = frozenset(p.strip() for p in text.split(",") if p.strip())
    if disabled - DISABLEABLE_ADMISSION:
        unknown = ", ".join(sorted(disabled - DISABLEABLE_ADMISSION))
        print(f"fakekube serve: --disable-admission-plugins: cannot disable {unknown} "
              f"(only {', '.join(sorted(DISABLEABLE_ADMISSION))})", file=sys.stderr)
        return 2
    store.disabled_admission_plugins = disabled
    for mapping in getattr(args, "webhook_service", None) or ():
        try:
            store.webhook_services.parse_flag(mapping)
        except ValueError as exc:
            print(f"fakekube serve: {exc}", file=sys.stderr)
            return 2
    store.audit.set_keep(getattr(args, "audit_memory", AUDIT_MEMORY))
    if getattr(args, "audit_log", None):
        try:
            store.audit.write_events(args.audit_log, policy=_audit_policy(args))
        except (PolicyError, OSError) as exc:
            print(f"fakekube serve: {exc}", file=sys.stderr)
            return 2
    elif getattr(args, "audit_policy", None) or getattr(args, "audit_level", None):
        print("fakekube serve: --audit-level and --audit-policy need --audit-log", file=sys.stderr)
        return 2
    for path in args.crd:
        store.load_crds(path)
    for path in args.load:
        store.load(path)
    token_flag = "--token" if args.token else "--token-auth-file" if getattr(args, "token_auth_file", None) else ""
    if token_flag and not getattr(args, "tls", False):
        # client-go's kubeconfig loader reads a user's credentials only for an HTTPS server (client-go
        # tools/clientcmd/client_config.go): kubectl's requests would be anonymous, and get 401.
        written = f" in {args.kubeconfig}" if args.kubeconfig else ""
        what = f"the token{written}" if args.token else "a token"
        warn("serve", f"{token_flag} without --tls: kubectl and client-go read {what} only for an HTTPS "
                      "server, so they get 401 Unauthorized; add --tls")
    options: dict[str, Any] = {"token": args.token, "tls": getattr(args, "tls", False)}
    if getattr(args, "token_auth_file", None):
        try:
            token_file = read_token_file(args.token_auth_file)
        except TokenFileError as exc:
            print(f"fakekube serve: {exc}", file=sys.stderr)
            store.audit.close_writers()
            return 2
        for warning in token_file.warnings:
            warn("serve", warning)
        options["tokens"] = token_file.tokens
    if getattr(args, "authorization_mode", "AlwaysAllow") == "RBAC":
        options.update(rbac_options(store, args.token))
    if getattr(args, "max_body_bytes", None):
        options["max_body_bytes"] = args.max_body_bytes
    try:
        server = ApiServer(store, args.host, args.port, **options)  # type: ignore[arg-type]
    except OSError as exc:
        print(f"fakekube serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        store.audit.close_writers()
        return 1
    cleanup = before_serve(store, server) if before_serve is not None else None
    # What is loaded by now (the API model, schemas, OpenAPI documents, the actors) lives as long as the server:
    # left to the cyclic collector, every full collection walks it with all threads stopped, and one client's
    # garbage-heavy request (a list of 1,000 objects, a body nested 10,000 deep) then holds every other client
    # 100-400 ms. Frozen, a full collection walks only what came later (benchmarks/bench_hardening.py). Only
    # in a process that serves from its main thread: a test that runs this in a thread keeps its collector.
    if threading.current_thread() is threading.main_thread():
        gc.collect()
        gc.freeze()
    kubeconfig = None
    if args.kubeconfig:
        # Once the actors are up (a launcher that waits for the file finds a ready cluster) and before the URL,
        # so whoever waits for the URL finds the file in place.
        kubeconfig = server.write_kubeconfig(args.kubeconfig)
        print(f"kubeconfig written to {kubeconfig}", file=sys.stderr, flush=True)
    _stop_on_sigterm()
    print(server.url, flush=True)
    ready_file = getattr(args, "ready_file", None)
    try:
        if ready_file:
            _write_ready_file(ready_file, str(kubeconfig) if kubeconfig else server.url)
        server.serve_until_interrupted()
    finally:
        if ready_file:
            with contextlib.suppress(OSError):
                os.remove(ready_file)
        if callable(cleanup):
            cleanup()
        store.audit.close_writers()
    return 0


def _write_ready_file(path: str, content: str) -> None:
    """Atomically (a rename), so a reader polling for the file never sees it half written."""
    partial = f"{path}.partial"
    with open(partial, "w") as out:
        out.write(content + "\n")
    os.replace(partial, path)


def _stop_on_sigterm() -> None:
    """SIGTERM and SIGINT end serving cleanly (actors stopped, audit log closed), as kube-apiserver does on
    either. Python's default SIGTERM kills at once; a launcher that started us in the background may have left
    SIGINT ignored. Only the main thread may install handlers (tests run ``run`` from others)."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGTERM, interrupt)
        signal.signal(signal.SIGINT, interrupt)
