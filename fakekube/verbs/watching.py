"""WATCH, bookmarks and compaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.resources import ResourceType
from fakekube.watch import ADDED, BOOKMARK, Watch, WatchEvent


class WatchVerbs:
    """``watch``, ``bookmark`` and ``compact``."""

    # -- watch -----------------------------------------------------------------------------------------

    def watch(self, resource: str | ResourceType, namespace: str | None = None, *,
              label_selector: str | None = None, field_selector: str | None = None,
              resource_version: str | None = None, allow_bookmarks: bool = False,
              send_initial_events: bool | None = None, on_event: Callable[[WatchEvent], None] | None = None,
              actor: str = "fakekube") -> Watch:
        """WATCH from now (``resource_version`` N), or with synthetic ADDED events first (unset or "0").

        A too-old resourceVersion gives a watch whose only event is an ERROR carrying a 410 Expired Status,
        as the real server streams it.
        """
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> Watch:
            matches = self._matcher(rt, namespace, label_selector, field_selector)
            view = self._view(rt)
            watch = Watch(self.hub, rt.storage, matches, view, on_event)
            initial = resource_version in (None, "", "0") or bool(send_initial_events)
            if initial:
                bucket = self._bucket(rt)
                for key in self._sorted_keys(rt):
                    obj = bucket[key].obj
                    if matches(obj):
                        watch.send(WatchEvent(ADDED, view(obj)))
                if send_initial_events and allow_bookmarks:
                    watch.send(WatchEvent(BOOKMARK, self._bookmark(rt, initial_events_end=True)))
            else:
                since = self._parse_rv(resource_version or "0")
                changes = self.hub.since(since, rt.storage) if since < self._rv else []
                if changes is None:
                    oldest = self.hub.oldest_rv() or self._rv
                    watch.close_with_error(errors.Expired(
                        f"too old resource version: {since} ({oldest - 1})").status)
                    entry.notes.append("410 Expired")
                    return watch
                for change in changes:
                    watch.offer(change)
            self.hub.add(watch)
            entry.rv_after = str(self._rv)
            return watch

        return self._run(lambda: self._begin("watch", rt, namespace, None, None, actor), serve)

    def _bookmark(self, rt: ResourceType, *, initial_events_end: bool = False) -> dict[str, Any]:
        meta: dict[str, Any] = {"resourceVersion": str(self._rv)}
        if initial_events_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return {"apiVersion": rt.api_version, "kind": rt.kind, "metadata": meta}

    def bookmark(self, resource: str | ResourceType) -> WatchEvent:
        """A BOOKMARK event at the current resourceVersion (fronts send these on idle watches).

        Taken under the store lock, so every change up to its resourceVersion has already been offered to the
        watchers: a front that sends its queued events first and then the bookmark never skips one."""
        rt = self.resolve(resource)
        with self._lock:
            return WatchEvent(BOOKMARK, self._bookmark(rt))

    def compact(self) -> None:
        """Forget the change history, as etcd compaction does: older resourceVersions now give 410."""
        with self._lock:
            self.hub.compact(self._rv)
