"""An asynchronous event recorder, like client-go's event broadcaster.

``recorder.event(obj, type, reason, message)`` returns at once; the Event is written later by the
recorder's own writer task (one at a time, in order, each after ``event_delay`` plus the API latency), so an
event the code emits *before* a request can land in the audit log *after* it — as step 3 of the PR #508
timeline shows. Events are ``events.k8s.io/v1`` (``api="core"`` writes core/v1 Events instead). Nothing is
aggregated: client-go's correlator would turn repeats into count patches; we write each one.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.clock import rfc3339

from .scheduler import Future, _Sleep

if TYPE_CHECKING:
    from .manager import Manager

Obj = dict[str, Any]


EVENTS_API = "events.k8s.io"
CORE_API = "core"
_API_NAMES = {"events": EVENTS_API, "events.k8s.io": EVENTS_API, "events.k8s.io/v1": EVENTS_API,
              "core": CORE_API, "v1": CORE_API, "core/v1": CORE_API}


class EventRecorder:
    def __init__(self, manager: Manager, name: str, *, api: str = EVENTS_API) -> None:
        self.manager = manager
        self.name = name
        self.api = self.normalize_api(api)
        self.sim = manager.sim
        self._queue: deque[Obj] = deque()
        self._wakeup: Future | None = None
        self._writer: Any = None
        self._rng = self.sim.rng(manager.name, "events", name)
        self._seq = 0
        self.written = 0
        self.failed = 0
        self.emitted: list[tuple[float, str, str, str, str]] = []  # (time, object, type, reason, message)

    @staticmethod
    def normalize_api(api: str) -> str:
        """``"events"`` (or ``events.k8s.io[/v1]``) → ``events.k8s.io``; ``"core"`` (or ``v1``) → ``core``."""
        try:
            return _API_NAMES[api]
        except KeyError:
            raise ValueError(f"unknown event API {api!r}: use 'events' (events.k8s.io/v1) or 'core' (v1)") from None

    def event(self, obj: Obj, event_type: str, reason: str, message: str, action: str | None = None) -> None:
        """Queue an Event about ``obj`` (``Eventf``); it is written asynchronously."""
        meta = obj.get("metadata") or {}
        self._seq += 1
        now = self.sim.clock.now()
        name = f"{meta.get('name', 'unknown')}.{int(now.timestamp() * 1e9) + self._seq:x}"
        regarding = {
            "apiVersion": obj.get("apiVersion", ""),
            "kind": obj.get("kind", ""),
            "name": meta.get("name", ""),
            "namespace": meta.get("namespace", ""),
            "uid": meta.get("uid", ""),
            "resourceVersion": meta.get("resourceVersion", ""),
        }
        namespace = meta.get("namespace") or "default"
        if self.api == CORE_API:
            body: Obj = {
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": name, "namespace": namespace},
                "involvedObject": regarding, "reason": reason, "message": message, "type": event_type,
                "source": {"component": self.name}, "firstTimestamp": rfc3339(now), "lastTimestamp": rfc3339(now),
                "count": 1, "reportingComponent": self.name, "reportingInstance": self.name,
            }
        else:
            body = {
                "apiVersion": "events.k8s.io/v1", "kind": "Event",
                "metadata": {"name": name, "namespace": namespace},
                "eventTime": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "reportingController": self.name, "reportingInstance": f"{self.name}-0",
                "action": action or reason, "reason": reason, "regarding": regarding, "note": message,
                "type": event_type,
            }
        self.emitted.append((self.sim.now, f"{namespace}/{meta.get('name', '')}", event_type, reason, message))
        self._queue.append(body)
        if self._writer is None:
            self._writer = self.sim.scheduler.spawn(self._write_loop(), f"recorder-{self.name}")
        elif self._wakeup is not None:
            wakeup, self._wakeup = self._wakeup, None
            wakeup.set_result(None)

    # Go spelling, for ports that keep it.
    Event = event

    def eventf(self, obj: Obj, event_type: str, reason: str, fmt: str, *args: Any) -> None:
        self.event(obj, event_type, reason, fmt % args if args else fmt)

    async def _write_loop(self) -> None:
        resource = "events" if self.api == CORE_API else "events.events.k8s.io"
        while True:
            if not self._queue:
                self._wakeup = self.sim.scheduler.future()
                await self._wakeup
                continue
            body = self._queue.popleft()
            await _Sleep(self.manager.event_delay.sample(self._rng))
            try:
                # An ordinary request of the recorder's own client (token bucket, latency, faults); the writer
                # waits for each answer before the next.
                await self.manager.client(self.name).create(resource, body)
                self.written += 1
            except errors.ApiError:
                self.failed += 1  # the broadcaster logs and drops

    @property
    def pending(self) -> int:
        return len(self._queue)
