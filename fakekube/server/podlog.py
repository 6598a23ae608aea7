"""``GET pods/{name}/log``: kube-apiserver's checks, then the kubelet's, then the container's log (fakekube.pods.logs).

The API server (kubernetes v1.37.2 ``pkg/registry/core/pod/rest/log.go`` ``LogREST.Get``, observed on
kube-apiserver v1.37.2, tests/differential/corpus/pod-logs.yaml):

1. decodes the query into ``PodLogOptions`` in field order (container, follow, previous, sinceSeconds,
   sinceTime, timestamps, tailLines, limitBytes, insecureSkipTLSVerifyBackend, stream): an int64 that does not
   parse is a 400 with ``strconv.ParseInt``'s text, a ``sinceTime`` that is not RFC 3339 a 400 with
   ``time.Parse``'s, a bool is never an error;
2. ``ValidatePodLogOptions`` (``pkg/apis/core/validation``): tailLines ≥ 0, limitBytes > 0, sinceSeconds > 0,
   not both sinceSeconds and sinceTime, no ``stream`` (the PodLogsQuerySplitStreams gate is alpha, off) — a 422
   ``PodLogOptions "<name>" is invalid`` listing every problem;
3. ``pod.LogLocation`` (``pkg/registry/core/pod/strategy.go``): the pod (404), the container — none named and the
   pod has one container: that one; several: a 400 listing every container, init containers first (the
   ``kubectl.kubernetes.io/default-container`` annotation is kubectl's, the server ignores it); a name the pod
   lacks: a 400 — then the node: a pod without one has no log location and the answer is an empty 204; a node
   that does not exist is a 404 (whose details name the resource ``pods``, as observed);
4. asks the node's kubelet (``pkg/kubelet/server/server.go`` ``getContainerLogs``,
   ``pkg/kubelet/kubelet_pods.go`` ``validateContainerLogStatus``): which container instance the pod's status
   names, or why there is none — a kubelet 400 the API server turns into a BadRequest with the kubelet's text
   (apiserver ``pkg/registry/generic/rest/response_checker.go``).

The log itself is read as the CRI log reader reads a log file (k8s.io/cri-client v0.37.2 ``pkg/logs/logs.go``
``ReadLogs``): tailLines picks the last lines first, then lines older than the since time are skipped,
timestamps prefix each line with its RFC3339NanoFixed time, and limitBytes cuts the output (mid-line too).
``follow`` streams chunks as lines arrive and ends when the instance ends (the container exited or was
stopped, the pod is gone), when the client goes or when the server stops; it runs in the connection's own
thread and holds nothing else.
"""

from __future__ import annotations

import select
import threading
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fakekube import errors, gotime
from fakekube.pods.logs import ContainerLog, Follower, LogLine, pod_logs, timestamp
from fakekube.pods.podcontainer import validate_container
from fakekube.server.params import Query, go_bool
from fakekube.server.watchstream import peer_gone

_HANGUP = getattr(select, "POLLRDHUP", 0)


@dataclass(frozen=True, slots=True)
class LogOptions:
    container: str = ""
    follow: bool = False
    previous: bool = False
    since_seconds: int | None = None
    since_time: datetime | None = None
    timestamps: bool = False
    tail_lines: int | None = None
    limit_bytes: int | None = None
    stream: str | None = None


def decode_options(query: Query) -> LogOptions:
    """``PodLogOptions`` from the query, in the conversion's field order (the first bad field is the 400)."""
    def flag(name: str) -> bool:
        value = query.str(name)
        return value is not None and go_bool(value)

    container = query.str("container") or ""
    follow, previous = flag("follow"), flag("previous")
    since_seconds = query.int("sinceSeconds")
    since_time = None
    raw_time = query.str("sinceTime")
    if raw_time is not None and raw_time not in ("", "null"):
        try:
            since_time = gotime.parse(raw_time)
        except gotime.TimeParseError as exc:
            raise errors.BadRequest(str(exc)) from None
    elif raw_time is not None:
        since_time = datetime(1, 1, 1, tzinfo=UTC)  # metav1.Time's zero: present, and before every line
    timestamps = flag("timestamps")
    tail_lines = query.int("tailLines")
    limit_bytes = query.int("limitBytes")
    return LogOptions(container, follow, previous, since_seconds, since_time, timestamps, tail_lines, limit_bytes,
                      query.str("stream"))


def validate_options(options: LogOptions, name: str) -> None:
    problems: list[errors.FieldError] = []
    if options.tail_lines is not None and options.tail_lines < 0:
        problems.append(errors.invalid("tailLines", options.tail_lines, "must be greater than or equal to 0"))
    if options.limit_bytes is not None and options.limit_bytes < 1:
        problems.append(errors.invalid("limitBytes", options.limit_bytes, "must be greater than 0"))
    if options.since_seconds is not None and options.since_time is not None:
        # field.NewPath("") prints as "[]"
        problems.append(errors.forbidden("[]", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif options.since_seconds is not None and options.since_seconds < 1:
        problems.append(errors.invalid("sinceSeconds", options.since_seconds, "must be greater than 0"))
    if options.stream is not None:
        problems.append(errors.forbidden("stream", "may not be specified"))
    if problems:
        raise errors.Invalid("PodLogOptions", "", name, problems)


def container_id(pod: Mapping[str, Any], container: str, previous: bool) -> str:
    """The container instance the kubelet reads (``validateContainerLogStatus``), or its 400 as BadRequest."""
    status = pod.get("status") or {}
    name = pod["metadata"]["name"]
    found = None
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        found = next((s for s in status.get(key) or () if s.get("name") == container), None)
        if found is not None:
            break
    if found is None:
        raise errors.BadRequest(f'container "{container}" in pod "{name}" is not available')
    last = (found.get("lastState") or {}).get("terminated")
    state = found.get("state") or {}
    waiting, running, terminated = state.get("waiting"), state.get("running"), state.get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            raise errors.BadRequest(f'previous terminated container "{container}" in pod "{name}" not found')
        return str(last["containerID"])
    if running is not None:
        return str(found.get("containerID") or "")
    if terminated is not None:
        if terminated.get("containerID"):
            return str(terminated["containerID"])
        if last and last.get("containerID"):
            return str(last["containerID"])
        raise errors.BadRequest(f'container "{container}" in pod "{name}" is terminated')
    if last is not None:
        if not last.get("containerID"):
            raise errors.BadRequest(f'container "{container}" in pod "{name}" is terminated')
        return str(last["containerID"])
    if waiting is not None:
        reason = waiting.get("reason", "")
        detail = {"ErrImagePull": "image can't be pulled",
                  "ImagePullBackOff": "trying and failing to pull image"}.get(reason, reason)
        raise errors.BadRequest(f'container "{container}" in pod "{name}" is waiting to start: {detail}')
    raise errors.BadRequest(f'container "{container}" in pod "{name}" is waiting to start - no logs yet')


class LogFollowers:
    """The follow streams a front serves, so that stopping the server ends them at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active: set[Follower] = set()
        self.closing = threading.Event()

    def add(self, follower: Follower) -> None:
        with self._lock:
            self._active.add(follower)

    def discard(self, follower: Follower) -> None:
        with self._lock:
            self._active.discard(follower)

    def stop_all(self) -> None:
        self.closing.set()
        with self._lock:
            active = list(self._active)
        for follower in active:
            follower.wake()

    def __len__(self) -> int:
        with self._lock:
            return len(self._active)


@dataclass
class LogReply:
    """What to answer: nothing (204), a body, or a stream (``follow``)."""

    body: bytes | None = None
    stream: Callable[[Any], Generator[list[bytes], None, bool]] | None = None


class _Writer:
    """The CRI reader's writer: since filter, timestamp prefix, the byte limit."""

    def __init__(self, options: LogOptions, since: datetime | None) -> None:
        self.options = options
        self.since = since
        self.remain = options.limit_bytes

    def render(self, lines: list[LogLine]) -> list[bytes]:
        out: list[bytes] = []
        for line in lines:
            if self.remain is not None and self.remain <= 0:
                break
            if self.since is not None and line.time < self.since:
                continue
            data = line.data
            if self.options.timestamps:
                data = timestamp(line.time).encode() + b" " + data
            if self.remain is not None:
                data = data[:self.remain]
                self.remain -= len(data)
            if data:
                out.append(data)
        return out

    @property
    def exhausted(self) -> bool:
        return self.remain is not None and self.remain <= 0


def serve(store: Any, namespace: str, name: str, query: Query, followers: LogFollowers,
          poll_interval: float = 0.25, actor: str = "fakekube") -> LogReply:
    """The answer to ``GET pods/<name>/log`` (errors raise ``ApiError``)."""
    options = decode_options(query)
    validate_options(options, name)
    # The store's get of pods/log reads the pod (a 404 when it is missing) and is in the audit log like any request.
    pod = store.get("pods", name, namespace, subresource="log", actor=actor)
    container = validate_container(options.container, pod)
    node = (pod.get("spec") or {}).get("nodeName")
    if not node:
        return LogReply()
    if store.stored_object("/nodes", ("", node)) is None:
        raise errors.NotFound("pods", "", node)
    cid = container_id(pod, container, options.previous)
    logs = pod_logs(store)
    uid = pod["metadata"]["uid"]
    log = logs.find(uid, container, cid) if options.previous else logs.instance(uid, container, cid)
    if log is None:
        log = ContainerLog(cid, store.clock.now)
        log.terminate()
    since = options.since_time
    if since is not None:
        since = since.replace(microsecond=0)  # the API server passes it on as RFC 3339, in whole seconds
    elif options.since_seconds is not None:
        since = store.clock.now() - timedelta(seconds=options.since_seconds)
    writer = _Writer(options, since)
    lines, ended = log.lines()
    start = len(lines) - options.tail_lines if options.tail_lines is not None else 0
    start = max(start, 0)
    if not options.follow:
        return LogReply(body=b"".join(writer.render(lines[start:])))
    return LogReply(stream=lambda conn: _follow(store, uid, namespace, name, log, start, writer, followers, conn,
                                                poll_interval))


def _pod_gone(store: Any, namespace: str, name: str, uid: str) -> bool:
    pod = store.stored_object("/pods", (namespace, name))
    return pod is None or pod["metadata"].get("uid") != uid


def _follow(store: Any, uid: str, namespace: str, name: str, log: ContainerLog, index: int, writer: _Writer,
            followers: LogFollowers, conn: Any, poll_interval: float) -> Generator[list[bytes], None, bool]:
    follower = log.follow()
    followers.add(follower)
    poller = select.poll()
    poller.register(follower.fileno(), select.POLLIN)
    conn_fd = conn.fileno() if conn is not None else -1
    if conn is not None:
        poller.register(conn_fd, select.POLLIN | _HANGUP)
    try:
        while True:
            follower.clear()
            lines, ended = log.lines(index)
            index += len(lines)
            batch = writer.render(lines)
            if batch:
                yield batch
            if writer.exhausted or ended:
                return True
            if followers.closing.is_set():
                return False
            ready = dict(poller.poll(poll_interval * 1000))
            if conn_fd in ready:
                if peer_gone(conn):
                    return False
                if _HANGUP:
                    poller.modify(conn_fd, _HANGUP)  # it sent bytes: from now on only a hang-up wakes the wait
                else:  # pragma: no cover - systems without POLLRDHUP
                    poller.unregister(conn_fd)
                    conn_fd = -1
            if not ready and _pod_gone(store, namespace, name, uid):
                # deleted without a kubelet to stop its containers: whatever is left, then the end
                lines, _ = log.lines(index)
                batch = writer.render(lines)
                if batch:
                    yield batch
                return True
    finally:
        followers.discard(follower)
        follower.close()
