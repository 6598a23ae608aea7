"""Container logs: what each container instance wrote, kept per pod as a kubelet's log directory keeps it.

A kubelet keeps one log file per container instance (``/var/log/pods/<ns>_<pod>_<uid>/<container>/<restart>.log``)
and the runtime keeps the last terminated instance's file, so ``kubectl logs --previous`` reads the instance
before the current one (kubernetes v1.37.2 ``pkg/kubelet/kuberuntime/kuberuntime_container.go``,
``pkg/kubelet/kubelet_pods.go`` ``validateContainerLogStatus``). ``PodLogs`` is that directory for a whole
store: the kubelet actors open an instance when a container starts and close it when it stops; tests and other
features (an exec'd process writing to the container's stdout) append to it; the HTTP front reads it.

Where the lines come from:

- the kubelet actor: one line when a container starts and one when it exits or is stopped (``kubelet_lines``;
  set it False for logs that hold only what a test wrote);
- scripted lines, written when an instance starts: ``script(lines, pod=..., container=...)`` registers them for
  the containers a ``ContainerSelector`` picks (newest rule wins, as kwok's ``ClusterLogs``), and the pod
  annotations ``sim.fakekube.io/logs`` (every container) and ``sim.fakekube.io/logs-<container>`` (one);
- ``write(namespace, pod, text, container=...)``: appended to the container's current instance at once.

``pod_logs(store)`` gives the store's ``PodLogs`` (made on first use), so the kubelet on a simulation or on a
``ClusterRunner``, the HTTP front and a test all reach the same one.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fakekube.pods import attached

from .selection import ContainerSelector, Rules

LOGS_ANNOTATION = "sim.fakekube.io/logs"

Script = Iterable[str] | Callable[[Mapping[str, Any], str], Iterable[str]]


@dataclass(frozen=True, slots=True)
class LogLine:
    time: datetime  # UTC
    stream: str  # stdout | stderr
    data: bytes  # the line with its newline (a partial line has none)


def timestamp(time: datetime) -> str:
    """The CRI log's RFC3339NanoFixed (``2006-01-02T15:04:05.000000000Z07:00``), as the kubelet writes it
    before each line for ``timestamps=true`` (k8s.io/cri-client v0.37.2 ``pkg/logs/logs.go`` timeFormatOut)."""
    utc = time.astimezone(UTC) if time.tzinfo else time
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond * 1000:09d}Z"


class Follower:
    """A wakeup descriptor that becomes readable when its log gets a line or ends (``poll`` it)."""

    def __init__(self, log: ContainerLog) -> None:
        self._log = log
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        # A writer may hold this follower while it is closed: the lock keeps it from writing to a descriptor
        # number the process has meanwhile given to another file.
        self._lock = threading.Lock()
        self.closed = False

    def fileno(self) -> int:
        return self._read

    def wake(self) -> None:
        with self._lock:
            if self.closed:
                return
            with contextlib.suppress(OSError):  # a full pipe is already readable
                os.write(self._write, b"x")

    def clear(self) -> None:
        with contextlib.suppress(OSError):
            while os.read(self._read, 512):
                pass

    def close(self) -> None:
        with self._lock:
            if self.closed:
                return
            self.closed = True
        self._log._unfollow(self)
        with self._lock:
            for fd in (self._read, self._write):
                with contextlib.suppress(OSError):
                    os.close(fd)


class ContainerLog:
    """One container instance's log; ``container_id`` is the runtime's id (``containerd://...``), None until the
    kubelet starts the instance a test already wrote to."""

    def __init__(self, container_id: str | None, clock: Callable[[], datetime]) -> None:
        self.container_id = container_id
        self._clock = clock
        self._lock = threading.Lock()
        self._lines: list[LogLine] = []
        self._followers: set[Follower] = set()
        self.terminated = False
        self.kubelet_lines = True  # the kubelet actor writes its start and exit lines here

    def append(self, text: str | bytes, stream: str = "stdout", time: datetime | None = None) -> None:
        """Append ``text`` (split into lines; a last piece without a newline stays a partial line)."""
        if stream not in ("stdout", "stderr"):
            raise ValueError(f"stream must be stdout or stderr, not {stream!r}")
        data = text.encode() if isinstance(text, str) else bytes(text)
        if not data:
            return
        when = time or self._clock()
        lines = [LogLine(when, stream, piece) for piece in data.splitlines(keepends=True)]
        with self._lock:
            self._lines.extend(lines)
            followers = list(self._followers)
        for follower in followers:
            follower.wake()

    def terminate(self) -> None:
        with self._lock:
            self.terminated = True
            followers = list(self._followers)
        for follower in followers:
            follower.wake()

    def lines(self, start: int = 0) -> tuple[list[LogLine], bool]:
        """The lines from index ``start`` and whether the instance had ended when they were read."""
        with self._lock:
            return self._lines[start:], self.terminated

    def text(self) -> str:
        return b"".join(line.data for line in self.lines()[0]).decode(errors="replace")

    def follow(self) -> Follower:
        follower = Follower(self)
        with self._lock:
            self._followers.add(follower)
        return follower

    def _unfollow(self, follower: Follower) -> None:
        with self._lock:
            self._followers.discard(follower)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class PodLogs:
    """Every container instance's log, by pod uid and container name; the last two instances of each are kept
    (the current one and the previous one, as the kubelet's log directory and ``--previous`` need)."""

    def __init__(self, store: Any = None, clock: Callable[[], datetime] | None = None) -> None:
        self._store = store
        if clock is None:
            clock = store.clock.now if store is not None else _utc_now
        self._clock = clock
        self._lock = threading.Lock()
        self._instances: dict[tuple[str, str], list[ContainerLog]] = {}
        self.rules: Rules[Script] = Rules()
        self.kubelet_lines = True

    # -- scripted content ----------------------------------------------------------------------------------

    def script(self, lines: Script, *, namespace: str | Iterable[str] | None = None,
               pod: str | Iterable[str] | None = None, labels: str | Mapping[str, str] | None = None,
               container: str | Iterable[str] | None = None) -> Callable[[], None]:
        """Lines every instance of the picked containers writes when it starts (a list, or a function of the pod
        and the container name returning them); the newest matching rule wins. Returns its remover."""
        selector = ContainerSelector.of(namespace=namespace, pod=pod, labels=labels, container=container)
        return self.rules.add(selector, lines)

    def _scripted(self, pod: Mapping[str, Any], container: str) -> list[str]:
        annotations = (pod.get("metadata") or {}).get("annotations") or {}
        own = annotations.get(f"{LOGS_ANNOTATION}-{container}", annotations.get(LOGS_ANNOTATION))
        rule = self.rules.find(pod, container)
        lines: list[str] = []
        if rule is not None:
            lines.extend(rule(pod, container) if callable(rule) else rule)
        if own:
            lines.extend(own.splitlines())
        return lines

    # -- the kubelet's side --------------------------------------------------------------------------------

    def container_started(self, pod: Mapping[str, Any], container: str, container_id: str,
                          image: str = "", *, kubelet_lines: bool = True) -> ContainerLog:
        """A new instance of ``container`` started: it becomes current, the one before it previous.
        ``kubelet_lines`` False: a container whose main command runs logs only what the command writes."""
        uid = (pod.get("metadata") or {}).get("uid", "")
        with self._lock:
            instances = self._instances.setdefault((uid, container), [])
            if instances and instances[-1].container_id is None:
                log = instances[-1]  # a test wrote to it before the kubelet started it
                log.container_id = container_id
            else:
                if instances:
                    instances[-1].terminate()
                log = ContainerLog(container_id, self._clock)
                instances.append(log)
                del instances[:-2]
        log.kubelet_lines = kubelet_lines
        if self.kubelet_lines and kubelet_lines:
            log.append(f"[fakekube] container {container} started" + (f" (image {image})" if image else "") + "\n")
        for line in self._scripted(pod, container):
            log.append(line + "\n")
        return log

    def container_stopped(self, uid: str, container: str, exit_code: int | None = None) -> None:
        """The current instance ended (``exit_code`` None: stopped because the pod is deleted)."""
        with self._lock:
            instances = self._instances.get((uid, container)) or []
            log = instances[-1] if instances else None
        if log is None or log.terminated:
            return
        if self.kubelet_lines and log.kubelet_lines:
            what = "stopped" if exit_code is None else f"exited with code {exit_code}"
            log.append(f"[fakekube] container {container} {what}\n")
        log.terminate()

    def pod_gone(self, uid: str) -> None:
        """The pod was deleted: its logs end and go (the kubelet removes a deleted pod's log directory)."""
        with self._lock:
            keys = [k for k in self._instances if k[0] == uid]
            gone = [log for k in keys for log in self._instances.pop(k)]
        for log in gone:
            log.terminate()

    # -- readers and writers ---------------------------------------------------------------------------------

    def instance(self, uid: str, container: str, container_id: str | None = None) -> ContainerLog:
        """The instance with ``container_id`` (None: the current one), made empty when nobody wrote it (a status a
        test wrote names a container no kubelet started)."""
        with self._lock:
            instances = self._instances.setdefault((uid, container), [])
            if container_id is None and instances:
                return instances[-1]
            for log in instances:
                if log.container_id == container_id:
                    return log
            if instances and instances[-1].container_id is None:
                instances[-1].container_id = container_id
                return instances[-1]
            log = ContainerLog(container_id, self._clock)
            instances.append(log)
            del instances[:-2]
            return log

    def find(self, uid: str, container: str, container_id: str) -> ContainerLog | None:
        """The kept instance with ``container_id``, if any (never made)."""
        with self._lock:
            return next((log for log in self._instances.get((uid, container)) or ()
                         if log.container_id == container_id), None)

    def previous(self, uid: str, container: str) -> ContainerLog | None:
        with self._lock:
            instances = self._instances.get((uid, container)) or []
            return instances[-2] if len(instances) > 1 else None

    def _pod(self, namespace: str, name: str) -> Mapping[str, Any]:
        pod = self._store.stored_object("/pods", (namespace, name)) if self._store is not None else None
        if pod is None:
            raise LookupError(f'pods "{name}" not found in namespace "{namespace}"')
        return pod

    def _target(self, namespace: str, pod: str, container: str | None) -> tuple[str, str]:
        obj = self._pod(namespace, pod)
        spec = obj.get("spec") or {}
        names = [c.get("name", "") for key in ("initContainers", "containers", "ephemeralContainers")
                 for c in spec.get(key) or ()]
        if container is None:
            main = [c.get("name", "") for c in spec.get("containers") or ()]
            if len(main) != 1:
                raise LookupError(f"pod {pod} has several containers, name one of: {', '.join(names)}")
            container = main[0]
        elif container not in names:
            raise LookupError(f"pod {pod} has no container {container}")
        return obj["metadata"]["uid"], container

    def write(self, namespace: str, pod: str, text: str | bytes, *, container: str | None = None,
              stream: str = "stdout") -> None:
        """Append to the current instance of a stored pod's container (its only container when None); before
        the kubelet starts the container the lines wait in the instance it will start."""
        uid, name = self._target(namespace, pod, container)
        self.instance(uid, name).append(text, stream)

    def text(self, namespace: str, pod: str, container: str | None = None, *, previous: bool = False) -> str:
        """The log of a stored pod's container as ``kubectl logs`` prints it (without options)."""
        uid, name = self._target(namespace, pod, container)
        if previous:
            log = self.previous(uid, name)
            return log.text() if log is not None else ""
        return self.instance(uid, name).text()


def pod_logs(store: Any) -> PodLogs:
    """The store's ``PodLogs``, made on first use (kubelets, the HTTP front and tests share it)."""
    return attached(store, "pod_logs", PodLogs)
