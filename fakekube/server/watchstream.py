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
- ``WatchStreamer.stream`` is the stream without I/O (batches of encoded events, a generator); ``run`` writes it
  to a connection as chunks.
- A thread-per-connection server only sees a vanished client when it writes, so the stream waits on the socket
  and the watch's wakeup descriptor together (``poll``): a client that disconnects frees its thread, and a new
  event leaves, as soon as either happens. A client that sends bytes while it watches (nothing a watch client
  does) makes its socket readable for good; that stream falls back to peeking every ``poll_interval`` seconds.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

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


# poll(2), never select(2): a server with a thousand connections has descriptors past select's 1,024. POLLRDHUP
# (Linux) reports a client's close even when bytes it sent are still unread.
_HANGUP = getattr(select, "POLLRDHUP", 0)
_GONE = _HANGUP | select.POLLHUP | select.POLLERR | select.POLLNVAL


def peer_gone(conn: socket.socket) -> bool:
    """True when the client closed its end (hung up, or readable with zero bytes) or the socket failed.

    A watch client sends nothing while it reads a stream, so on a TLS connection anything readable is the
    client's close_notify (peeking cannot see through TLS records)."""
    try:
        poller = select.poll()
        poller.register(conn, select.POLLIN | _HANGUP)
        ready = poller.poll(0)
        if not ready:
            return False
        if ready[0][1] & _GONE:
            return True
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

    def run(self, write: Callable[[bytes], object], conn: socket.socket | None, watch: Watch,
            resource: ResourceType, timeout: float | None, bookmarks: bool, render: Render | None = None,
            encode: Callable[[WatchEvent, Render | None], bytes] | None = None, start_rv: int = 0) -> bool:
        """``stream`` written to ``write`` as chunks, the terminating chunk last when it ended cleanly."""
        batches = self.stream(conn, watch, resource, timeout, bookmarks, render, encode, start_rv)
        try:
            while True:
                write(b"".join(chunk(data) for data in next(batches)))
        except StopIteration as done:
            if done.value:
                write(_END)
            return bool(done.value)
        finally:
            batches.close()

    def stream(self, conn: socket.socket | None, watch: Watch, resource: ResourceType, timeout: float | None,
               bookmarks: bool, render: Render | None = None,
               encode: Callable[[WatchEvent, Render | None], bytes] | None = None,
               start_rv: int = 0, pacer: Pacer | None = None) -> Generator[list[bytes] | float, None, bool]:
        """The stream's event batches (each event one chunk on the wire) until timeout, error, the client's
        disconnect or server shutdown; returns False when the client went away (the connection must then be
        closed). ``conn``: the client's socket, watched for a hang-up (None in process: the consumer stops the
        stream by closing the generator).

        ``encode`` turns an event into its bytes on the wire (default: a JSON line; protobuf streams frame
        ``WatchEvent`` messages). ``start_rv``: the revision the watch starts from; a bookmark goes out only
        when it is newer than every event sent so far (cacher ``cacheWatcher``: events not newer than the
        watcher's revision are not sent).

        ``pacer``: a consumer that waits itself (in process, on an event loop in virtual time:
        ``fakekube.inprocess.paced``): the stream reads the time from it, signals it as the watch's wakeup
        (``Watch.attach_signal``) and, where it would wait, yields the longest wait (a float, in seconds) instead
        of blocking; the consumer resumes it once the pacer was set or that time passed. Without one only
        batches are yielded."""
        encode = encode or encode_event
        settings = self.settings
        monotonic = pacer.monotonic if pacer is not None else time.monotonic
        deadline = monotonic() + (timeout if timeout is not None else settings.default_timeout)
        last_write = monotonic()
        reached = start_rv

        def send(events: list[WatchEvent]) -> Generator[list[bytes], None, bool]:
            nonlocal last_write, reached
            if events:
                yield [encode(e, render) for e in events]
                last_write = monotonic()
                reached = max([reached, *(_revision(e) for e in events)])
            return any(e.type == ERROR for e in events)

        def send_bookmark() -> Generator[list[bytes], None, bool]:
            # Taken before draining: every change up to the bookmark's resourceVersion is already queued, so
            # the bookmark goes after them and never lets a client skip an event it has not seen.
            mark = self.store.bookmark(resource)
            queued = watch.drain()
            newer = _revision(mark) > max([reached, *(_revision(e) for e in queued)])
            return (yield from send([*queued, mark] if newer else queued))

        pre_timeout = deadline - 2.0  # the bookmark before the timeout, when the watch lasts long enough
        pre_timeout_due = bookmarks and pre_timeout > last_write
        watch.limit_pending(settings.max_pending)
        with self._lock:
            self._active.add(watch)
        waiter = _Waiter(conn, watch) if pacer is None else None
        if pacer is not None:
            watch.attach_signal(pacer)
        try:
            while not self.closing.is_set():
                now = monotonic()
                remaining = deadline - now
                if remaining <= 0:
                    break
                if pre_timeout_due and now >= pre_timeout:
                    pre_timeout_due = False
                    yield from send_bookmark()
                    continue
                events = watch.drain()
                if events:
                    if (yield from send(events)):
                        break
                    continue
                if watch.closed:
                    break
                wait = remaining
                if bookmarks:
                    wait = min(wait, max(settings.bookmark_interval - (now - last_write), 0.0))
                if pre_timeout_due:
                    wait = min(wait, max(pre_timeout - now, 0.0))
                if waiter is None:
                    yield float(max(wait, 0.0))
                elif waiter.wait(wait, settings.poll_interval):
                    if conn is not None and peer_gone(conn):
                        return False
                    waiter.peek_only()
                if bookmarks and monotonic() - last_write >= settings.bookmark_interval:
                    yield from send_bookmark()
            return True
        finally:
            with self._lock:
                self._active.discard(watch)
            watch.stop()
            if waiter is not None:
                waiter.close()
            else:
                watch.release_wakeup()


class Pacer(Protocol):
    """A stream's consumer that waits itself (``WatchStreamer.stream``): its clock, and the watch's signal."""

    def monotonic(self) -> float: ...

    def set(self) -> None: ...

    def clear(self) -> None: ...

    def close(self) -> None: ...


class _Waiter:
    """Waits until the watch has something (an event, its end) or the client's socket says it may be gone: readable
    (its close, a TLS close_notify) or hung up. A client that sends bytes while it watches leaves its socket readable
    for good, so after that only a hang-up wakes the wait (POLLRDHUP, Linux), or, where poll has none, the socket
    is peeked each ``poll_interval``."""

    def __init__(self, conn: socket.socket | None, watch: Watch) -> None:
        self._watch = watch
        self._conn = conn
        self._poll = select.poll()
        self._poll.register(watch.wakeup_fd(), select.POLLIN)
        self._conn_fd = conn.fileno() if conn is not None else -1
        self._watching_conn = conn is not None
        if conn is not None:
            self._poll.register(self._conn_fd, select.POLLIN | _HANGUP)
        self._socketless = conn is None

    def wait(self, timeout: float, poll_interval: float) -> bool:
        """True when the socket is due a peek: it turned readable or hung up, or (not waited on) a poll passed."""
        if self._socketless:  # in process: only the watch wakes the wait
            self._poll.poll(max(timeout, 0.0) * 1000)
            return False
        if not self._watching_conn:
            timeout = min(timeout, poll_interval)
        ready = dict(self._poll.poll(max(timeout, 0.0) * 1000))
        if self._conn_fd in ready:
            return True
        return not self._watching_conn and not ready

    def peek_only(self) -> None:
        """The socket is readable but the client is there (it sent bytes): waiting on it again would spin."""
        if _HANGUP:
            self._poll.modify(self._conn_fd, _HANGUP)
        elif self._watching_conn:  # pragma: no cover - systems without POLLRDHUP
            self._poll.unregister(self._conn_fd)
            self._watching_conn = False

    def close(self) -> None:
        self._watch.release_wakeup()
