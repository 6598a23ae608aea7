"""The runtime's second clock: the same coroutines, informers, workqueues and controllers on wall time.

The simulation's :class:`~fakekube.sim.scheduler.Scheduler` drives coroutines in virtual time on the caller's
thread. :class:`RealTimeScheduler` speaks the same protocol (``spawn``, ``call_at``, ``future``, and the
``_Sleep`` / ``Future`` awaitables: a coroutine yields a delay or a future) but runs on a thread of its own, sleeps for real, and
wakes when another thread hands it work. :class:`RealTimeRuntime` is the object the runtime's managers,
informers and clients take where the simulation passes a :class:`~fakekube.sim.simulation.Simulation`, so an
actor written once (a kubelet, a Deployment controller) runs unchanged behind ``fakekube serve`` and in a
deterministic simulation.

Threads: the store is shared with other threads (the HTTP front's handlers). A store watch calls its
callback on the committing thread, under the store lock; the runtime's informers must see their events on
the loop thread, in commit order. :meth:`RealTimeScheduler.deliver` wraps such a callback: on the loop
thread with nothing of that watch queued it calls through at once (so an informer's initial list lands in
its cache synchronously, as in the simulation); otherwise it queues the event for the loop. Both happen
under the store lock, so one watch's events are delivered in the order they were committed. See
docs/cluster.md ("one runtime, two clocks") for why a second scheduler and not asyncio.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from .scheduler import Future, Task, _Sleep, step
from .simulation import BUG_EXCEPTIONS, Simulation

if TYPE_CHECKING:
    from fakekube.clock import Clock
    from fakekube.resources import ResourceType
    from fakekube.store import Store
    from fakekube.watch import WatchEvent

    from .manager import Manager

logger = logging.getLogger("fakekube.sim.realtime")

_TASK = 0
_CALL = 1


class RealTimeScheduler:
    """Runs tasks and timers on a daemon thread against ``time.monotonic``; thread-safe to schedule into.

    ``now`` is seconds since the scheduler was made (the virtual scheduler's ``now`` is seconds since the
    simulation's start), so informers, workqueues and token buckets compute delays the same way.
    """

    def __init__(self, name: str = "fakekube-runtime") -> None:
        self.name = name
        self._t0 = time.monotonic()
        self._heap: list[tuple[float, int, int, Any, Any, Any]] = []
        self._seq = 0
        self._cond = threading.Condition(threading.Lock())
        self._inbox: deque[Callable[[], Any]] = deque()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.steps = 0
        self.time_listeners: list[Callable[[float], None]] = []  # unused on wall time; kept for the protocol
        self.task_errors: list[tuple[Task, BaseException]] = []
        self.current: Task | None = None

    @property
    def now(self) -> float:
        return time.monotonic() - self._t0

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def continue_now(self) -> bool:
        """Never on wall time: another thread may schedule work at any moment, so an await point suspends."""
        return False

    def on_loop(self) -> bool:
        """True on the loop's own thread (or on any thread before the loop has started)."""
        return self._thread is None or threading.current_thread() is self._thread

    # -- scheduling (any thread) ---------------------------------------------------------------------

    def _push(self, when: float, kind: int, payload: Any, value: Any = None, exc: BaseException | None = None
              ) -> None:
        with self._cond:
            self._seq += 1
            heapq.heappush(self._heap, (when, self._seq, kind, payload, value, exc))
            self._cond.notify()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> Task:
        task = Task(coro, name or getattr(coro, "__qualname__", "task"))
        self._ready(task, None, None)
        return task

    def _ready(self, task: Task, value: Any, exc: BaseException | None) -> None:
        self._push(self.now, _TASK, task, value, exc)

    def call_at(self, when: float, callback: Callable[[], Any]) -> None:
        self._push(when, _CALL, callback)

    def call_later(self, delay: float, callback: Callable[[], Any]) -> None:
        self._push(self.now + max(delay, 0.0), _CALL, callback)

    def call_soon_threadsafe(self, callback: Callable[[], Any]) -> None:
        with self._cond:
            self._inbox.append(callback)
            self._cond.notify()

    def future(self) -> Future:
        return Future(self)  # type: ignore[arg-type]  # Future only calls _ready

    @staticmethod
    def sleep(delay: float) -> Awaitable[None]:
        return _Sleep(delay)

    def cancel(self, task: Task) -> None:
        task.cancelled = True

    def join(self, task: Task) -> Future:
        if task._future is None:
            task._future = Future(self)  # type: ignore[arg-type]
            if task.done:
                if task.exception is not None:
                    task._future.set_exception(task.exception)
                else:
                    task._future.set_result(task.result)
        return task._future

    def deliver(self, callback: Callable[[WatchEvent], None]) -> Callable[[WatchEvent], None]:
        """Wrap a store-watch callback so that it runs on the loop thread, in commit order (see the module doc)."""
        pending: deque[WatchEvent] = deque()

        def drain() -> None:
            while pending:
                callback(pending.popleft())

        def on_event(event: WatchEvent) -> None:
            if not pending and self.on_loop():
                callback(event)
                return
            pending.append(event)
            self.call_soon_threadsafe(drain)

        return on_event

    # -- running (the loop thread) -------------------------------------------------------------------

    def start(self) -> RealTimeScheduler:
        if self._thread is None:
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def run_in_loop(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Call ``fn`` on the loop thread and return its result (or raise its exception) here."""
        if self.on_loop():
            return fn()
        done = threading.Event()
        outcome: list[Any] = [None, None]

        def call() -> None:
            try:
                outcome[0] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                outcome[1] = exc
            finally:
                done.set()

        self.call_soon_threadsafe(call)
        if not done.wait(timeout):
            raise TimeoutError(f"{self.name}: the loop did not run the call within {timeout} s")
        if outcome[1] is not None:
            raise outcome[1]
        return outcome[0]

    def _next(self) -> tuple[list[Callable[[], Any]], tuple[Any, ...] | None] | None:
        """Wait for work: queued callbacks, or the next due heap entry; None once stopping."""
        with self._cond:
            while not self._stopping:
                if self._inbox:
                    calls = list(self._inbox)
                    self._inbox.clear()
                    return calls, None
                if self._heap:
                    delay = self._heap[0][0] - self.now
                    if delay <= 0:
                        return [], heapq.heappop(self._heap)
                    self._cond.wait(delay)
                else:
                    self._cond.wait()
            return None

    def _run(self) -> None:
        while True:
            work = self._next()
            if work is None:
                return
            calls, entry = work
            for call in calls:
                self._guard(call)
            if entry is None:
                continue
            _, _, kind, payload, value, exc = entry
            if kind == _CALL:
                self._guard(payload)
            else:
                self._resume(payload, value, exc)

    def _guard(self, call: Callable[[], Any]) -> None:
        try:
            call()
        except Exception:  # a callback's bug must not stop every actor
            logger.exception("%s: callback %r failed", self.name, call)

    def _resume(self, task: Task, value: Any, exc: BaseException | None) -> None:
        if task.cancelled:
            task.done = True
            task.coro.close()
            return
        self.steps += 1
        self.current = task
        command = step(task, value, exc)
        self.current = None
        if command is None:
            error = task.exception
            if error is not None:
                self.task_errors.append((task, error))
                logger.error("%s: task %s failed: %r", self.name, task.name, error, exc_info=error)
            return
        if type(command) is Future:
            command._resume_when_done(task)
        else:  # a delay in seconds
            self._push(self.now + command if command > 0 else self.now, _TASK, task)


class _LoopStore:
    """The store as the runtime's own components see it: watch callbacks run on the loop thread.

    Everything else is the store itself (writes and reads are ordinary, thread-safe store calls)."""

    def __init__(self, store: Store, scheduler: RealTimeScheduler) -> None:
        self._store = store
        self._scheduler = scheduler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # A component that switches a store behaviour off (Cluster without the serviceaccount controller sets
        # ``service_accounts = None``) must reach the store, not this view of it.
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._store, name, value)

    def watch(self, resource: Any, *args: Any, on_event: Callable[[WatchEvent], None] | None = None,
              **kwargs: Any) -> Any:
        if on_event is not None:
            on_event = self._scheduler.deliver(on_event)
        return self._store.watch(resource, *args, on_event=on_event, **kwargs)


class RealTimeRuntime:
    """Stands where a :class:`Simulation` stands for managers, informers, controllers and clients, on wall time.

    The store keeps its own clock (a ``RealClock`` unless the caller gave another); nothing here freezes
    time. A reconcile that raises is retried with backoff and logged (``strict`` is off: a running server
    should not stop because one actor has a bug). Random streams are seeded as in the simulation, though
    wall time makes a run non-repeatable anyway.
    """

    def __init__(self, store: Store, *, seed: int = 1, name: str = "fakekube-runtime") -> None:
        self.seed = seed
        self.real_store = store
        self.scheduler = RealTimeScheduler(name)
        self.store: Any = _LoopStore(store, self.scheduler)
        self.managers: dict[str, Manager] = {}
        self.strict = False
        self.bug_exceptions = BUG_EXCEPTIONS
        self._fault_delay = 0.0  # the store sleeps for injected delays itself (its delay_hook)
        self._rt_cache: dict[str, ResourceType] = {}
        self._rt_generation = -1

    # The simulation's own definitions: one implementation of managers, streams and name resolution.
    manager = Simulation.manager
    rng = Simulation.rng
    resolve = Simulation.resolve
    spawn = Simulation.spawn
    join = Simulation.join
    sleep = staticmethod(Simulation.sleep)
    future = Simulation.future
    call_later = Simulation.call_later

    @property
    def clock(self) -> Clock:
        return self.real_store.clock

    @property
    def now(self) -> float:
        return self.scheduler.now

    def start(self) -> RealTimeRuntime:
        self.scheduler.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop every informer's watch, then the loop thread."""
        def stop_watches() -> None:
            for manager in self.managers.values():
                for informer in manager.informers.values():
                    informer.stop()

        if self.scheduler.thread is not None and self.scheduler.thread.is_alive():
            try:
                self.scheduler.run_in_loop(stop_watches, timeout)
            except TimeoutError:
                logger.warning("%s: informers did not stop in time", self.scheduler.name)
        else:
            stop_watches()
        self.scheduler.stop(timeout)

    def __repr__(self) -> str:
        return f"<RealTimeRuntime {self.scheduler.name}>"

