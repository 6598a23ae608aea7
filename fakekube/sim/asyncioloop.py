"""An asyncio event loop that runs inside a simulation, in its virtual time: unchanged asyncio clients
(kubernetes_asyncio, aiohttp) as actors of a ``Simulation``, beside its managers and load drivers.

``VirtualEventLoop`` is asyncio's own ``BaseEventLoop`` with three things replaced:

- ``time()`` is the simulation's virtual clock, so ``asyncio.sleep``, ``call_later``, ``asyncio.timeout`` and
  aiohttp's timeouts are virtual;
- the loop never runs by itself: a task of the simulation's ``Scheduler`` runs one iteration of asyncio's
  ``_run_once`` (its ready callbacks, its due timers) whenever the loop has work due, and otherwise waits on a
  scheduler future resolved at the loop's next timer or as soon as anything makes a callback ready (a store
  commit that wakes a watch, another task's ``call_soon``). So the loop's callbacks interleave with the
  simulation's other work at each virtual instant by the scheduler's one ordering rule, and a run replays;
- its "selector" never waits and has nothing to report: there are no sockets. Connections to the fake's host
  are in memory (aiohttp's: ``fakekube.inprocess.aiohttp_paced``; httpx's: ``fakekube.inprocess.httpx_paced``):
  the loop's ``fakekube_pacing`` gives each request its
  round trip drawn from a ``RequestLatency`` (request leg, the store's commit, response leg), and a watch resumes
  on the loop when the store emits its event.

No thread is ever started. ``run_in_executor`` runs the function inline by default and returns a finished
future: in virtual time a blocking call takes no time, and a thread would run beside the loop in wall time,
out of the scheduler's order (what made the plain in-process transport nondeterministic). A function that
waits for something only the loop can deliver would then wait forever; ``executor_calls`` names every function
run so, and ``executor="refuse"`` makes every such call an error instead (aiohttp's own, too: a ``trust_env``
session, as kubernetes_asyncio's, makes two per request). ``getaddrinfo`` is refused either way: a real
name lookup has no place in a simulation.

Written against CPython's ``asyncio/base_events.py`` ``BaseEventLoop._run_once`` (3.11-3.13: ready
callbacks run once per iteration, timers due before ``time() + _clock_resolution`` join them).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import heapq
import importlib.util
import random
import sys
import threading
import warnings
from asyncio import events
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal

from fakekube.server import routing
from fakekube.server.messages import HttpRequest

from .lag import Lag
from .latency import RequestLatency
from .scheduler import Future, _Sleep

if TYPE_CHECKING:
    from .simulation import Simulation


class _NoSelector:
    """What ``_run_once`` polls for I/O: nothing, at once (the driver only runs it when work is due)."""

    def select(self, timeout: float | None = None) -> list[Any]:
        return []

    def close(self) -> None:
        pass


def classify(method: str, target: str) -> tuple[str, str, str | None]:
    """The audit verb, resource (plural) and subresource of a request, as ``RequestLatency`` classes name them;
    a path that is not a resource's (discovery, health) is a ``get`` of ``""``."""
    route = routing.parse(target)
    if not isinstance(route, routing.ResourcePath):
        return "get", "", None
    method = method.upper()
    if method == "GET":
        query = target.partition("?")[2].lower().split("&")  # kubernetes_asyncio sends watch=True
        if route.watch_prefix or "watch=true" in query or "watch=1" in query:
            verb = "watch"
        else:
            verb = "get" if route.name else "list"
    elif method == "DELETE":
        verb = "delete" if route.name else "deletecollection"
    else:
        verb = {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(method, method.lower())
    return verb, route.plural, route.subresource


def function_name(func: Callable[..., Any]) -> str:
    """``module.qualname`` of what a partial wraps, through ``Context.run`` (asyncio.to_thread and kopf wrap the
    function they hand the executor in both)."""
    while isinstance(func, functools.partial):
        inner = func.func
        if isinstance(getattr(inner, "__self__", None), contextvars.Context) and func.args:
            func = func.args[0]
        else:
            func = inner
    return f"{getattr(func, '__module__', None) or '?'}.{getattr(func, '__qualname__', None) or repr(func)}"


class RequestPacing:
    """The loop's ``fakekube_pacing``: each request's two legs, one draw of its class's round trip.

    Each request draws from a stream of its own, seeded by the loop's seed, its method and target, and how many
    such requests came before: asyncio code that starts concurrent requests from a set (``asyncio.as_completed``
    and ``asyncio.wait`` take sets; kopf's discovery does so) starts them in the order of the objects' memory
    addresses, which differs from run to run, and one shared stream would hand the draws out in that order."""

    def __init__(self, latency: RequestLatency, seed: str, event_lag: Lag | None = None) -> None:
        self.latency = latency
        self.seed = seed
        self.event_lag = event_lag if event_lag is not None and not event_lag.is_zero else None
        self.requests = 0
        self._seen: dict[str, int] = {}

    def legs(self, request: HttpRequest) -> tuple[float, float]:
        self.requests += 1
        verb, resource, subresource = classify(request.method, request.target)
        rng = self._rng(request, "")
        latency = self.latency
        before, after = latency.split(verb, resource, subresource, rng)
        if latency.has_client_time:  # the client's own time after the answer (latency.py, ``client``):
            after += latency.client_time(verb, resource, subresource).sample(rng)  # its code takes no virtual time
        return before, after

    def event_delays(self, request: HttpRequest) -> Callable[[], float] | None:
        """For a watch: the delay of each batch of events after the store emitted it (None: none)."""
        lag = self.event_lag
        if lag is None:
            return None
        rng = self._rng(request, "events ")
        return lambda: lag.sample(rng)

    def _rng(self, request: HttpRequest, purpose: str) -> random.Random:
        key = f"{purpose}{request.method} {request.target}"
        nth = self._seen[key] = self._seen.get(key, 0) + 1
        return random.Random(f"{self.seed}/{key}/{nth}")


class VirtualEventLoop(asyncio.BaseEventLoop):
    """An event loop in ``sim``'s virtual time, driven by its scheduler (see the module's docstring).

    ``latency``: the round trip of requests to the fake's host (default: none); ``event_lag``: how long after the
    store emitted them a watch's events reach the client (each batch drawn anew, never overtaking an earlier
    one; default: at once); ``name``: the actor's name in
    the scheduler and its requests' random streams (``RequestPacing``); ``executor``: ``"inline"`` or
    ``"refuse"`` (``executor_calls`` names what ran inline). Exceptions the loop would log (a failed callback, a task's exception never retrieved) are
    also kept in ``errors``.
    """

    def __init__(self, sim: Simulation, *, latency: RequestLatency | None = None,
                 event_lag: Lag | float | None = None, name: str = "asyncio",
                 executor: Literal["inline", "refuse"] = "inline") -> None:
        if executor not in ("inline", "refuse"):
            raise ValueError("executor is 'inline' or 'refuse'")
        if sim.freeze and "kubernetes_asyncio" in sys.modules:
            warnings.warn("kubernetes_asyncio cannot parse timestamps while freezegun runs (its deserializer "
                          "compares classes with datetime.datetime, which freezegun replaces): "
                          "use Simulation(freeze_time=False)", stacklevel=2)
        super().__init__()
        self._sim = sim
        self._scheduler = sim.scheduler
        self._selector = _NoSelector()
        self._waiting: Future | None = None  # the driver's wait, while it waits
        self._alarms: set[float] = set()  # instants the scheduler will wake the driver at
        self._driving = False
        self._executor_mode = executor
        self.executor_calls: list[str] = []  # what run_in_executor ran inline, by name (module.qualname)
        self.steps = 0  # iterations of _run_once
        self.errors: list[dict[str, Any]] = []
        self.fakekube_pacing = RequestPacing(latency or RequestLatency(), f"{sim.seed}/asyncio/{name}",
                                             Lag.coerce(event_lag))
        self.set_exception_handler(self._keep_error)
        self._driver = sim.spawn(self._drive(), name=f"{name} event loop")
        _anyio_threads_through_executor()

    # -- time -----------------------------------------------------------------------------------------------

    def time(self) -> float:
        return self._scheduler.now

    # -- the driver (a task of the simulation's scheduler) ---------------------------------------------------

    async def _drive(self) -> None:
        self._driving = True
        scheduler = self._scheduler
        while not self.is_closed():
            when = self._next_timer()
            if self._ready or (when is not None and when < scheduler.now + self._clock_resolution):
                self._step()
                await _Sleep(0)  # other work due at this instant runs before the loop's next iteration
                continue
            waiting = self._waiting = scheduler.future()
            if when is not None and when not in self._alarms:
                # One scheduler entry per instant a timer falls due: the scheduler cannot take an entry back, so
                # one left by a timer since cancelled only wakes the driver for nothing (and keeps the
                # simulation from going idle before that instant).
                self._alarms.add(when)
                scheduler.call_at(when, functools.partial(self._alarm, when))
            await waiting
            self._waiting = None

    def _alarm(self, when: float) -> None:
        self._alarms.discard(when)
        self._kick()

    def _next_timer(self) -> float | None:
        scheduled = self._scheduled
        while scheduled and scheduled[0]._cancelled:  # as _run_once drops them
            self._timer_cancelled_count -= 1
            heapq.heappop(scheduled)._scheduled = False
        return scheduled[0]._when if scheduled else None

    def _step(self) -> None:
        """One iteration of asyncio's own loop, with this loop as the running one (as ``run_forever`` sets)."""
        outer = events._get_running_loop()
        hooks = sys.get_asyncgen_hooks()
        self._thread_id = threading.get_ident()
        sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook)
        events._set_running_loop(self)
        try:
            self.steps += 1
            self._run_once()
        finally:
            events._set_running_loop(outer)
            sys.set_asyncgen_hooks(*hooks)
            self._thread_id = None

    def _kick(self) -> None:
        """Work for the loop arrived while its driver waits: wake the driver at this instant."""
        waiting = self._waiting
        if waiting is not None:
            self._waiting = None
            waiting.set_result(None)

    def _call_soon(self, callback: Callable[..., Any], args: Any, context: Any) -> asyncio.Handle:
        handle = super()._call_soon(callback, args, context)
        self._kick()
        return handle

    def call_at(self, when: float, callback: Callable[..., Any], *args: Any,
                context: Any = None) -> asyncio.TimerHandle:
        timer = super().call_at(when, callback, *args, context=context)
        self._kick()  # the driver may be waiting for a later timer
        return timer

    def _write_to_self(self) -> None:  # call_soon_threadsafe's wake-up: there is no other thread to wake from
        self._kick()

    def _process_events(self, event_list: list[Any]) -> None:
        pass

    # -- what a loop without threads or sockets refuses -----------------------------------------------------

    def run_in_executor(self, executor: Any, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        self._check_closed()
        if self._executor_mode == "refuse":
            raise RuntimeError(f"VirtualEventLoop(executor='refuse'): run_in_executor({func!r}) would need a "
                               "thread, which runs outside virtual time")
        self.executor_calls.append(function_name(func))
        future = self.create_future()
        try:
            future.set_result(func(*args))
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # noqa: BLE001 - the caller awaits it, as from a thread
            future.set_exception(exc)
        return future

    def set_default_executor(self, executor: Any) -> None:
        raise RuntimeError("VirtualEventLoop runs executor calls inline: it takes no executor")

    async def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        raise OSError(f"VirtualEventLoop: no name lookup in a simulation ({host!r})")

    def run_forever(self) -> None:
        raise RuntimeError("VirtualEventLoop is driven by its simulation: use run_until_complete or Simulation.run")

    # -- running ---------------------------------------------------------------------------------------------

    def run_until_complete(self, future: Any, *, until: float | None = None) -> Any:
        """Run the simulation (this loop and everything else in it) until ``future`` is done, and return its
        result; ``until``: a virtual time to give up at."""
        task = asyncio.ensure_future(future, loop=self)
        self._sim.run(until=until, stop_when=task.done)
        if not task.done():
            raise TimeoutError(f"{task!r} did not finish by virtual time {self._sim.now:.3f}s")
        return task.result()

    def cancel_tasks(self, until: float | None = None) -> None:
        """Cancel every task of the loop and run the simulation until they have ended (a client's ``finally``
        and ``async with`` exits close its connections)."""
        tasks = [t for t in asyncio.all_tasks(self) if not t.done()]
        for task in tasks:
            task.cancel()
        self._sim.run(until=until, stop_when=lambda: all(t.done() for t in tasks))

    def close(self) -> None:
        super().close()
        self._scheduler.cancel(self._driver)  # closed by the scheduler when it next comes to it
        self._kick()
        if not self._driving:  # never ran: closed now, or Python warns it was never awaited
            self._driver.coro.close()

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task[Any]:
        """``create_task``: the coroutine starts at the loop's next iteration, when the simulation runs."""
        return self.create_task(coro, name=name)

    def _keep_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        self.errors.append(context)
        self.default_exception_handler(context)


def _anyio_threads_through_executor() -> None:
    """anyio's ``to_thread.run_sync`` on a ``VirtualEventLoop`` goes through the loop's ``run_in_executor``
    (inline, or refused) instead of anyio's own worker threads, which a virtual loop could not wait for: its
    driver would find no work due and the simulation would end without it. kr8s reads its kubeconfig with
    ``anyio.open_file`` (kr8s 0.20.15 ``_config.py``), whose calls all go there (anyio 4.16
    ``_backends/_asyncio.py``, ``AsyncIOBackend.run_sync_in_worker_thread``). Other loops keep anyio's threads."""
    if importlib.util.find_spec("anyio") is None:
        return
    from anyio._backends._asyncio import AsyncIOBackend

    original = AsyncIOBackend.run_sync_in_worker_thread
    if getattr(original, "fakekube_inline", False):
        return

    async def run_sync_in_worker_thread(cls: Any, func: Callable[..., Any], args: tuple[Any, ...],
                                        abandon_on_cancel: bool = False, limiter: Any = None) -> Any:
        loop = asyncio.get_running_loop()
        if not isinstance(loop, VirtualEventLoop):
            return await original.__func__(cls, func, args, abandon_on_cancel, limiter)  # type: ignore[attr-defined]
        await asyncio.sleep(0)  # anyio's checkpoint: a thread call is a point where other tasks run
        return await loop.run_in_executor(None, func, *args)

    run_sync_in_worker_thread.fakekube_inline = True  # type: ignore[attr-defined]
    AsyncIOBackend.run_sync_in_worker_thread = classmethod(run_sync_in_worker_thread)  # type: ignore[method-assign,assignment]
