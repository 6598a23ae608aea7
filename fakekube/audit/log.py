"""The audit log: every request the store serves, reads included, as one entry.

Entries are what timelines, conflict counts and stale-overwrite reports are computed from (DESIGN.md
principle 5): nothing is instrumented inside controllers.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator

from fakekube.audit.entry import AuditEntry


class AuditLog:
    """An append-only, thread-safe list of entries with query helpers."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._entries: list[AuditEntry] = []
        self._lock = threading.Lock()
        self._listeners: list[Callable[[AuditEntry], None]] = []

    def record(self, entry: AuditEntry) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._entries.append(entry)
        for listener in self._listeners:
            listener(entry)

    def subscribe(self, listener: Callable[[AuditEntry], None]) -> None:
        self._listeners.append(listener)

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: int) -> AuditEntry:
        return self._entries[index]

    @property
    def entries(self) -> list[AuditEntry]:
        return list(self._entries)

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
            for e in self._entries
            if (verb is None or e.verb == verb)
            and (resource is None or e.resource == resource)
            and (name is None or e.name == name)
            and (actor is None or e.actor == actor)
            and (subresource is None or e.subresource == subresource)
            and (code is None or e.code == code)
            and (not writes_only or e.is_write)
        ]

    def conflicts(self) -> list[AuditEntry]:
        return [e for e in self._entries if e.conflict]

    def by_actor(self, actor: str) -> list[AuditEntry]:
        return [e for e in self._entries if e.actor == actor]

    def by_resource(self, resource: str, name: str | None = None) -> list[AuditEntry]:
        return [e for e in self._entries if e.resource == resource and (name is None or e.name == name)]

    def conflict_counts(self, key: str = "resource") -> Counter[str]:
        """Conflicts counted by ``resource`` (resource plus ``/subresource``) or by ``actor``."""
        counts: Counter[str] = Counter()
        for e in self.conflicts():
            counts[e.actor if key == "actor" else e.resource + (f"/{e.subresource}" if e.subresource else "")] += 1
        return counts

    def to_jsonl(self) -> str:
        import json

        return "".join(json.dumps(e.to_dict(), sort_keys=True) + "\n" for e in self._entries)
