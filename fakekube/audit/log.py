"""The audit log: every request the store serves, reads included, as one entry.

Entries are what timelines, conflict counts and stale-overwrite reports are computed from (DESIGN.md
principle 5): nothing is instrumented inside controllers.

Writing the log as kube-apiserver does (audit.k8s.io/v1 Events, `fakekube.audit.writer`) needs two more
things, both off unless asked for, so that the store's hot path stays as it was: a ``policy`` (the store then
decides each request's level and copies the bodies that level logs, and only those), and request contexts
(the HTTP front's side of a request: URI, user, source IPs, user agent — see `fakekube.audit.context`).

A long-running server keeps only the newest ``keep`` entries in memory (``fakekube serve`` keeps 10,000 by
default): kube-apiserver keeps none, and an unbounded list grew by about 0.6 KB per request (issue 28). Event
writers (``--audit-log``) still see every entry; ``dropped`` counts those the ring let go.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any

import yaml

from fakekube.audit.context import AuditRequest
from fakekube.audit.entry import AuditEntry
from fakekube.jsonvalues import json_copy

if TYPE_CHECKING:
    from pathlib import Path

    from fakekube.audit.policy import Policy
    from fakekube.audit.writer import EventWriter

NO_BODY: Any = object()  # a request without a body (get, list, watch)


class AuditLog:
    """An append-only, thread-safe list of entries with query helpers; with ``keep``, only the newest ``keep``."""

    def __init__(self, *, enabled: bool = True, keep: int | None = None) -> None:
        self.enabled = enabled
        self.dropped = 0  # entries the ring let go (never with keep=None)
        self.policy: Policy | _Strictest | None = None  # set by live Event writers: body capture
        self._lock = threading.Lock()
        self._entries: list[AuditEntry] | deque[AuditEntry] = []
        self.keep: int | None = None
        self.set_keep(keep)
        self._listeners: list[Callable[[AuditEntry], None]] = []
        self._writers: list[EventWriter] = []
        self._body_policy: Policy | None = None  # keep_bodies()
        self._contexts = threading.local()
        self.open_contexts = 0  # how many requests of a front are in flight with a context

    def record(self, entry: AuditEntry) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self.keep is not None and len(self._entries) == self.keep:
                self.dropped += 1
            self._entries.append(entry)
        for listener in self._listeners:
            listener(entry)
        if self._writers and (entry.request is None or not entry.request.deferred):
            for writer in self._writers:
                writer.record(entry)

    def set_keep(self, keep: int | None) -> None:
        """Keep only the newest ``keep`` entries from now on (None: all); older ones beyond it go at once."""
        if keep is not None and keep < 0:
            raise ValueError(f"keep must be at least 0, not {keep}")
        with self._lock:
            entries = list(self._entries)
            if keep is not None:
                self.dropped += max(0, len(entries) - keep)
            self._entries = entries if keep is None else deque(entries, maxlen=keep)
            self.keep = keep

    def subscribe(self, listener: Callable[[AuditEntry], None]) -> None:
        self._listeners.append(listener)

    # -- what a front adds, and the Event writers --------------------------------------------------------

    @contextlib.contextmanager
    def context(self, request: AuditRequest) -> Iterator[AuditRequest]:
        """While a front serves one request: the store's first entry of it takes ``request``."""
        self._contexts.request = request
        with self._lock:
            self.open_contexts += 1
        try:
            yield request
        finally:
            self._contexts.request = None
            with self._lock:
                self.open_contexts -= 1

    def take_context(self, entry: AuditEntry | None = None) -> AuditRequest | None:
        """The open context of this thread's request, once: for its first entry."""
        request = getattr(self._contexts, "request", None)
        if request is not None:
            self._contexts.request = None
            request.entry = entry
        return request

    def announce(self, entry: AuditEntry) -> None:
        """A request a front answered without the store (401, 403, an unknown path, discovery): written by
        the Event writers, as kube-apiserver logs it, but not kept among the store's entries."""
        if self.enabled:
            for writer in self._writers:
                writer.record(entry)

    def finish(self, entry: AuditEntry) -> None:
        """A long-running request (a watch) ended: the writers log its ResponseComplete stage."""
        for writer in self._writers:
            writer.finish(entry)

    def write_events(self, target: str | Path | IO[str], *, policy: Policy | None = None, level: str | None = None,
                     **options: Any) -> EventWriter:
        """Write every request from now on as audit.k8s.io/v1 Events (JSON lines) to ``target``, at
        ``level`` or as ``policy`` decides (default: Metadata for everything); ``close_writers()`` ends it."""
        from fakekube.audit.policy import Policy
        from fakekube.audit.writer import EventWriter

        chosen = policy or Policy.level(level or "Metadata")
        writer = EventWriter(target, policy=chosen, **options)
        self._writers.append(writer)
        self._choose_policy()
        return writer

    def close_writers(self) -> None:
        writers, self._writers = self._writers, []
        self._choose_policy()
        for writer in writers:
            writer.close()

    def keep_bodies(self, keep: bool = True) -> None:
        """Keep every request's body and answer on its entry (``request_object``, ``response_object``), as a
        RequestResponse audit policy would, so a test can ask what was sent and ``history()`` can answer. The
        ``kube`` fixture turns it on; a simulation leaves it off (it copies every body)."""
        from fakekube.audit.policy import Policy

        self._body_policy = Policy.level("RequestResponse") if keep else None
        self._choose_policy()

    def _choose_policy(self) -> None:
        """The store captures what the most demanding of the writers' policies and keep_bodies() asks for."""
        policies = [w.policy for w in self._writers] + ([self._body_policy] if self._body_policy else [])
        self.policy = None if not policies else policies[0] if len(policies) == 1 else _Strictest(policies)

    def history(self, resource: str, name: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """The versions of one object this log saw written, oldest first: each successful write's answer that
        has a new resourceVersion (no-ops and dry runs left out; a delete that removed the object gives its
        last state). Needs the bodies (``keep_bodies()``, or a writer at level RequestResponse)."""
        versions: list[dict[str, Any]] = []
        seen: set[str] = set()
        for e in self._snapshot():
            if (e.resource != resource or e.name != name or not e.is_write or e.dry_run or e.code >= 300
                    or (namespace is not None and e.namespace != namespace)):
                continue
            if e.level != "RequestResponse":
                raise ValueError(f"{e.verb} of {resource} {name!r} (audit seq {e.seq}) kept no body: call "
                                 "audit.keep_bodies() before the writes (the kube fixture does)")
            answer = e.response_object
            if not isinstance(answer, dict) or answer.get("kind") == "Status":
                continue
            rv = str((answer.get("metadata") or {}).get("resourceVersion") or "")
            if rv and rv not in seen:
                seen.add(rv)
                versions.append(answer)
        return versions

    def admit(self, entry: AuditEntry, request: Any) -> None:
        """Under a policy: the request's level, and a copy of its body when that level logs bodies."""
        assert self.policy is not None
        entry.level = level = self.policy.level_of(entry)
        if request is not NO_BODY and level in ("Request", "RequestResponse"):
            entry.request_object = body_value(request)

    def respond(self, entry: AuditEntry, result: Any) -> None:
        if entry.level == "RequestResponse" and isinstance(result, dict | list):  # not a watch's stream
            entry.response_object = json_copy(result)

    def _snapshot(self) -> list[AuditEntry]:
        # A deque may not be iterated while another thread appends; a list copy under the lock is stable.
        with self._lock:
            return list(self._entries)

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(self._snapshot())

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> AuditEntry:
        return self._entries[index]

    @property
    def entries(self) -> list[AuditEntry]:
        return self._snapshot()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def filter(
        self,
        *,
        verb: str | None = None,
        resource: str | None = None,
        name: str | None = None,
        actor: str | None = None,
        subresource: str | None = None,
        code: int | None = None,
        writes_only: bool = False,
    ) -> list[AuditEntry]:
        return [
            e
            for e in self._snapshot()
            if (verb is None or e.verb == verb)
            and (resource is None or e.resource == resource)
            and (name is None or e.name == name)
            and (actor is None or e.actor == actor)
            and (subresource is None or e.subresource == subresource)
            and (code is None or e.code == code)
            and (not writes_only or e.is_write)
        ]

    def conflicts(self) -> list[AuditEntry]:
        return [e for e in self._snapshot() if e.conflict]

    def by_actor(self, actor: str) -> list[AuditEntry]:
        return [e for e in self._snapshot() if e.actor == actor]

    def by_resource(self, resource: str, name: str | None = None) -> list[AuditEntry]:
        return [e for e in self._snapshot() if e.resource == resource and (name is None or e.name == name)]

    def conflict_counts(self, key: str = "resource") -> Counter[str]:
        """Conflicts counted by ``resource`` (resource plus ``/subresource``) or by ``actor``."""
        counts: Counter[str] = Counter()
        for e in self.conflicts():
            counts[e.actor if key == "actor" else e.resource + (f"/{e.subresource}" if e.subresource else "")] += 1
        return counts

    def to_jsonl(self) -> str:
        import json

        return "".join(json.dumps(e.to_dict(), sort_keys=True) + "\n" for e in self._snapshot())


class _Strictest:
    """Several writers: the store captures what the most demanding of their policies logs."""

    def __init__(self, policies: list[Policy]) -> None:
        self.policies = policies

    def level_of(self, entry: AuditEntry) -> str:
        from fakekube.audit.policy import RANK

        return max((p.level_of(entry) for p in self.policies), key=RANK.__getitem__)


def body_value(body: Any) -> Any:
    """A request body as a JSON value: a copy of a decoded one, or the decoding of raw JSON / YAML text (a
    patch or an apply as the HTTP front passes it); None when it is neither."""
    if isinstance(body, dict | list):
        return json_copy(body)
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            try:
                value = yaml.safe_load(body)
            except yaml.YAMLError:
                return None
            return value if isinstance(value, dict | list) else None
    return None
