"""Stale-overwrite (lost update) detection, hooked into ``store.commit_hooks``.

Every write from the simulation client carries ``based_on``: the resourceVersion of the state the caller
computed it from. When such a write commits on top of a newer object (``based_on`` < the RV it replaced), we
compare what it changed with what every write committed after ``based_on`` changed. A path both changed
was silently overwritten: a blind merge patch from a stale base is exactly this (agent-sandbox #1256), and it
can be the same controller's earlier pass that loses.

Paths are at leaf granularity, with lists compared as whole values (a merge patch replaces lists whole).
``metadata.resourceVersion``, ``metadata.generation`` and ``metadata.managedFields`` are bookkeeping and are
ignored. Costs: a commit appends one tuple to a bounded per-object history (references to the store's
immutable objects); diffs are computed only for the rare stale write.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from fakekube.audit import AuditEntry
from fakekube.audit.paths import IGNORED, Path, changed_paths, overlap, relevant_paths, render_path

__all__ = ["IGNORED", "Path", "StaleDetector", "StaleOverwrite", "changed_paths", "relevant_paths", "render_path"]
_overlap = overlap  # the name tests/sim/test_stale.py imports


@dataclass(slots=True)
class StaleOverwrite:
    seq: int
    time: float
    actor: str
    verb: str
    resource: str
    subresource: str | None
    namespace: str | None
    name: str | None
    based_on: str
    rv_before: str
    paths: list[str]  # what this write overwrote
    other_actor: str  # who had written those paths after based_on
    other_rv: str
    other_seq: int

    @property
    def target(self) -> str:
        return "/".join(p for p in (self.resource, self.name, self.subresource) if p)

    def note(self) -> str:
        return f"stale overwrite: {', '.join(self.paths)} (after {self.other_actor}@rv {self.other_rv})"

    def __str__(self) -> str:
        return (f"#{self.seq} {self.actor} {self.verb.upper()} {self.target} based on rv {self.based_on} "
                f"(server at {self.rv_before}) {self.note()}")


class StaleDetector:
    """Commit hook: ``hook(entry, old, new)``. ``history`` bounds the writes remembered per object."""

    def __init__(self, history: int = 16) -> None:
        self.history = history
        self._changes: dict[str, list[list[Any]]] = {}  # [rv, actor, seq, old, new, changed paths]
        self.records: list[StaleOverwrite] = []
        self.incomplete = 0  # stale writes whose base was older than the remembered history

    def __call__(self, entry: AuditEntry, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        uid = entry.uid or ((new or old or {}).get("metadata") or {}).get("uid")
        if uid is None:
            return
        if new is None:
            self._changes.pop(uid, None)
            return
        changes = self._changes.get(uid)
        if changes is None:  # a list trimmed to ``history``: one per object, and most objects are written once
            changes = self._changes[uid] = []
        based_on = entry.based_on
        paths = None
        # A write based on the version it replaces is not stale: _check would parse both and stop there.
        if based_on and old is not None and based_on != old["metadata"]["resourceVersion"]:
            paths = self._check(entry, old, new, changes)
        # The revision stays text until a stale write compares it; the last slot keeps the write's own changed
        # paths once they are known (stored versions never change, so neither do the paths between two).
        changes.append([new["metadata"]["resourceVersion"], entry.actor, entry.seq, old, new, paths])
        if len(changes) > self.history:
            del changes[0]

    def _check(self, entry: AuditEntry, old: dict[str, Any], new: dict[str, Any],
               changes: list[list[Any]]) -> list[Path] | None:
        """Record what a write based on an older version overwrote; returns its changed paths if it diffed them."""
        try:
            based_on = int(entry.based_on or 0)
        except ValueError:
            return None
        current = int(old["metadata"]["resourceVersion"])
        if based_on >= current:
            return None
        # An object's writes are remembered in commit order, so their revisions rise: the writes after
        # ``based_on`` are a suffix, found from the end (usually one or two) without parsing every revision.
        start = len(changes)
        while start and int(changes[start - 1][0]) > based_on:
            start -= 1
        later = changes[start:]
        if not start and changes and len(changes) == self.history:
            self.incomplete += 1
        if not later:
            return None
        mine = relevant_paths(old, new)
        if not mine:
            return mine
        # Report against the latest other write that touched each path. A write's own paths are diffed at most
        # once, and only when some path gets that far back.
        hits: dict[tuple[str, str, int], list[str]] = {}
        for path in mine:
            for change in reversed(later):
                rv, actor, seq, before, after, theirs = change
                if before is None:
                    continue
                if theirs is None:
                    theirs = change[5] = relevant_paths(before, after)
                if any(overlap(path, t) for t in theirs):
                    hits.setdefault((actor, rv, seq), []).append(render_path(path))
                    break
        for (actor, rv, seq), paths in hits.items():
            record = StaleOverwrite(entry.seq, entry.time, entry.actor, entry.verb, entry.resource,
                                    entry.subresource, entry.namespace, entry.name, str(based_on), str(current),
                                    paths, actor, rv, seq)
            self.records.append(record)
            entry.notes.append(record.note())
        return mine

    # -- reports --------------------------------------------------------------------------------------

    def by_resource(self) -> Counter[str]:
        return Counter(r.resource + (f"/{r.subresource}" if r.subresource else "") for r in self.records)

    def by_actor(self) -> Counter[str]:
        return Counter(r.actor for r in self.records)

    def by_path(self) -> Counter[str]:
        return Counter(p for r in self.records for p in r.paths)

    def clear(self) -> None:
        self.records.clear()
