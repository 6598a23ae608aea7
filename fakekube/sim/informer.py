"""Shared informer caches: one per kind per manager, fed by the store's watch events through a queue.

A client-go shared informer is a pipeline: the watch stream carries each event from the API server (the
transport delay: watch-cache dispatch and the network), the reflector pushes it into a DeltaFIFO, and one
goroutine (``controller.processLoop``) pops the events in order, applies each to the indexer and hands it
to the event handlers. Here:

- the **transport delay** is drawn once per watch stream (``lag``, from the cache's seeded stream), so the
  events of one kind arrive in commit order, each that long after its commit; or, with ``per_event``, drawn
  for each event and held back behind the event before it (one stream delivers in order, as a TCP connection
  does), so one stream's events are late by different amounts, as the probes measured on the real apiserver
  (docs/reproducing-pr-508.md, "The client's own time");
- one **consumer** then applies them in order, each taking ``handling`` (drawn per event): an event that
  arrives while the consumer is busy waits. The cache's lag is therefore the transport delay plus the queue
  in front of the consumer, and grows with the rate of events the way a queue's wait does — not with the
  tail of a per-event random delay.

The cache calls its handlers as it applies an event and never goes backwards. It keeps the store's immutable
event objects by reference and copies on read, as controller-runtime's cache does (it deep-copies on
Get/List by default).

Test hooks (Sieve-style, for targeted races): ``hold()`` stops delivery (the cache freezes and events pile
up), ``release()`` lets the consumer work through the backlog (at ``handling`` per event);
``serve_stale(obj)`` makes reads return an older copy of one object until ``clear_stale()``.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fakekube.fieldselectors import FieldSelector
from fakekube.jsonvalues import json_copy
from fakekube.selectors import LabelSelector
from fakekube.watch import ADDED, DELETED, MODIFIED, WatchEvent

from .lag import Lag

if TYPE_CHECKING:
    from fakekube.resources import ResourceType

    from .cpu import Cpu
    from .scheduler import Scheduler

Obj = dict[str, Any]
IndexFunc = Callable[[Obj], list[str]]


class InformerHandler:
    """Callbacks for an informer's events (``Informer.add_handler``): ``on_add(obj, initial)`` with ``initial``
    True for objects listed when the handler was registered, ``on_update(old, new)``, ``on_delete(obj)``.
    Objects are the cache's shared copies: read, never mutate."""

    __slots__ = ("on_add", "on_update", "on_delete")

    def __init__(self, on_add: Callable[[Obj, bool], None] | None = None,
                 on_update: Callable[[Obj, Obj], None] | None = None,
                 on_delete: Callable[[Obj], None] | None = None) -> None:
        self.on_add = on_add
        self.on_update = on_update
        self.on_delete = on_delete


class Informer:
    def __init__(self, rt: ResourceType, scheduler: Scheduler, lag: Lag, rng: random.Random, actor: str,
                 store: Any, *, handling: Lag | None = None, cpu: Cpu | None = None, per_event: bool = False) -> None:
        self.rt = rt
        self.scheduler = scheduler
        self.lag = lag  # the distribution of this stream's transport delay
        self.handling = handling if handling is not None else Lag.zero()
        self.cpu = cpu  # the process's cores (cpu.py): each event's decoding and handling queues for one
        self.rng = rng
        self.transport = 0.0  # this stream's transport delay, drawn when the watch starts
        self.per_event = per_event and not lag.is_zero  # or a draw per event, in order behind the one before
        self._last_arrival = 0.0
        self.actor = actor
        self.store = store
        self.by_ns: dict[str, dict[str, Obj]] = {}
        self.handlers: list[InformerHandler] = []
        # The handlers' callbacks by event type, collected once (add_handler): every event calls them.
        self._on_add: list[Callable[[Obj, bool], None]] = []
        self._on_update: list[Callable[[Obj, Obj], None]] = []
        self._on_delete: list[Callable[[Obj], None]] = []
        self.indexes: dict[str, tuple[IndexFunc, dict[str, dict[tuple[str, str], None]]]] = {}
        self.overrides: dict[tuple[str, str], Obj] = {}
        self._pending: deque[tuple[float, WatchEvent]] = deque()  # (arrival time, event), in commit order
        self._timer_at: float | None = None
        self._done_at: float | None = None  # when the consumer finishes the event at the head (None: idle)
        self.held = False
        self.started = False
        self.last_rv = "0"
        self.delivered = 0
        self._watch: Any = None
        self._drain_callback = self._drain  # bound once: every event arms a timer with it

    # -- lifecycle ------------------------------------------------------------------------------------

    def start(self) -> None:
        """LIST+WATCH: the initial state lands in the cache at once (as after WaitForCacheSync)."""
        if self.started:
            return
        self.started = True
        self.transport = self.lag.sample(self.rng) if not self.lag.is_zero else 0.0
        self._initial = True
        try:
            self._watch = self.store.watch(self.rt, on_event=self._on_event, actor=self.actor)
        finally:
            self._initial = False

    def stop(self) -> None:
        if self._watch is not None:
            self._watch.stop()

    # -- event intake ---------------------------------------------------------------------------------

    def _on_event(self, event: WatchEvent) -> None:
        if self._initial:
            self._apply(event, initial=True)
            return
        # Commits come in time order and the transport delay is the stream's, so arrivals are in order too; a
        # delay per event is held behind the one before it, so they stay in order.
        if self.per_event:
            at = self.scheduler.now + self.lag.sample(self.rng)
            if at < self._last_arrival:
                at = self._last_arrival
            self._last_arrival = at
        else:
            at = self.scheduler.now + self.transport
        self._pending.append((at, event))
        if self._timer_at is None and not self.held and self._done_at is None:
            self._arm(at)

    def _arm(self, at: float) -> None:
        self._timer_at = at
        self.scheduler.call_at(at, self._drain_callback)

    def _drain(self) -> None:
        """The consumer: apply the events that have arrived, one at a time, each after its handling cost."""
        self._timer_at = None
        now = self.scheduler.now
        pending = self._pending
        handling = self.handling
        cpu = self.cpu
        costly = not handling.is_zero or cpu is not None  # else applying an event takes no time
        if not costly and self._done_at is None:
            # The usual consumer: each event is applied as it arrives, nothing to wait for in between.
            apply = self._apply
            while pending and not self.held:
                at = pending[0][0]
                if at > now:
                    self._arm(at)
                    return
                apply(pending.popleft()[1], initial=False)
            return
        while pending and not self.held:
            done_at = self._done_at
            if done_at is None:
                at = pending[0][0]
                if at > now:
                    self._arm(at)
                    return
                if costly:
                    cost = handling.sample(self.rng) if not handling.is_zero else 0.0
                    if cpu is None:
                        done = now + cost
                    elif at == now:  # the consumer was idle: the network woke it, it queues for a core
                        done = cpu.finish_at(cost + cpu.cost("event"))
                    else:  # it was busy with the events before this one and goes on, on its core
                        done = now + cpu.keep(cost + cpu.cost("event"))
                    if done > now:
                        self._done_at = done
                        self._arm(done)
                        return
            elif done_at > now:
                self._arm(done_at)
                return
            self._done_at = None
            _, event = pending.popleft()
            self._apply(event, initial=False)

    # -- the cache ------------------------------------------------------------------------------------

    def _apply(self, event: WatchEvent, *, initial: bool) -> None:
        kind = event.type
        if kind not in (ADDED, MODIFIED, DELETED):
            return  # ERROR, BOOKMARK
        obj = event.raw
        meta = obj["metadata"]
        self.delivered += 1
        self.last_rv = meta.get("resourceVersion", self.last_rv)
        ns = meta.get("namespace") or ""
        name = meta["name"]
        bucket = self.by_ns.get(ns)
        if bucket is None:
            bucket = self.by_ns[ns] = {}
        old = bucket.get(name)
        if kind == DELETED:
            bucket.pop(name, None)
            if self.indexes and old is not None:
                self._unindex((ns, name), old)
            for on_delete in self._on_delete:
                on_delete(obj)
            return
        bucket[name] = obj
        if self.indexes:
            if old is not None:
                self._reindex((ns, name), old, obj)
            else:
                self._index((ns, name), obj)
        if old is None:
            for on_add in self._on_add:
                on_add(obj, initial)
        else:
            for on_update in self._on_update:
                on_update(old, obj)

    def add_handler(self, handler: InformerHandler) -> None:
        """Register a handler; objects already cached are replayed to it as initial adds."""
        self.handlers.append(handler)
        for callback, callbacks in ((handler.on_add, self._on_add), (handler.on_update, self._on_update),
                                    (handler.on_delete, self._on_delete)):
            if callback is not None:
                callbacks.append(callback)  # type: ignore[attr-defined]
        if handler.on_add is not None:
            for bucket in list(self.by_ns.values()):
                for obj in list(bucket.values()):
                    handler.on_add(obj, True)

    # -- indexes (mgr.GetFieldIndexer().IndexField) ------------------------------------------------------

    def add_index(self, field: str, func: IndexFunc) -> None:
        values: dict[str, dict[tuple[str, str], None]] = {}
        self.indexes[field] = (func, values)
        for ns, bucket in self.by_ns.items():
            for name, obj in bucket.items():
                for value in func(obj) or ():
                    values.setdefault(value, {})[(ns, name)] = None

    def _index(self, key: tuple[str, str], obj: Obj) -> None:
        for func, values in self.indexes.values():
            for value in func(obj) or ():
                values.setdefault(value, {})[key] = None

    def _reindex(self, key: tuple[str, str], old: Obj, new: Obj) -> None:
        """``_unindex(old)`` then ``_index(new)``, with the same result (orders included) for less work where an
        index's values did not change: the key goes to the end of each value's keys (a value left with no key
        is dropped and added again, so it goes to the end of the index), as removing and adding would."""
        for func, values in self.indexes.values():
            before = func(old) or ()
            after = func(new) or ()
            if before != after:
                self._unindex_values(key, before, values)
                for value in after:
                    values.setdefault(value, {})[key] = None
                continue
            for value in after if len(after) < 2 else dict.fromkeys(after):  # a repeated value counts once
                keys = values.get(value)
                if keys is None or (len(keys) == 1 and key in keys):
                    values.pop(value, None)
                    values[value] = {key: None}
                else:
                    keys.pop(key, None)
                    keys[key] = None

    @staticmethod
    def _unindex_values(key: tuple[str, str], found: Any, values: dict[str, dict[tuple[str, str], None]]) -> None:
        for value in found:
            keys = values.get(value)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del values[value]

    def _unindex(self, key: tuple[str, str], obj: Obj) -> None:
        for func, values in self.indexes.values():
            for value in func(obj) or ():
                keys = values.get(value)
                if keys is not None:
                    keys.pop(key, None)
                    if not keys:
                        del values[value]

    # -- reads ----------------------------------------------------------------------------------------

    def get_raw(self, namespace: str | None, name: str) -> Obj | None:
        ns = (namespace or "") if self.rt.namespaced else ""
        if self.overrides:
            stale = self.overrides.get((ns, name))
            if stale is not None:
                return stale
        bucket = self.by_ns.get(ns)
        return bucket.get(name) if bucket is not None else None

    def get(self, namespace: str | None, name: str) -> Obj | None:
        raw = self.get_raw(namespace, name)
        return json_copy(raw) if raw is not None else None

    def list_raw(self, namespace: str | None = None, labels: dict[str, str] | str | None = None,
                 fields: dict[str, str] | str | None = None) -> list[Obj]:
        ns = (namespace or None) if self.rt.namespaced else None
        field_map = _field_map(fields)
        candidates: list[Obj]
        indexed = [f for f in field_map if f in self.indexes]
        if indexed:
            first = indexed[0]
            keys = self.indexes[first][1].get(field_map[first], {})
            candidates = []
            for key in keys:
                if ns is not None and key[0] != ns:
                    continue
                obj = self.get_raw(key[0], key[1])
                if obj is not None:
                    candidates.append(obj)
            field_map = {k: v for k, v in field_map.items() if k != first}
        elif ns is not None:
            bucket = self.by_ns.get(ns) or {}
            candidates = list(bucket.values())
            if self.overrides:
                candidates = [self.overrides.get((ns, o["metadata"]["name"]), o) for o in candidates]
        else:
            candidates = [o for bucket in self.by_ns.values() for o in bucket.values()]
            if self.overrides:
                candidates = [self.overrides.get((o["metadata"].get("namespace") or "", o["metadata"]["name"]), o)
                              for o in candidates]
        if labels:
            if isinstance(labels, dict):
                items = list(labels.items())
                candidates = [o for o in candidates
                              if all((o["metadata"].get("labels") or {}).get(k) == v for k, v in items)]
            else:
                selector = _parse_labels(labels)
                candidates = [o for o in candidates if selector.matches(o["metadata"].get("labels") or {})]
        if field_map:
            candidates = [o for o in candidates if self._fields_match(o, field_map)]
        return candidates

    def list(self, namespace: str | None = None, labels: dict[str, str] | str | None = None,
             fields: dict[str, str] | str | None = None) -> list[Obj]:
        return [json_copy(o) for o in self.list_raw(namespace, labels, fields)]

    def _fields_match(self, obj: Obj, fields: dict[str, str]) -> bool:
        for field, value in fields.items():
            if field in self.indexes:
                if value not in (self.indexes[field][0](obj) or ()):
                    return False
                continue
            getter = self.rt.selectable_fields.get(field)
            if getter is None:
                # controller-runtime's cache only answers field selectors it has an index for.
                raise ValueError(f"field label not supported by the cache (add an index): {field}")
            if str(getter(obj) or "") != value:
                return False
        return True

    def __len__(self) -> int:
        return sum(len(b) for b in self.by_ns.values())

    # -- Sieve-style controls -------------------------------------------------------------------------

    def hold(self) -> None:
        self.held = True

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        if self._pending and self._timer_at is None:
            self._arm(self.scheduler.now)

    @property
    def backlog(self) -> int:
        return len(self._pending)

    def serve_stale(self, obj: Obj) -> None:
        meta = obj["metadata"]
        ns = (meta.get("namespace") or "") if self.rt.namespaced else ""
        self.overrides[(ns, meta["name"])] = json_copy(obj)

    def clear_stale(self, namespace: str | None = None, name: str | None = None) -> None:
        if name is None:
            self.overrides.clear()
        else:
            self.overrides.pop(((namespace or "") if self.rt.namespaced else "", name), None)


_LABEL_CACHE: dict[str, LabelSelector] = {}


def _parse_labels(text: str) -> LabelSelector:
    selector = _LABEL_CACHE.get(text)
    if selector is None:
        if len(_LABEL_CACHE) > 1024:
            _LABEL_CACHE.clear()
        selector = _LABEL_CACHE[text] = LabelSelector.parse(text)
    return selector


def _field_map(fields: dict[str, str] | str | None) -> dict[str, str]:
    if not fields:
        return {}
    if isinstance(fields, dict):
        return {k: str(v) for k, v in fields.items()}
    parsed = FieldSelector.parse(fields)
    result: dict[str, str] = {}
    for field, op, value in parsed.requirements:
        if op != "=":
            raise ValueError(f"only equality field selectors are supported by the cache: {fields}")
        result[field] = value
    return result
