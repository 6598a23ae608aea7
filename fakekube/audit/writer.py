"""Writing audit entries as kube-apiserver's log backend does: one audit.k8s.io/v1 Event per line.

Stages as ``pkg/endpoints/filters/audit.go`` emits them: ``RequestReceived`` first (unless the policy omits
it — ``Policy.level`` does, as most clusters' policies do), ``ResponseStarted`` only for long-running
requests (a watch: when its stream starts), then ``ResponseComplete`` (a watch's when its stream ends:
`AuditLog.finish`, or when the writer closes). The level of each request is the policy's; ``None`` writes
nothing.

Audit IDs are the client's ``Audit-ID`` when it sent one, else UUIDs from a generator seeded with ``seed``, and
times are the store clock's (under simulation a virtual clock that starts at a fixed date): the same run
writes the same bytes.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from fakekube.audit.entry import AuditEntry
from fakekube.audit.event import encode, go_json
from fakekube.audit.policy import Decision, Policy


class EventWriter:
    """Writes Events to ``target`` (a path, opened for writing and truncated, or an open text stream)."""

    def __init__(self, target: str | Path | IO[str], *, policy: Policy | None = None, seed: int = 0,
                 flush: bool = True, fakekube_annotations: bool = True) -> None:
        self.policy = policy or Policy.level("Metadata")
        self._own = isinstance(target, str | Path)
        self._out: IO[str] = open(target, "w", encoding="utf-8") if isinstance(target, str | Path) else target  # noqa: SIM115 - closed by close()
        self._flush = flush
        self._annotations = fakekube_annotations
        self._ids = random.Random(f"{seed}/audit-ids")
        self._lock = threading.Lock()
        self._open: dict[int, tuple[AuditEntry, str, Decision]] = {}  # watches whose stream has not ended
        self._last_time = 0.0
        self.events = 0
        self.closed = False

    def _audit_id(self, entry: AuditEntry) -> str:
        if entry.request is not None and entry.request.audit_id:
            return entry.request.audit_id
        return str(uuid.UUID(int=self._ids.getrandbits(128), version=4))

    def _emit(self, entry: AuditEntry, stage: str, decision: Decision, audit_id: str,
              stage_time: float | None = None) -> None:
        event = encode(entry, stage=stage, level=decision.level, audit_id=audit_id, stage_time=stage_time,
                       omit_managed_fields=decision.omit_managed_fields, fakekube_annotations=self._annotations)
        self._out.write(go_json(event) + "\n")
        self.events += 1

    def record(self, entry: AuditEntry) -> None:
        decision = self.policy.decide(entry)
        if decision.level == "None":
            return
        with self._lock:
            if self.closed:
                return
            audit_id = self._audit_id(entry)
            self._last_time = max(self._last_time, entry.time)
            omit = decision.omit_stages
            if "RequestReceived" not in omit:
                self._emit(entry, "RequestReceived", decision, audit_id)
            if entry.verb == "watch" and 200 <= entry.code < 300:
                if "ResponseStarted" not in omit:
                    self._emit(entry, "ResponseStarted", decision, audit_id)
                self._open[id(entry)] = (entry, audit_id, decision)
            elif "ResponseComplete" not in omit:
                self._emit(entry, "ResponseComplete", decision, audit_id)
            if self._flush:
                self._out.flush()

    def finish(self, entry: AuditEntry, time: float | None = None) -> None:
        """A watch's stream ended at ``time`` (default: the latest time the writer has seen)."""
        with self._lock:
            opened = self._open.pop(id(entry), None)
            if opened is None or self.closed:
                return
            self._complete(opened, time)
            if self._flush:
                self._out.flush()

    def _complete(self, opened: tuple[AuditEntry, str, Decision], time: float | None) -> None:
        entry, audit_id, decision = opened
        if "ResponseComplete" not in decision.omit_stages:
            self._emit(entry, "ResponseComplete", decision, audit_id,
                       stage_time=time if time is not None else max(self._last_time, entry.time))

    def close(self) -> None:
        """End the watches still open (at the latest time seen) and close the file."""
        with self._lock:
            if self.closed:
                return
            for opened in list(self._open.values()):
                self._complete(opened, None)
            self._open.clear()
            self.closed = True
            self._out.flush()
            if self._own:
                self._out.close()

    def __enter__(self) -> EventWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_log(entries: Iterable[AuditEntry], target: str | Path | IO[str], *, level: str = "Metadata",
              policy: Policy | None = None, seed: int = 0, **options: Any) -> int:
    """Write finished entries (a run's ``store.audit``) as Events; returns how many Events were written.
    Bodies appear only where the entries captured them (a policy on the store during the run)."""
    with EventWriter(target, policy=policy or Policy.level(level), seed=seed, flush=False, **options) as writer:
        for entry in entries:
            writer.record(entry)
    return writer.events
