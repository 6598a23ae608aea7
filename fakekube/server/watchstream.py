"""Watch streams on the wire: chunked, newline-delimited JSON events (or length-framed protobuf
WatchEvents, see fakekube/server/replies.py), one thread per stream.

- Each event is ``{"type": ..., "object": ...}`` plus a newline; events already queued are sent together.
- ``timeoutSeconds`` ends the stream cleanly with the terminating chunk (the connection stays usable: closing
  it silently makes aiohttp, hence kopf, fail its next request). Without it the stream lasts
  ``default_timeout`` seconds, as the real server's 30-60 minutes; ``kubectl get -w`` exits when it ends.
- Bookmarks only when the client asked (``allowWatchBookmarks``): after ``bookmark_interval`` seconds of
  silence and 2 s before the timeout, so a client that saw no event still learns a resourceVersion to resume
  from — none when the watch lasts 2 s or less (apiserver ``storage/cacher/cache_watcher.go``
  ``nextBookmarkTime``, v0.37.2). A timeout that has already passed (``timeoutSeconds`` negative) ends the
  stream before its first event.
- A thread-per-connection server only sees a vanished client when it writes, so the socket is peeked between
  waits: a client that disconnects frees its thread within ``poll_interval`` seconds.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakekube.resources import ResourceType
from fakekube.server import encoding
from fakekube.store import Store
from fakekube.watch import ERROR, Watch, WatchEvent

_END = b"0\r\n\r\n"


# Events a stream may leave unread before it is ended (Watch.limit_pending). The watch cache's channels hold at
# most 1,000 events (cacher watch_cache_history.go, maxWatchChanSizeWithIndexWithoutTrigger) and a full one is
# waited on for a share of a 100 ms budget; fakekube never waits on a watcher, so it allows more.
MAX_PENDING = 10_000


@dataclass(frozen=True, slots=True)
class StreamSettings:
    default_timeout: float = 1800.0
    bookmark_interval: float = 30.0
    poll_interval: float = 0.25
    max_pending: int = MAX_PENDING


Render = Callable[[WatchEvent], Any]  # the object to send for an event (a Table when the client asked for one)


def encode_event(event: WatchEvent, render: Render | None = None) -> bytes:
    # event.raw is the store's shared, immutable object: serialise it, never touch it.
    obj = event.raw if render is None else render(event)
    return encoding.encode({"type": event.type, "object": obj})


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def peer_gone(conn: socket.socket) -> bool:
    """True when the client closed its end (readable with zero bytes) or the socket failed.

    A watch client sends nothing while it reads a stream, so on a TLS connection anything readable is the
    client's close_notify (peeking cannot see through TLS records)."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
        if isinstance(conn, ssl.SSLSocket):
            return True
        return conn.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _revision(event: WatchEvent) -> int:
    meta = event.raw.get("metadata") if isinstance(event.raw, dict) else None
    rv = meta.get("resourceVersion") if isinstance(meta, dict) else None
    return int(rv) if isinstance(rv, str) and rv.isdigit() else 0


class WatchStreamer:
    """Writes one watch to one connection until timeout, error, client disconnect or server shutdown."""

    def __init__(self, store: Store, settings: StreamSettings, closing: threading.Event) -> None:
        self.store = store
        self.settings = settings
        self.closing = closing
        self._active: set[Watch] = set()
        self._lock = threading.Lock()

    def stop_all(self) -> None:
        """Wake and end every stream now (server shutdown)."""
        with self._lock:
            active = list(self._active)
        for watch in active:
            watch.stop()

    def run(self, write: Callable[[bytes], object], conn: socket.socket, watch: Watch, resource: ResourceType,
            timeout: float | None, bookmarks: bool, render: Render | None = None,
            encode: Callable[[WatchEvent, Render | None], bytes] | None = None, start_rv: int = 0) -> bool:
        """Stream until done; False when the client went away (the connection must then be closed).

        ``encode`` turns an event into its bytes on the wire (default: a JSON line; protobuf streams frame
        ``WatchEvent`` messages). ``start_rv``: the revision the watch starts from; a bookmark goes out only
        when it is newer than every event sent so far (cacher ``cacheWatcher``: events not newer than the
        watcher's revision are not sent)."""
        encode = encode or encode_event
        settings = self.settings
        deadline = time.monotonic() + (timeout if timeout is not None else settings.default_timeout)
        last_write = time.monotonic()
        reached = start_rv

        def send(events: list[WatchEvent]) -> bool:
            nonlocal last_write, reached
            if events:
                write(b"".join(chunk(encode(e, render)) for e in events))
                last_write = time.monotonic()
                reached = max([reached, *(_revision(e) for e in events)])
            return any(e.type == ERROR for e in events)

        def send_bookmark() -> None:
            # Taken before draining: every change up to the bookmark's resourceVersion is already queued, so
            # the bookmark goes after them and never lets a client skip an event it has not seen.
            mark = self.store.bookmark(resource)
            queued = watch.drain()
            newer = _revision(mark) > max([reached, *(_revision(e) for e in queued)])
            send([*queued, mark] if newer else queued)

        pre_timeout = deadline - 2.0  # the bookmark before the timeout, when the watch lasts long enough
        pre_timeout_due = bookmarks and pre_timeout > last_write
        watch.limit_pending(settings.max_pending)
        with self._lock:
            self._active.add(watch)
        try:
            while not self.closing.is_set():
                now = time.monotonic()
                remaining = deadline - now
                if remaining <= 0:
                    break
                if pre_timeout_due and now >= pre_timeout:
                    pre_timeout_due = False
                    send_bookmark()
                    continue
                wait = min(remaining, settings.poll_interval)
                if pre_timeout_due:
                    wait = min(wait, max(pre_timeout - now, 0.0))
                event = watch.next(wait)
                if event is None:
                    if watch.closed:
                        break
                    if peer_gone(conn):
                        return False
                    if bookmarks and time.monotonic() - last_write >= settings.bookmark_interval:
                        send_bookmark()
                    continue
                if send([event, *watch.drain()]):
                    break
            write(_END)
            return True
        finally:
            with self._lock:
                self._active.discard(watch)
            watch.stop()
