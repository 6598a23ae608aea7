"""Exec and log requests of a simulation's actors: ``Client.exec`` and ``Client.logs``.

Each is one API request as the client's other verbs are (token bucket, request leg, the store call, response
leg; ``fakekube.sim.client``) and is in the store's audit log like any request: ``get pods/exec`` and ``get
pods/log`` with the actor, the pod and the answer's code — a WebSocket exec is a GET, as the Python clients and
kubectl ≥ 1.30 send it. The store call checks what kube-apiserver checks before it reaches the kubelet (the pod,
the container: ``fakekube.pods.podcontainer``), and for an exec the kubelet's refusal of a container that is
not running; then the command runs in the container, outside the store lock. Its ``sleep`` is the
simulation's virtual time (``fakekube.pods.interpreter``); a handler registered with ``on_exec`` runs at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakekube import errors
from fakekube.pods.commands import Session
from fakekube.pods.execution import container_spec
from fakekube.pods.logs import pod_logs
from fakekube.pods.podcontainer import container_running, validate_container
from fakekube.pods.process import ExitStatus, Input


@dataclass(frozen=True)
class ExecResult:
    """What an exec gave back: its exit code and what it wrote."""

    code: int
    stdout: bytes
    stderr: bytes


def _pod(store: Any, namespace: str, name: str) -> Mapping[str, Any]:
    pod = store.stored_object("/pods", (namespace, name))
    if pod is None:
        raise errors.NotFound("pods", "", name)
    return pod


def exec_request(store: Any, rt: Any, name: str, namespace: str, container: str | None,
                 actor: str) -> tuple[Mapping[str, Any], str]:
    """The store side of an exec: audited as ``get pods/exec``; the pod and the container to run in."""
    def serve(entry: Any) -> tuple[Mapping[str, Any], str]:
        pod = _pod(store, namespace, name)
        chosen = validate_container(container or "", pod)
        if not (pod.get("spec") or {}).get("nodeName"):
            raise errors.BadRequest(f"pod {name} does not have a host assigned")
        if not container_running(pod, chosen):
            # the kubelet's refusal, as the apiserver relays it to a client (an InternalError Status)
            raise errors.InternalError(f'unable to upgrade connection: container not found ("{chosen}")')
        return pod, chosen

    return store._run(lambda: store._begin("get", rt, namespace, name, "exec", actor), serve)


def run_exec(store: Any, pod: Mapping[str, Any], container: str, command: list[str], stdin: bytes) -> Any:
    """The command in the container as a generator of waits; its value is the ``ExecResult``."""
    registry = store.pod_exec
    out, err = bytearray(), bytearray()
    namespace = str(pod["metadata"].get("namespace") or "")

    def lookup(plural: str, name: str) -> Mapping[str, Any] | None:
        return store.stored_object("/" + plural, (namespace, name))  # read-only, no copy: ConfigMaps, Secrets

    proc = registry.process(pod, container, list(command), lookup, now=store.clock.now, write_stdout=out.extend,
                            write_stderr=err.extend, stdin=Input(stdin, closed=True))
    handler = registry.handlers.find(pod, container)
    if handler is not None:
        try:
            code = int(handler(proc) or 0)
        except ExitStatus as done:
            code = done.code
    else:
        spec = container_spec(pod, container) or {}
        code = yield from Session(proc, str(spec.get("workingDir") or "/")).start(list(command))
    return ExecResult(code, bytes(out), bytes(err))


def log_request(store: Any, rt: Any, name: str, namespace: str, container: str | None, previous: bool,
                tail_lines: int | None, actor: str) -> str:
    """``get pods/log``, audited; the container's log as ``kubectl logs`` prints it."""
    def serve(entry: Any) -> str:
        pod = _pod(store, namespace, name)
        chosen = validate_container(container or "", pod)
        logs = pod_logs(store)
        uid = pod["metadata"]["uid"]
        log = logs.previous(uid, chosen) if previous else logs.instance(uid, chosen)
        if log is None:
            raise errors.BadRequest(f'previous terminated container "{chosen}" in pod "{name}" not found')
        lines = log.lines()[0]
        if tail_lines is not None:
            lines = lines[-tail_lines:] if tail_lines else []
        return b"".join(line.data for line in lines).decode(errors="replace")

    return store._run(lambda: store._begin("get", rt, namespace, name, "log", actor), serve)


__all__ = ["ExecResult", "exec_request", "log_request", "run_exec"]
