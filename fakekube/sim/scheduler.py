"""A small discrete-event scheduler that runs coroutines in virtual time.

No asyncio: a coroutine is driven with ``send()``; whenever it awaits one of our awaitables it yields a
command back to the scheduler (sleep for d virtual seconds, or wait for a ``Future``). Pending work lives in
one heap ordered by ``(time, seq)``; ``seq`` is a global counter, so two things due at the same instant run
in the order they were scheduled. That ordering rule, plus seeded random streams, is what makes a run
replay byte for byte.

Costs matter (the whole simulation is bounded by this loop): a sleep is one heap push and one ``send``.
Work due at the current instant (a task made ready, a zero sleep, a callback due now) goes to a FIFO instead
of the heap: its sequence numbers only grow, and the loop takes the heap's top first only when that is due at
the same instant with a smaller sequence number, so the order is exactly the heap's.
"""

from __future__ import annotations

import heapq
import types
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

from fakekube.clock import VirtualClock


@types.coroutine
def _Sleep(delay: float) -> Generator[float, Any, None]:  # noqa: N802 - read as the awaitable it was
    """Awaitable: suspend the current task for ``delay`` virtual seconds (0 = yield to due work).

    A generator-based coroutine that hands the scheduler the bare number: no object, no ``__await__`` call,
    no command tuple per sleep. A task yields either a number (sleep) or a :class:`Future` (wait for it).
    """
    yield delay


class Future:
    """A value some task will wait for; resolved once by ``set_result`` or ``set_exception``."""

    __slots__ = ("_done", "_result", "_exc", "_waiters", "_scheduler")

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler
        self._done = False
        self._result: Any = None
        self._exc: BaseException | None = None
        self._waiters: list[Task] = []

    def done(self) -> bool:
        return self._done

    def result(self) -> Any:
        if self._exc is not None:
            raise self._exc
        return self._result

    def set_result(self, value: Any) -> None:
        if self._done:
            return
        self._done, self._result = True, value
        self._wake()

    def set_exception(self, exc: BaseException) -> None:
        if self._done:
            return
        self._done, self._exc = True, exc
        self._wake()

    def _resume_when_done(self, task: Task) -> None:
        """``task`` awaits this future: ready it with the outcome now, or when there is one."""
        if self._done:
            self._scheduler._ready(task, self._result, self._exc)
        else:
            self._waiters.append(task)

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for task in waiters:
            self._scheduler._ready(task, self._result, self._exc)

    def __await__(self) -> Generator[Any, Any, Any]:
        if not self._done:
            yield self
        return self.result()


class Task:
    """A coroutine being driven by the scheduler; ``done`` and ``result`` once it returns."""

    __slots__ = ("coro", "name", "done", "result", "exception", "_future", "cancelled")

    def __init__(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        self.coro = coro
        self.name = name
        self.done = False
        self.cancelled = False
        self.result: Any = None
        self.exception: BaseException | None = None
        self._future: Future | None = None

    def __repr__(self) -> str:
        return f"<Task {self.name} {'done' if self.done else 'pending'}>"


def step(task: Task, value: Any, exc: BaseException | None) -> float | Future | None:
    """Run ``task`` to its next await and return what it yields (a delay or a :class:`Future`); None once it
    has ended, with its result or its exception recorded and its joiner told. Both schedulers (virtual and
    wall time) step tasks so."""
    try:
        return task.coro.throw(exc) if exc is not None else task.coro.send(value)
    except BaseException as error:  # noqa: BLE001 - a task's failure is reported, not fatal to the loop
        return _ended(task, error)


def _ended(task: Task, error: BaseException) -> None:
    """Record how ``task`` ended (``StopIteration``: its result; anything else: its failure), tell its joiner."""
    if isinstance(error, StopIteration):
        task.done, task.result = True, error.value
        if task._future is not None:
            task._future.set_result(error.value)
    else:
        task.done, task.exception = True, error
        if task._future is not None:
            task._future.set_exception(error)
    return None


class Scheduler:
    """Virtual-time loop. Entries in the heap are ``(time, seq, kind, payload, value, exc)``.

    kind 0: resume a task with (value, exc); kind 1: call ``payload()``.
    """

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock or VirtualClock()
        self.now: float = self.clock.monotonic
        self._heap: list[tuple[float, int, int, Any, Any, Any]] = []
        self._due: deque[tuple[float, int, int, Any, Any, Any]] = deque()  # entries at ``now``, in seq order
        self._seq = 0
        self.steps = 0  # coroutine resumptions, for benchmarks
        self.time_listeners: list[Callable[[float], None]] = []  # called when virtual time moves forward
        self.task_errors: list[tuple[Task, BaseException]] = []
        self.current: Task | None = None
        # The running ``run``'s stop condition, for ``continue_now`` (it must stop where the loop would).
        self._stop_when: Callable[[], bool] | None = None
        self._check_every = 1
        self.fast_resume = True  # False: every zero-delay await goes through the loop (tests compare both)
        self.continued = 0  # zero-delay awaits that went on without suspending (``continue_now``)

    # -- scheduling -----------------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> Task:
        task = Task(coro, name or getattr(coro, "__qualname__", "task"))
        self._ready(task, None, None)
        return task

    def _ready(self, task: Task, value: Any, exc: BaseException | None) -> None:
        self._seq += 1
        self._due.append((self.now, self._seq, 0, task, value, exc))

    def call_at(self, when: float, callback: Callable[[], Any]) -> None:
        self._seq += 1
        if when <= self.now:
            self._due.append((self.now, self._seq, 1, callback, None, None))
        else:
            heapq.heappush(self._heap, (when, self._seq, 1, callback, None, None))

    def call_later(self, delay: float, callback: Callable[[], Any]) -> None:
        self.call_at(self.now + (delay if delay > 0 else 0.0), callback)

    def future(self) -> Future:
        return Future(self)

    @staticmethod
    def sleep(delay: float) -> Awaitable[None]:
        return _Sleep(delay)

    def continue_now(self) -> bool:
        """For the running task, about to await a zero delay: True when the loop would hand the processor
        straight back to it, so it may go on without suspending; the step is counted as if it had been taken.

        That is when nothing else is due at this instant (no ready task or callback, no heap entry at ``now``:
        the task's own entry would be the next one taken), the task is not cancelled and the run would not
        stop before resuming it (``stop_when``, checked here where the loop would check it). Skipping the
        suspension then changes nothing but the cost: the same work runs at the same instant in the same
        order, and ``steps`` and the sequence counter advance as they would have. A cache read is such an
        await (always an await point, most often at a quiet instant): resuming a reconciler through its chain
        of coroutines is most of what a read costs.
        """
        task = self.current
        if task is None or self._due or not self.fast_resume or task.cancelled:
            return False
        heap = self._heap
        if heap and heap[0][0] <= self.now:
            return False
        stop_when = self._stop_when
        if stop_when is not None and (self._check_every != 1 or stop_when()):
            return False
        self._seq += 1
        self.steps += 1
        self.continued += 1
        return True

    def cancel(self, task: Task) -> None:
        """Stop a task at its next resumption (its coroutine is closed)."""
        task.cancelled = True

    # -- running --------------------------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        return not self._heap and not self._due

    def next_time(self) -> float | None:
        if self._due:
            return self.now
        return self._heap[0][0] if self._heap else None

    def run(self, until: float | None = None, stop_when: Callable[[], bool] | None = None,
            check_every: int = 1, advance: bool = False, stop_on_error: bool = False) -> None:
        """Process entries in order until the heap is empty, ``until`` is reached or ``stop_when()``; with
        ``stop_on_error``, also as soon as a task has failed (``task_errors``), without a check per step."""
        heap = self._heap
        clock = self.clock
        listeners = self.time_listeners
        stopped = stop_on_error and bool(self.task_errors)  # an earlier failure: no step at all
        outer = self._stop_when, self._check_every  # a run inside a callback: restored at the end
        self._stop_when, self._check_every = stop_when, check_every
        try:
            self._loop(until, stop_when, check_every, stop_on_error, stopped)
        finally:
            self._stop_when, self._check_every = outer
        if advance and until is not None and not self._due and (not heap or heap[0][0] > until) and until > self.now:
            self.now = until
            clock.advance_to(until)
            for listener in listeners:
                listener(until)

    def _loop(self, until: float | None, stop_when: Callable[[], bool] | None, check_every: int,
              stop_on_error: bool, stopped: bool) -> None:
        heap = self._heap
        due = self._due
        pop = heapq.heappop
        push = heapq.heappush
        take = due.popleft
        clock = self.clock
        listeners = self.time_listeners
        counter = 0
        while (due or heap) and not stopped:
            if until is not None and (self.now if due else heap[0][0]) > until:
                break
            if stop_when is not None:
                counter += 1
                if counter >= check_every:
                    counter = 0
                    if stop_when():
                        break
            if due and not (heap and heap[0] < due[0]):  # (time, seq) decide: seq numbers are unique
                _, _, kind, payload, value, exc = take()
            else:
                when, _, kind, payload, value, exc = pop(heap)
                if when > self.now:
                    self.now = when
                    clock.advance_to(when)
                    for listener in listeners:
                        listener(when)
            if kind == 1:
                payload()
                continue
            task: Task = payload
            if task.cancelled:
                task.done = True
                task.coro.close()
                continue
            self.steps += 1
            self.current = task
            if exc is None:  # ``step`` spelt out for the usual resumption: one Python call fewer per step
                try:
                    command = task.coro.send(value)
                except BaseException as error:  # noqa: BLE001 - as in step()
                    command = _ended(task, error)
            else:
                command = step(task, value, exc)
            self.current = None
            if command is None:  # the task has ended
                if task.exception is not None:
                    self.task_errors.append((task, task.exception))
                    if stop_on_error:
                        break
                continue
            if type(command) is Future:
                command._resume_when_done(task)
            else:  # a delay in seconds
                self._seq += 1
                if command > 0:
                    push(heap, (self.now + command, self._seq, 0, task, None, None))
                else:
                    due.append((self.now, self._seq, 0, task, None, None))

    def join(self, task: Task) -> Future:
        """A future resolved when ``task`` finishes (await it from another task)."""
        if task._future is None:
            task._future = Future(self)
            if task.done:
                if task.exception is not None:
                    task._future.set_exception(task.exception)
                else:
                    task._future.set_result(task.result)
        return task._future
