"""Controllers: a reconcile function, a workqueue, N workers, and the watches that feed the queue.

Builder methods follow controller-runtime's ``builder``: ``for_`` (the object's own key), ``owns`` (the
controller owner of the old and the new object, matched by group and kind), ``watches`` (a mapping
function, applied to the old and the new object on update) and ``watches_raw`` (arbitrary callbacks that
enqueue nothing). The result handling follows ``pkg/internal/controller/controller.go`` (reconcileHandler):

- an exception → ``add_rate_limited`` (the returned result is ignored), except ``TerminalError`` → forget;
- ``Result(requeue_after=d)`` → ``forget`` then ``add_after(d)``;
- ``Result(requeue=True)`` → ``add_rate_limited``;
- ``Result()`` / ``None`` → ``forget``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from fakekube.jsonvalues import json_copy

from . import predicates as preds
from .fifoqueue import FifoWorkQueue
from .informer import InformerHandler
from .scheduler import _Sleep
from .workqueue import LOW_PRIORITY, WorkQueue

if TYPE_CHECKING:
    from fakekube.resources import ResourceType

    from .manager import Manager
    from .ratelimit import RateLimiter

Obj = dict[str, Any]


class Request(NamedTuple):
    """reconcile.Request: the key of one object.

    A named tuple: the workqueue hashes and compares its keys on every add, hand-out and ``done``, and a
    tuple's hash and equality are C's (the same values, and orders, as the frozen dataclass it was).
    """

    namespace: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @classmethod
    def of(cls, obj: Obj) -> Request:
        meta = obj["metadata"]
        # tuple.__new__ directly: the named tuple's own __new__ is a Python function, and every event asks.
        return _new_tuple(cls, (meta.get("namespace") or None, meta["name"]))


_new_tuple = tuple.__new__


@dataclass(frozen=True, slots=True)
class Result:
    """reconcile.Result: ``requeue_after`` seconds (0 = none); ``requeue`` is the deprecated flag."""

    requeue_after: float = 0.0
    requeue: bool = False


class TerminalError(Exception):
    """reconcile.TerminalError: logged, not retried."""


class EventHandler:
    """Raw callbacks for ``watches_raw``: ``on_add(obj)``, ``on_update(old, new)``, ``on_delete(obj)``.

    They receive copies, may do anything (fill an in-memory queue, ...) and enqueue nothing by themselves.
    """

    def __init__(self, on_add: Callable[[Obj], Any] | None = None,
                 on_update: Callable[[Obj, Obj], Any] | None = None,
                 on_delete: Callable[[Obj], Any] | None = None) -> None:
        self.on_add = on_add
        self.on_update = on_update
        self.on_delete = on_delete


Reconcile = Callable[[Request], Awaitable[Result | None]]
MapFunc = Callable[[Obj], Iterable[Request]]


def _checks(predicates: Iterable[preds.Predicate | Callable[[Obj], bool]] | None
            ) -> tuple[list[Callable[[Obj], bool]], list[Callable[[Obj, Obj], bool]], list[Callable[[Obj], bool]]]:
    """The predicates' bound create/update/delete checks, looked up once rather than on every event."""
    filters = preds.coerce_all(predicates)
    return [p.create for p in filters], [p.update for p in filters], [p.delete for p in filters]


@dataclass(slots=True)
class ReconcileError:
    time: float
    controller: str
    request: Request
    error: BaseException

    def __str__(self) -> str:
        return f"{self.time:.6f}s {self.controller} {self.request}: {type(self.error).__name__}: {self.error}"


class Controller:
    """A reconcile function, its workqueue and workers.

    The queue is controller-runtime's priority queue (``priority_queue=True``, the default since v0.23,
    whose default rate limiter is the per-item backoff alone) or client-go's classic workqueue with
    ``DefaultTypedControllerRateLimiter`` (the default before v0.23): ``pkg/controller/controller.go``.
    """

    def __init__(self, manager: Manager, name: str, reconcile: Reconcile, workers: int = 1, *,
                 priority_queue: bool = True, rate_limiter: RateLimiter | None = None) -> None:
        self.manager = manager
        self.sim = manager.sim
        self.name = name
        self.reconcile = reconcile
        self.workers = workers
        queue_type = WorkQueue if priority_queue else FifoWorkQueue
        self.queue: WorkQueue | FifoWorkQueue = queue_type(self.sim.scheduler, rate_limiter, name=name)
        self.for_type: ResourceType | None = None
        self.reconciles = 0
        self.errors = 0
        self.requeues_after = 0
        self.active = 0
        self.max_active = 0
        self.error_log: list[ReconcileError] = []
        self.max_error_log = 1000
        self._started = False
        self._tasks: list[Any] = []

    # -- builder --------------------------------------------------------------------------------------

    def for_(self, resource: str | ResourceType,
             predicates: Iterable[preds.Predicate | Callable[[Obj], bool]] | None = None) -> Controller:
        rt = self.sim.resolve(resource)
        self.for_type = rt
        creates, updates, deletes = _checks(predicates)
        add = self.queue.add

        def on_add(obj: Obj, initial: bool) -> None:
            for check in creates:
                if not check(obj):
                    return
            add(Request.of(obj), LOW_PRIORITY if initial else 0)

        def on_update(old: Obj, new: Obj) -> None:
            for check in updates:
                if not check(old, new):
                    return
            add(Request.of(new))

        def on_delete(obj: Obj) -> None:
            for check in deletes:
                if not check(obj):
                    return
            add(Request.of(obj))

        self._watch(rt, InformerHandler(on_add, on_update, on_delete))
        return self

    def owns(self, resource: str | ResourceType,
             predicates: Iterable[preds.Predicate | Callable[[Obj], bool]] | None = None,
             only_controller: bool = True) -> Controller:
        """EnqueueRequestForOwner(For type, OnlyControllerOwner): the owner of the old and of the new object."""
        rt = self.sim.resolve(resource)
        creates, updates, deletes = _checks(predicates)
        add = self.queue.add

        def owners(obj: Obj) -> list[Request]:
            owner = self.for_type
            meta = obj["metadata"]
            refs = meta.get("ownerReferences")
            if owner is None or not refs:
                return []
            found = []
            kind = owner.kind
            for ref in refs:
                if only_controller and not ref.get("controller"):
                    continue
                if ref.get("kind") == kind and ref.get("apiVersion", "").rpartition("/")[0] == owner.group:
                    ns = meta.get("namespace") if owner.namespaced else None
                    found.append(_new_tuple(Request, (ns or None, ref.get("name", ""))))  # as Request.of
            return found

        def on_add(obj: Obj, initial: bool) -> None:
            for check in creates:
                if not check(obj):
                    return
            for req in owners(obj):
                add(req, LOW_PRIORITY if initial else 0)

        def on_update(old: Obj, new: Obj) -> None:
            for check in updates:
                if not check(old, new):
                    return
            # One add per distinct owner (upstream collects old and new owners in a map first): a second
            # add of the same key would otherwise find it handed out already and mark it dirty.
            after = owners(new)
            if old["metadata"].get("ownerReferences") == new["metadata"].get("ownerReferences"):
                # Equal references (one C comparison; the usual update leaves them alone) give the same owners:
                # the two versions are one object's, so its namespace is the same too.
                before = after
            else:
                before = owners(old)
            if len(after) == 1 and before == after:  # the usual event: one unchanged owner
                add(after[0])
                return
            for req in dict.fromkeys(before + after):
                add(req)

        def on_delete(obj: Obj) -> None:
            for check in deletes:
                if not check(obj):
                    return
            for req in owners(obj):
                add(req)

        self._watch(rt, InformerHandler(on_add, on_update, on_delete))
        return self

    def watches(self, resource: str | ResourceType, map_fn: MapFunc,
                predicates: Iterable[preds.Predicate | Callable[[Obj], bool]] | None = None) -> Controller:
        """EnqueueRequestsFromMapFunc: ``map_fn`` gets a copy of the object; on update, old and new."""
        rt = self.sim.resolve(resource)
        filters = preds.coerce_all(predicates)
        queue = self.queue

        def enqueue(obj: Obj, priority: int = 0, seen: dict[Request, None] | None = None) -> None:
            for req in map_fn(json_copy(obj)) or ():
                if seen is not None:
                    if req in seen:
                        continue
                    seen[req] = None
                queue.add(req, priority)

        def on_add(obj: Obj, initial: bool) -> None:
            if all(p.create(obj) for p in filters):
                enqueue(obj, LOW_PRIORITY if initial else 0)

        def on_update(old: Obj, new: Obj) -> None:
            if all(p.update(old, new) for p in filters):
                seen: dict[Request, None] = {}  # upstream's reqs map: old and new map to one add per request
                enqueue(old, seen=seen)
                enqueue(new, seen=seen)

        def on_delete(obj: Obj) -> None:
            if all(p.delete(obj) for p in filters):
                enqueue(obj)

        self._watch(rt, InformerHandler(on_add, on_update, on_delete))
        return self

    def watches_raw(self, resource: str | ResourceType, handler: EventHandler) -> Controller:
        rt = self.sim.resolve(resource)
        on_add = (lambda obj, initial: handler.on_add(json_copy(obj))) if handler.on_add else None
        on_update = (lambda old, new: handler.on_update(json_copy(old), json_copy(new))) \
            if handler.on_update else None
        on_delete = (lambda obj: handler.on_delete(json_copy(obj))) if handler.on_delete else None
        self._watch(rt, InformerHandler(on_add, on_update, on_delete))
        return self

    def _watch(self, rt: ResourceType, handler: InformerHandler) -> None:
        self.start()
        self.manager.informer(rt).add_handler(handler)

    # -- running --------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        for i in range(self.workers):
            self._tasks.append(self.sim.scheduler.spawn(self._worker(), f"{self.name}-worker-{i}"))

    async def _worker(self) -> None:
        queue = self.queue
        reconcile = self.reconcile
        sim = self.sim
        cpu = self.manager.cpu
        latency = self.manager.latency
        starting = self.manager.passes_starting if latency is not None and latency.has_client_time else None
        me = sim.scheduler.current
        try_get, wait, priority_of, forget, done = queue.try_get, queue.wait, queue.priority_of, queue.forget, queue.done
        while True:
            key = try_get()
            if key is None:
                key = await wait()
            self.active += 1
            if self.active > self.max_active:
                self.max_active = self.active
            self.reconciles += 1
            # A requeue keeps the priority the key was handed out with: asked only on the paths that requeue
            # (the key stays locked until ``done``, so the queue answers the same then as now).
            try:
                if cpu is not None:  # the pass's own work (log lines, metrics, span), on the worker's core
                    await _Sleep(cpu.run_held("pass_"))
                if starting is not None:
                    starting.add(me)
                result = await reconcile(key)
            except TerminalError as exc:
                self._log_error(key, exc)
                forget(key)
            except Exception as exc:  # noqa: BLE001 - a returned error in Go terms
                self._log_error(key, exc)
                queue.add_rate_limited(key, priority_of(key))
                if sim.strict and isinstance(exc, sim.bug_exceptions):
                    self.active -= 1
                    done(key)
                    raise
            else:
                if result is None:
                    forget(key)
                elif result.requeue_after > 0:
                    forget(key)
                    queue.add_after(key, result.requeue_after, priority_of(key))
                    self.requeues_after += 1
                elif result.requeue:
                    queue.add_rate_limited(key, priority_of(key))
                else:
                    forget(key)
            if starting is not None:
                starting.discard(me)
            self.active -= 1
            done(key)

    def _log_error(self, key: Request, exc: BaseException) -> None:
        self.errors += 1
        if len(self.error_log) < self.max_error_log:
            self.error_log.append(ReconcileError(self.sim.now, self.name, key, exc))

    def enqueue(self, key: Request | str, namespace: str | None = None, after: float = 0.0) -> None:
        """Add a key by hand (``Request`` or a name plus namespace)."""
        req = key if isinstance(key, Request) else Request(namespace, key)
        if after > 0:
            self.queue.add_after(req, after)
        else:
            self.queue.add(req)

    def stats(self) -> dict[str, Any]:
        return {"reconciles": self.reconciles, "errors": self.errors, "requeues_after": self.requeues_after,
                "max_active": self.max_active, "queue": len(self.queue), "processing": self.queue.processing}

    def __repr__(self) -> str:
        return f"<Controller {self.name} workers={self.workers}>"
