"""The simulation: a store on a virtual clock, the scheduler, managers, and the non-controller actors.

Determinism rules kept here: every component draws from its own ``random.Random`` seeded from
``f"{seed}/{component}"`` (string seeds hash with SHA-512, not Python's randomised ``hash``), ties in time
are broken by scheduling order, and no wall-clock time is read. ``datetime.now()`` inside reconcilers
follows virtual time while ``run()`` is active (freezegun, reading the virtual clock: fakekube.sim.frozen).
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from fakekube.audit import AuditEntry, AuditLog
from fakekube.clock import VirtualClock
from fakekube.store import Store

from .gcactor import GarbageCollectorActor
from .kubelet import Kubelet
from .lag import Lag
from .latency import RequestLatency
from .manager import Manager
from .scheduler import Future, Scheduler, Task, _Sleep
from .serviceaccounts import ServiceAccountActor
from .stale import StaleDetector, StaleOverwrite

if TYPE_CHECKING:
    from fakekube.audit import Timeline
    from fakekube.resources import ResourceType

    from .asyncioloop import VirtualEventLoop
    from .cpu import CpuModel

# Packages freezegun must not scan when it starts: its scan calls getattr on every module attribute, and these
# import submodules lazily from a module __getattr__ (defining pydantic models while datetime is half-patched).
# They are client libraries, not reconciler code, so they keep real time.
FREEZE_IGNORE: tuple[str, ...] = ("kubernetes", "kubernetes_asyncio", "lightkube", "kr8s", "kopf", "pydantic",
                                  "pydantic_core", "urllib3", "requests", "aiohttp", "httpx", "yaml")

# Exceptions that mean "the reconciler has a bug" rather than "the reconcile failed": with strict=True
# they stop the run instead of being retried forever with backoff, as Go's compiler would have caught them.
BUG_EXCEPTIONS: tuple[type[BaseException], ...] = (TypeError, AttributeError, NameError, ImportError,
                                                   SyntaxError)


class SimulationError(RuntimeError):
    """A spawned task (test driver, load generator) or, under ``strict``, a reconciler failed."""


class Simulation:
    def __init__(self, seed: int = 1, start: datetime | None = None, *, store: Store | None = None,
                 managed_fields: bool = False, freeze_time: bool = True, strict: bool = True,
                 bug_exceptions: tuple[type[BaseException], ...] = BUG_EXCEPTIONS,
                 stale_history: int = 16, freeze_ignore: tuple[str, ...] = FREEZE_IGNORE) -> None:
        self.seed = seed
        self.clock = VirtualClock(start)
        if store is None:
            store = Store(clock=self.clock, seed=seed, gc="manual", managed_fields=managed_fields)
        else:
            store.clock = self.clock
            store.gc_mode = "manual"
        self.store = store
        self.scheduler = Scheduler(self.clock)
        self.stale = StaleDetector(stale_history)
        store.commit_hooks.append(self.stale)
        self._fault_delay = 0.0
        store.delay_hook = self._add_fault_delay
        self.managers: dict[str, Manager] = {}
        self.kubelets: list[Kubelet] = []
        self.gc: GarbageCollectorActor | None = None
        # kube-controller-manager's service-account controller runs in every cluster (fakekube.serviceaccounts).
        self.service_accounts = (ServiceAccountActor(self, store.service_accounts)
                                 if store.service_accounts is not None else None)
        self.strict = strict
        self.bug_exceptions = bug_exceptions
        self.freeze = freeze_time
        self.freeze_ignore = freeze_ignore
        self._freezer: Any = None
        self._frozen: Any = None
        self._naive_start: tuple[Any, datetime] | None = None  # (clock, its naive UTC time at monotonic 0)
        self._rt_cache: dict[str, ResourceType] = {}
        self._rt_generation = -1

    # -- basics ---------------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Virtual seconds since the start."""
        return self.scheduler.now

    @property
    def start_timestamp(self) -> float:
        """The epoch timestamp of virtual time 0 (audit entries carry epoch timestamps)."""
        return self.clock.now().timestamp() - self.clock.monotonic

    def elapsed(self, entry: AuditEntry) -> float:
        """Virtual seconds since the start at which an audit entry was recorded."""
        return entry.time - self.start_timestamp

    @property
    def audit(self) -> AuditLog:
        return self.store.audit

    def rng(self, *names: str) -> random.Random:
        """An independent, seeded random stream for one component."""
        return random.Random("/".join((str(self.seed), *names)))

    def resolve(self, resource: str | ResourceType) -> ResourceType:
        if not isinstance(resource, str):
            return resource
        registry = self.store.registry
        if registry.generation != self._rt_generation:
            self._rt_cache.clear()
            self._rt_generation = registry.generation
        rt = self._rt_cache.get(resource)
        if rt is None:
            rt = self._rt_cache[resource] = self.store.resolve(resource)
        return rt

    def _add_fault_delay(self, seconds: float) -> None:
        # The store calls this (instead of time.sleep) for a fault-injected delay; the client awaits it.
        self._fault_delay += seconds

    # -- building -------------------------------------------------------------------------------------

    def manager(self, name: str, *, cache_lag: Lag | float | None = None,
                per_kind_lag: dict[str, Lag | float] | None = None, api_latency: Lag | float | None = None,
                cache_read_latency: Lag | float | None = None, qps: float | None = None, burst: int = 10,
                event_delay: Lag | float | None = None, response_latency: Lag | float | None = None,
                latency: RequestLatency | None = None, handling: Lag | float | None = None,
                priority_queue: bool = True, cpu: CpuModel | None = None,
                cache_lag_per_event: bool = False) -> Manager:
        """A controller process; see :class:`fakekube.sim.manager.Manager` for the knobs."""
        if name in self.managers:
            raise ValueError(f"manager {name!r} already exists")
        mgr = Manager(self, name, cache_lag=cache_lag, per_kind_lag=per_kind_lag, api_latency=api_latency,
                      cache_read_latency=cache_read_latency, qps=qps, burst=burst, event_delay=event_delay,
                      response_latency=response_latency, latency=latency, handling=handling,
                      priority_queue=priority_queue, cpu=cpu, cache_lag_per_event=cache_lag_per_event)
        self.managers[name] = mgr
        return mgr

    def kubelet(self, **options: Any) -> Kubelet:
        """Start a kubelet (plus scheduler) actor; see :class:`fakekube.sim.kubelet.Kubelet` for options."""
        kubelet = Kubelet(self, **options)
        self.kubelets.append(kubelet)
        return kubelet

    def asyncio_loop(self, name: str = "asyncio", *, latency: RequestLatency | None = None,
                     event_lag: Lag | float | None = None,
                     executor: Literal["inline", "refuse"] = "inline") -> VirtualEventLoop:
        """An asyncio event loop in this simulation's virtual time, for unchanged asyncio clients
        (:class:`fakekube.sim.asyncioloop.VirtualEventLoop`; docs/simulation-asyncio.md). Made here rather than
        directly, an exploration's perturbation reaches its latency and watch lag as it reaches a manager's."""
        from .asyncioloop import VirtualEventLoop

        return VirtualEventLoop(self, latency=latency, event_lag=event_lag, name=name, executor=executor)

    def garbage_collector(self, delay: Lag | float | None = None, interval: float | None = None
                          ) -> GarbageCollectorActor:
        """Run ownerReference garbage collection in virtual time (actor ``generic-garbage-collector``)."""
        if self.gc is None:
            self.gc = GarbageCollectorActor(self, delay=delay, interval=interval)
        return self.gc

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str = "") -> Task:
        """Run a coroutine (a load generator, a test driver) in virtual time."""
        return self.scheduler.spawn(coro, name)

    def join(self, task: Task) -> Future:
        return self.scheduler.join(task)

    @staticmethod
    def sleep(seconds: float) -> Awaitable[None]:
        return _Sleep(seconds)

    def future(self) -> Future:
        return self.scheduler.future()

    def call_later(self, delay: float, callback: Callable[[], Any]) -> None:
        self.scheduler.call_later(delay, callback)

    # -- running --------------------------------------------------------------------------------------

    def run(self, until: float | None = None, until_idle: bool = True, stop_when: Callable[[], bool] | None = None,
            progress: Callable[[Simulation], Any] | None = None, progress_every: float = 1.0,
            for_: float | None = None) -> Simulation:
        """Run until nothing is scheduled (``until_idle``), virtual time ``until`` (absolute seconds) or
        ``for_`` seconds from now, or ``stop_when()`` returns true. ``progress(sim)`` is called whenever
        virtual time crosses a multiple of ``progress_every``.

        Periodic work (a ``RequeueAfter`` loop) never lets a run go idle: give ``until`` or ``stop_when``.
        Raises :class:`SimulationError` when a spawned task failed.
        """
        if for_ is not None:
            until = self.now + for_
        if not until_idle and until is None and stop_when is None:
            raise ValueError("run(until_idle=False) needs until, for_ or stop_when")
        listener = None
        if progress is not None:
            mark = [int(self.now / progress_every)]

            def listener(now: float) -> None:
                tick = int(now / progress_every)
                if tick != mark[0]:
                    mark[0] = tick
                    progress(self)

            self.scheduler.time_listeners.append(listener)
        self._start_freeze()
        try:
            self.scheduler.run(until=until, stop_when=stop_when, stop_on_error=True,
                               advance=not until_idle and not self.scheduler.task_errors)
        finally:
            self._stop_freeze()
            if listener is not None:
                self.scheduler.time_listeners.remove(listener)
        self._raise_task_errors()
        return self

    def run_until_complete(self, coro: Coroutine[Any, Any, Any], until: float | None = None) -> Any:
        """Spawn ``coro``, run until it finishes, and return its result."""
        task = self.spawn(coro)
        try:
            self.run(until=until, stop_when=lambda: task.done)
        except SimulationError as exc:
            if task.exception is not None and exc.__cause__ is task.exception:
                raise task.exception from None
            raise
        if not task.done:
            raise SimulationError(f"{task.name} did not finish (virtual time {self.now:.3f}s)")
        if task.exception is not None:
            raise task.exception
        return task.result

    def _raise_task_errors(self) -> None:
        errors = self.scheduler.task_errors
        if errors:
            task, error = errors[0]
            self.scheduler.task_errors = []
            raise SimulationError(f"task {task.name} failed at {self.now:.6f}s: {type(error).__name__}: {error}") \
                from error

    def _start_freeze(self) -> None:
        if not self.freeze or self._freezer is not None:
            return
        import freezegun

        from .frozen import follow_clock

        freezer = freezegun.freeze_time(self._naive_now(), ignore=list(self.freeze_ignore))
        try:
            self._frozen = freezer.start()
        except BaseException:
            # start() patches time before scanning modules: undo whatever it did, or time stays frozen.
            with contextlib.suppress(Exception):
                freezer.stop()
            raise
        self._freezer = freezer
        # The frozen time follows the clock when read (fakekube.sim.frozen), not on every step of the loop.
        start = self._naive_start
        if start is None or start[0] is not self.clock:
            start = self._naive_start = (self.clock, self._naive_now() - timedelta(seconds=self.clock.monotonic))
        self._frozen = follow_clock(self._frozen, self.clock, start[1])

    def _naive_now(self) -> datetime:
        return self.clock.now().astimezone(UTC).replace(tzinfo=None)

    def _stop_freeze(self) -> None:
        if self._freezer is None:
            return
        self._freezer.stop()
        self._freezer = self._frozen = None

    # -- reports --------------------------------------------------------------------------------------

    def stale_overwrites(self, *, actor: str | None = None, resource: str | None = None) -> list[StaleOverwrite]:
        return [r for r in self.stale.records
                if (actor is None or r.actor == actor) and (resource is None or r.resource == resource)]

    def conflicts(self, *, actor: str | None = None, resource: str | None = None) -> list[AuditEntry]:
        return [e for e in self.store.audit.conflicts()
                if (actor is None or e.actor == actor) and (resource is None or e.resource == resource)]

    def summary(self) -> dict[str, Any]:
        """Counts of requests, conflicts and stale overwrites by resource and by actor."""
        audit = self.store.audit
        writes = [e for e in audit if e.is_write]
        return {
            "virtual_seconds": round(self.now, 6),
            "requests": len(audit),
            "writes": len(writes),
            "conflicts": len(audit.conflicts()),
            "conflicts_by_resource": dict(sorted(audit.conflict_counts("resource").items())),
            "conflicts_by_actor": dict(sorted(audit.conflict_counts("actor").items())),
            "stale_overwrites": len(self.stale.records),
            "stale_by_resource": dict(sorted(self.stale.by_resource().items())),
            "stale_by_actor": dict(sorted(self.stale.by_actor().items())),
            "requests_by_actor": dict(sorted(Counter(e.actor for e in audit).items())),
            "controllers": {f"{m.name}/{c.name}": c.stats() for m in self.managers.values()
                            for c in m.controllers.values()},
        }

    def timeline(self, **filters: Any) -> Timeline:
        """The audit log as a PR #508-style timeline; see :meth:`fakekube.sim.timeline.Timeline.from_audit`."""
        from fakekube.audit import Timeline

        return Timeline.from_audit(self.store.audit, stale=self.stale.records, **filters)

    def reconcile_errors(self) -> list[Any]:
        return [e for m in self.managers.values() for c in m.controllers.values() for e in c.error_log]
