"""WATCH, bookmarks and compaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube import errors
from fakekube.apimodel.emptyobject import empty_object
from fakekube.audit import AuditEntry
from fakekube.resources import ResourceType
from fakekube.verbs.read import parse_resource_version
from fakekube.watch import ADDED, BOOKMARK, Watch, WatchEvent


class WatchVerbs:
    """``watch``, ``bookmark`` and ``compact``."""

    # -- watch -----------------------------------------------------------------------------------------

    def watch(self, resource: str | ResourceType, namespace: str | None = None, *,
              label_selector: str | None = None, field_selector: str | None = None,
              resource_version: str | None = None, allow_bookmarks: bool = False,
              send_initial_events: bool | None = None, on_event: Callable[[WatchEvent], None] | None = None,
              actor: str = "fakekube") -> Watch:
        """WATCH from now (``resource_version`` N), or with synthetic ADDED events first (unset or "0", or
        ``send_initial_events``; ``send_initial_events=False`` from no resourceVersion starts from now).

        A too-old resourceVersion gives a watch whose only event is an ERROR carrying a 410 Expired Status,
        as the real server streams it. One that is not a number fails the request with the storage layer's
        error, which the real handler answers as a 500 with no reason.
        """
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> Watch:
            try:
                since = parse_resource_version(resource_version or "")
            except ValueError as exc:
                raise errors.ApiError(500, "", str(exc)) from None
            matches = self._matcher(rt, namespace, label_selector, field_selector)
            view = self._view(rt)
            watch = Watch(self.hub, rt.storage, matches, view, on_event)
            watch.set_convert(self._watch_converter(rt))
            if send_initial_events is None:
                initial = resource_version in (None, "", "0")
            else:
                initial = send_initial_events
            if initial:
                bucket = self._bucket(rt)
                for key in self._sorted_keys(rt):
                    obj = bucket[key].obj
                    if matches(obj):
                        watch.send(WatchEvent(ADDED, view(obj)))
                if send_initial_events and allow_bookmarks:
                    watch.send(WatchEvent(BOOKMARK, self._bookmark(rt, initial_events_end=True)))
            elif since:
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
        # The kind's empty object as the server writes it, as the watch cache sends (apimodel/emptyobject.py).
        mark = empty_object(rt.model.definition if rt.model is not None else None, rt.api_version, rt.kind)
        meta = mark["metadata"]
        meta["resourceVersion"] = str(self._rv)
        if initial_events_end:
            meta.setdefault("annotations", {})["k8s.io/initial-events-end"] = "true"
        return mark

    def bookmark(self, resource: str | ResourceType) -> WatchEvent:
        """A BOOKMARK event at the resourceVersion of the kind's last change (fronts send these on idle
        watches), as the watch cache sends its last processed revision (apiserver ``storage/cacher/cacher.go``
        ``dispatchEvents``, v0.37.2): a watcher that has seen that revision gets none.

        Taken under the store lock, so every change up to its resourceVersion has already been offered to the
        watchers: a front that sends its queued events first and then the bookmark never skips one."""
        rt = self.resolve(resource)
        with self._lock:
            mark = self._bookmark(rt)
            mark["metadata"]["resourceVersion"] = str(self.hub.latest_rv(rt.storage))
            return WatchEvent(BOOKMARK, mark)

    def compact(self) -> None:
        """Forget the change history, as etcd compaction does: older resourceVersions now give 410."""
        with self._lock:
            self.hub.compact(self._rv)
