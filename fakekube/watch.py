"""Watch: ordered change events fanned out to many watchers, and a bounded history to resume from.

Semantics follow kubernetes/apiserver ``pkg/storage/etcd3/watcher.go`` and ``pkg/storage/cacher``: each event
carries the resourceVersion of its change; with selectors, an object entering the selection arrives as
ADDED and one leaving it as DELETED (old state); a resourceVersion older than the history gives 410.
Stored objects are immutable, so events share them; consumers get copies through ``WatchEvent.object``.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from fakekube.errors import ApiError
from fakekube.jsonvalues import json_copy

ADDED, MODIFIED, DELETED, BOOKMARK, ERROR = "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"


class WatchEvent:
    """One event of a watch: ``type`` (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) and ``raw``, the object,
    shared with the store and every other watcher and never mutated (``object`` is a caller's copy).

    A plain slotted class rather than a frozen dataclass: every commit makes one per watcher, and a frozen
    dataclass's ``__init__`` assigns through ``object.__setattr__`` (three times the cost of the rest of the
    event). Equality and ``repr`` are the dataclass's; treat the event as read-only.
    """

    __slots__ = ("type", "raw")

    def __init__(self, type: str, raw: dict[str, Any]) -> None:  # noqa: A002 - the wire field's name
        self.type = type
        self.raw = raw

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.type, self.raw) == (other.type, other.raw)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # its object is a dict, as the dataclass's hash found too

    def __repr__(self) -> str:
        return f"WatchEvent(type={self.type!r}, raw={self.raw!r})"

    @property
    def object(self) -> dict[str, Any]:
        return json_copy(self.raw)

    @property
    def resource_version(self) -> str:
        return self.raw.get("metadata", {}).get("resourceVersion", "")

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "object": self.raw}


class Change:
    """One committed change to stored state, as the history keeps it. Never changed once made (the store
    makes one per commit, so it is a plain slotted class: a frozen dataclass's checked assignments cost more
    than the rest of a publish with nobody watching)."""

    __slots__ = ("rv", "storage", "type", "new", "old")

    def __init__(self, rv: int, storage: str, type: str, new: dict[str, Any] | None,
                 old: dict[str, Any] | None) -> None:
        self.rv = rv
        self.storage = storage
        self.type = type
        self.new = new
        self.old = old

    def __repr__(self) -> str:
        return f"Change(rv={self.rv}, storage={self.storage!r}, type={self.type!r})"


class Wakeup:
    """A file descriptor that turns readable when set and stays so until cleared, so a consumer can wait on it
    together with a socket (``select``/``poll``): an eventfd where the system has one, else a pipe."""

    __slots__ = ("fd", "_write_fd", "_set")

    def __init__(self) -> None:
        if hasattr(os, "eventfd"):
            self.fd = self._write_fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        else:  # pragma: no cover - systems without eventfd
            self.fd, self._write_fd = os.pipe()
            os.set_blocking(self.fd, False)
            os.set_blocking(self._write_fd, False)
        self._set = False

    # Both called with the watch's condition held, so a set wakeup holds exactly one signal.
    def set(self) -> None:
        if not self._set:
            self._set = True
            os.write(self._write_fd, (1).to_bytes(8, "little"))

    def clear(self) -> None:
        if self._set:
            self._set = False
            os.read(self.fd, 8)  # set() wrote once: never blocks

    def close(self) -> None:
        os.close(self.fd)
        if self._write_fd != self.fd:
            os.close(self._write_fd)


class Signal(Protocol):
    """What a watch tells its consumer through: ``Wakeup``, or a consumer's own object (an event loop's, which
    wakes a waiting coroutine instead of a descriptor). ``set`` and ``clear`` are called with the watch's
    condition held."""

    def set(self) -> None: ...

    def clear(self) -> None: ...

    def close(self) -> None: ...


Matcher = Callable[[dict[str, Any]], bool]
Presenter = Callable[[dict[str, Any]], dict[str, Any]]


def match_everything(obj: dict[str, Any]) -> bool:
    """The matcher of a watch without namespace or selectors: a watcher given it skips the calls."""
    return True


class Watch:
    """One watcher: a thread-safe queue of events, iterable, closed by ``stop()``.

    ``on_event`` replaces the queue with a callback invoked synchronously on the committing thread (the
    simulation uses it to schedule delivery in virtual time).
    """

    def __init__(self, hub: Hub, storage: str, matcher: Matcher, presenter: Presenter,
                 on_event: Callable[[WatchEvent], None] | None = None) -> None:
        self._hub = hub
        self.storage = storage
        self._matches = matcher
        self._everything = matcher is match_everything
        self._present = presenter
        self._on_event = on_event
        # Where ``offer`` hands its events: the callback itself when there is one (no ``_emit`` call per event).
        self._sink: Callable[[WatchEvent], None] = on_event if on_event is not None else self._emit
        self._queue: deque[WatchEvent] = deque()
        self._cond = threading.Condition()
        self.closed = False
        self.last_rv = 0
        self.max_pending: int | None = None  # see limit_pending
        self._piled = 0  # events queued since the consumer last took any
        self.dropped_as_slow = False
        self._wakeup: Signal | None = None  # see wakeup_fd and attach_signal
        # Applied to each event's object as the consumer takes it, on the consumer's thread (a CRD's conversion
        # webhook: fakekube.verbs.conversion_webhook); an ApiError it raises ends the watch with an ERROR event.
        self.convert: Presenter | None = None

    # -- producer side --------------------------------------------------------------------------------

    def _emit(self, event: WatchEvent) -> None:
        if self._on_event is not None:
            if self.convert is not None:
                event = self._converted([event])[0]
            self._on_event(event)
            return
        with self._cond:
            if self.max_pending is not None:
                if self._piled >= self.max_pending:
                    self._drop_as_slow()
                    return
                self._piled += 1
            self._queue.append(event)
            self._cond.notify()
            if self._wakeup is not None:
                self._wakeup.set()

    def limit_pending(self, events: int) -> None:
        """A watcher that lets more than ``events`` events pile up unread is ended, as the watch cache ends one
        whose channel stays full (apiserver ``storage/cacher/cache_watcher.go`` ``add``: "Forcing watcher close
        due to unresponsiveness"); its client resumes from the last resourceVersion it saw, as after any end.
        Counted from this call, so the events a watch starts with (the list it replays) are not held against its
        consumer."""
        with self._cond:
            self.max_pending = events
            self._piled = 0

    def _drop_as_slow(self) -> None:
        # Called with the condition held; the hub's list is copied on write, so leaving it here is safe.
        self.dropped_as_slow = True
        self.closed = True
        self._queue.clear()
        self._cond.notify_all()
        if self._wakeup is not None:
            self._wakeup.set()
        self._hub.remove(self)

    def set_convert(self, convert: Presenter | None) -> None:
        """See ``convert``; a callback watcher converts in its callback (``_emit``)."""
        self.convert = convert
        if convert is not None and self._on_event is not None:
            self._sink = self._emit

    def _converted(self, events: list[WatchEvent]) -> list[WatchEvent]:
        convert = self.convert
        if convert is None:
            return events
        out = []
        for event in events:
            if event.type not in (ADDED, MODIFIED, DELETED):
                out.append(event)
                continue
            try:
                out.append(WatchEvent(event.type, convert(event.raw)))
            except ApiError as exc:
                out.append(WatchEvent(ERROR, exc.status))
                self.stop()
                break
        return out

    def offer(self, change: Change) -> None:
        """Translate a committed change into what this watcher sees (selector transitions included)."""
        if self.closed:
            return
        self.last_rv = change.rv
        if self._everything:
            new_in, old_in = change.new is not None, change.old is not None
        else:
            new_in = change.new is not None and self._matches(change.new)
            old_in = change.old is not None and self._matches(change.old)
        if change.type == DELETED:
            if old_in:
                self._sink(WatchEvent(DELETED, self._present(_stamped(change.old, change.rv))))
        elif new_in and old_in:
            self._sink(WatchEvent(MODIFIED, self._present(change.new)))
        elif new_in:
            self._sink(WatchEvent(ADDED, self._present(change.new)))
        elif old_in:
            self._sink(WatchEvent(DELETED, self._present(_stamped(change.old, change.rv))))

    def send(self, event: WatchEvent) -> None:
        if not self.closed:
            self._emit(event)

    def close_with_error(self, status: dict[str, Any]) -> None:
        self._emit(WatchEvent(ERROR, status))
        self.stop()

    # -- consumer side --------------------------------------------------------------------------------

    def wakeup_fd(self) -> int:
        """A file descriptor readable while events are queued or once the watch is stopped, for a consumer that
        waits on it and a socket at once (the HTTP watch stream: a new event and a closing client are both seen
        at once). The consumer must call ``release_wakeup`` when done with it."""
        with self._cond:
            if self._wakeup is None:
                self._wakeup = Wakeup()
                if self._queue or self.closed:
                    self._wakeup.set()
            assert isinstance(self._wakeup, Wakeup), "a signal is attached instead"
            return self._wakeup.fd

    def attach_signal(self, signal: Signal) -> None:
        """``wakeup_fd`` without a descriptor: ``signal`` is set while events are queued or once the watch is
        stopped (set at once when that is so already), for a consumer that waits without blocking a thread (an
        event loop in virtual time: ``fakekube.inprocess.paced``). Released by ``release_wakeup``."""
        with self._cond:
            self._wakeup = signal
            if self._queue or self.closed:
                signal.set()

    def release_wakeup(self) -> None:
        with self._cond:
            wakeup, self._wakeup = self._wakeup, None
        if wakeup is not None:
            wakeup.close()

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event, or None after ``timeout`` seconds or once the watch is stopped and drained."""
        with self._cond:
            if not self._queue and not self.closed:
                self._cond.wait(timeout)
            self._piled = 0
            event = self._queue.popleft() if self._queue else None
            if not self._queue and not self.closed and self._wakeup is not None:
                self._wakeup.clear()
        if event is not None and self.convert is not None:
            return self._converted([event])[0]
        return event

    def drain(self) -> list[WatchEvent]:
        with self._cond:
            events = list(self._queue)
            self._queue.clear()
            self._piled = 0
            if not self.closed and self._wakeup is not None:
                self._wakeup.clear()
        return self._converted(events) if self.convert is not None else events

    def __iter__(self) -> Iterator[WatchEvent]:
        """Every event until the watch is stopped: it waits for the next one as long as it takes (in a test,
        ``events(timeout=...)`` is usually what you want)."""
        while True:
            event = self.next()
            if event is None:
                return
            yield event

    def events(self, timeout: float = 1.0) -> Iterator[WatchEvent]:
        """The events until none comes for ``timeout`` seconds (or the watch is stopped)."""
        while True:
            event = self.next(timeout)
            if event is None:
                return
            yield event

    def stop(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()
            if self._wakeup is not None:
                self._wakeup.set()
        self._hub.remove(self)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _stamped(obj: dict[str, Any] | None, rv: int) -> dict[str, Any]:
    """The last stored state with the deletion's revision, as etcd3's watcher decodes it."""
    assert obj is not None
    return {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(rv)}}


class Hub:
    """Fan-out of committed changes to watchers, plus the bounded history for resuming."""

    def __init__(self, history: int = 10_000) -> None:
        self._watchers: dict[str, list[Watch]] = {}
        self._history: deque[Change] = deque(maxlen=history)
        self._keep = bool(history)
        self._floor = 0  # resourceVersions at or below this were compacted away
        self._lock = threading.Lock()
        self._latest: dict[str, int] = {}  # storage → resourceVersion of its last change

    def publish(self, change: Change) -> None:
        if self._keep:
            self._history.append(change)
        self._latest[change.storage] = change.rv
        watchers = self._watchers.get(change.storage)
        if watchers:
            for watcher in watchers:
                watcher.offer(change)

    def add(self, watch: Watch) -> None:
        with self._lock:
            self._watchers[watch.storage] = [*self._watchers.get(watch.storage, ()), watch]

    def remove(self, watch: Watch) -> None:
        with self._lock:
            watchers = self._watchers.get(watch.storage, [])
            if watch in watchers:
                self._watchers[watch.storage] = [w for w in watchers if w is not watch]

    def latest_rv(self, storage: str) -> int:
        """The resourceVersion of the last change to ``storage`` (0: none since the store began)."""
        return self._latest.get(storage, 0)

    def watcher_count(self) -> int:
        return sum(len(v) for v in self._watchers.values())

    def stored_at(self, rv: int, storage: str) -> dict[str, Any] | None:
        """The object the change at resourceVersion ``rv`` stored in ``storage``, while the history keeps it
        (None otherwise, or when that change was a delete). Shared and immutable: never mutate."""
        history = self._history
        if not history:
            return None
        # One commit per revision: the history holds consecutive revisions, so the change is found by offset.
        index = len(history) - 1 - (history[-1].rv - rv)
        if not 0 <= index < len(history):
            return None
        change = history[index]
        return change.new if change.rv == rv and change.storage == storage else None

    def oldest_rv(self) -> int | None:
        return self._history[0].rv if self._history else (self._floor + 1 if self._floor else None)

    def compact(self, rv: int) -> None:
        self._history.clear()
        self._floor = rv

    def since(self, rv: int, storage: str) -> list[Change] | None:
        """Changes after ``rv`` for ``storage``; None when ``rv`` is older than the history keeps."""
        if rv < self._floor:
            return None
        if self._history.maxlen and len(self._history) == self._history.maxlen and self._history[0].rv > rv + 1:
            return None
        return [c for c in self._history if c.rv > rv and c.storage == storage]
