"""Which code answers an exec into a fake container: a handler a test registered for the container
(``Store.on_exec``; the newest matching rule wins, as kwok's ``ClusterExec``), else the built-in commands
(``fakekube.pods.commands``). Each container keeps its in-memory files across execs (``kubectl cp`` in, then
``cat``), seeded from the pod spec on first use."""

from __future__ import annotations

import select
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fakekube.pods.commands import run_builtin
from fakekube.pods.filesystem import ContainerFiles, Lookup, seed_env, seed_files
from fakekube.pods.portforward import PortForwards
from fakekube.pods.process import ExecHandler, ExitStatus, Process
from fakekube.pods.selection import ContainerSelector, Rules

__all__ = ["ExecRegistry", "ExecHandler", "Process", "container_spec"]


def container_spec(pod: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    spec = pod.get("spec") or {}
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict) and c.get("name") == name:
                return c
    return None


class ExecRegistry:
    """The exec behaviours of one store's pods and their containers' files."""

    def __init__(self) -> None:
        self.handlers: Rules[ExecHandler] = Rules()
        self.attach_handlers: Rules[ExecHandler] = Rules()
        # The container's current log (pod, container), once logs are kept: what a process writes to the
        # container's own stdout/stderr (``/proc/1/fd/1``) is appended to it, and an attach without a handler
        # streams it.
        self.container_log: Callable[[Mapping[str, Any], str], Any] | None = None
        self._files: dict[tuple[str, str], ContainerFiles] = {}
        self.port_forwards = PortForwards()  # what answers pods/portforward (``on_port_forward``)
        self._lock = threading.Lock()

    def on_exec(
        self,
        handler: ExecHandler,
        *,
        namespace: str | Iterable[str] | None = None,
        pod: str | Iterable[str] | None = None,
        labels: str | Mapping[str, str] | None = None,
        container: str | Iterable[str] | None = None,
    ) -> Callable[[], None]:
        """Answer execs into the containers picked by the selector with ``handler(process) -> exit code``;
        returns a function that removes the rule."""
        return self.handlers.add(ContainerSelector.of(namespace=namespace, pod=pod, labels=labels,
                                                      container=container), handler)

    def on_attach(
        self,
        handler: ExecHandler,
        *,
        namespace: str | Iterable[str] | None = None,
        pod: str | Iterable[str] | None = None,
        labels: str | Mapping[str, str] | None = None,
        container: str | Iterable[str] | None = None,
    ) -> Callable[[], None]:
        """Answer attaches to the picked containers' main process with ``handler(process)`` (its command is
        empty); without one, an attach shows nothing and lasts until the client leaves or closes stdin."""
        return self.attach_handlers.add(ContainerSelector.of(namespace=namespace, pod=pod, labels=labels,
                                                             container=container), handler)

    def files(self, pod: Mapping[str, Any], container: str, lookup: Lookup) -> ContainerFiles:
        """The container's files (seeded on first use; a new pod of the same name gets new ones)."""
        meta = pod.get("metadata") or {}
        key = (str(meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}"), container)
        with self._lock:
            files = self._files.get(key)
        if files is None:
            files = seed_files(pod, container_spec(pod, container) or {}, lookup)
            with self._lock:
                files = self._files.setdefault(key, files)
        return files

    def process(self, pod: Mapping[str, Any], container: str, command: list[str], lookup: Lookup,
                **streams: Any) -> Process:
        spec = container_spec(pod, container) or {}
        log = self.container_log
        if log is not None:
            streams.setdefault("container_output", lambda data: log(pod, container).append(data))
        return Process(list(command), pod, container, self.files(pod, container, lookup),
                       seed_env(pod, spec, lookup), **streams)

    def run(self, proc: Process) -> int:
        """Run ``proc`` to its end: its exit status. A handler's exception propagates (the caller reports it
        as the kubelet reports a runtime's failure to execute)."""
        rules = self.attach_handlers if proc.attach else self.handlers
        handler = rules.find(proc.pod, proc.container)
        if handler is None and proc.attach:
            log = self.container_log(proc.pod, proc.container) if self.container_log is not None else None
            if log is None:
                proc.gone.wait()  # a main process that says nothing: the attach lasts until the client leaves
                return 0
            return _stream_log(proc, log)
        if handler is None:
            spec = container_spec(proc.pod, proc.container) or {}
            return run_builtin(proc, spec.get("workingDir") or "/")
        try:
            code = handler(proc)
        except ExitStatus as done:
            code = done.code
        return int(code or 0)


def _stream_log(proc: Process, log: Any) -> int:
    """An attach to a main process that no handler plays: what the container writes from now on (its log's new
    lines: the kubelet actor's, a test's, an exec'd command's ``> /proc/1/fd/1``), on stdout or stderr as
    written, until the container ends or the client leaves. A runtime's attach streams the process's output
    from the moment of attaching, not what came before (``kubectl logs`` has that)."""
    follower = log.follow()
    try:
        index = len(log.lines()[0])
        while True:
            lines, ended = log.lines(index)
            for line in lines:
                (proc.stderr if line.stream == "stderr" else proc.stdout)(line.data)
            index += len(lines)
            if ended or proc.gone.is_set():
                return 0
            select.select([follower], [], [], 0.25)  # a new line, or time to look whether the client left
            follower.clear()
    finally:
        follower.close()
