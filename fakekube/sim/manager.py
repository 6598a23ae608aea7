"""The manager: shared informer caches, the token bucket and latency of its API client, its controllers.

One manager is one controller process (``ctrl.NewManager``). Its controllers share its caches; a test that
wants one controller to see a different (older, held back) world gives it a manager of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import Client
from .controller import Controller, Reconcile
from .informer import IndexFunc, Informer
from .lag import Lag
from .recorder import EventRecorder
from .scheduler import _Sleep

if TYPE_CHECKING:
    from fakekube.resources import ResourceType

    from .simulation import Simulation

Obj = dict[str, Any]


class TokenBucket:
    """client-go's flowcontrol token bucket (x/time/rate reservations): QPS refill, ``burst`` capacity."""

    def __init__(self, qps: float, burst: int) -> None:
        self.qps = qps
        self.burst = max(1, burst)
        self.tokens = float(self.burst)
        self.last = 0.0
        self.waited = 0.0
        self.throttled = 0

    def reserve(self, now: float) -> float:
        """Take one token; returns how long the caller has to wait for it."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.qps)
        self.last = now
        self.tokens -= 1.0
        if self.tokens >= 0:
            return 0.0
        wait = -self.tokens / self.qps
        self.waited += wait
        self.throttled += 1
        return wait


class Manager:
    def __init__(self, sim: Simulation, name: str, *, cache_lag: Lag | float | None = None,
                 per_kind_lag: dict[str, Lag | float] | None = None, api_latency: Lag | float | None = None,
                 cache_read_latency: Lag | float | None = None, qps: float | None = None,
                 burst: int = 10, event_delay: Lag | float | None = None,
                 response_latency: Lag | float | None = None) -> None:
        self.sim = sim
        self.name = name
        self.cache_lag = Lag.coerce(cache_lag)
        self.per_kind_lag = {k: Lag.coerce(v) for k, v in (per_kind_lag or {}).items()}
        self.api_latency = Lag.coerce(api_latency)  # request sent → commit (audit entry, watch event)
        # commit → the caller has the response (default 0: the answer arrives at the commit instant). A real
        # write commits somewhere inside the round trip, so its watch event can beat its response.
        self.response_latency = Lag.coerce(response_latency)
        self.cache_read_latency = Lag.coerce(cache_read_latency)
        self.bucket = TokenBucket(qps, burst) if qps else None
        self.event_delay = Lag.coerce(event_delay if event_delay is not None else 0.001)
        self._latency_rng = sim.rng(name, "api-latency")
        self._cache_rng = sim.rng(name, "cache-read")
        self._response_rng = sim.rng(name, "api-response")  # its own stream: a zero lag draws nothing
        self.informers: dict[str, Informer] = {}
        self.controllers: dict[str, Controller] = {}
        self.clients: dict[str, Client] = {}
        self.recorders: dict[str, EventRecorder] = {}
        self.requests = 0

    # -- caches ---------------------------------------------------------------------------------------

    def _lag_for(self, rt: ResourceType) -> Lag:
        for key in (f"{rt.plural}.{rt.group}", rt.plural, rt.kind):
            if key in self.per_kind_lag:
                return self.per_kind_lag[key]
        return self.cache_lag

    def informer(self, resource: str | ResourceType) -> Informer:
        """The shared cache for a kind, started on first use (as controller-runtime starts them lazily)."""
        rt = self.sim.resolve(resource)
        key = f"{rt.plural}.{rt.group}"
        informer = self.informers.get(key)
        if informer is None:
            informer = Informer(rt, self.sim.scheduler, self._lag_for(rt), self.sim.rng(self.name, "cache", key),
                                self.name, self.sim.store)
            self.informers[key] = informer
            informer.start()
        return informer

    def index_field(self, resource: str | ResourceType, field: str, extract: IndexFunc) -> None:
        """``mgr.GetFieldIndexer().IndexField``: ``client.list(..., fields={field: value})`` uses it."""
        self.informer(resource).add_index(field, extract)

    def hold(self, resource: str | ResourceType) -> None:
        """Stop delivering watch events of one kind to this manager's cache (they queue up)."""
        self.informer(resource).hold()

    def release(self, resource: str | ResourceType) -> None:
        self.informer(resource).release()

    def serve_stale(self, resource: str | ResourceType, obj: Obj) -> None:
        """Make this manager's cache return ``obj`` (an older copy) for its key until ``clear_stale``."""
        self.informer(resource).serve_stale(obj)

    def clear_stale(self, resource: str | ResourceType, name: str | None = None,
                    namespace: str | None = None) -> None:
        self.informer(resource).clear_stale(namespace, name)

    # -- controllers, clients, recorders ---------------------------------------------------------------

    def controller(self, name: str, reconcile: Reconcile, workers: int = 1) -> Controller:
        if name in self.controllers:
            raise ValueError(f"controller {name!r} already exists in manager {self.name!r}")
        ctrl = Controller(self, name, reconcile, workers)
        self.controllers[name] = ctrl
        ctrl.start()
        return ctrl

    def client(self, actor: str | None = None) -> Client:
        actor = actor or self.name
        existing = self.clients.get(actor)
        if existing is None:
            existing = self.clients[actor] = Client(self, actor)
        return existing

    def event_recorder(self, name: str, api: str = "events") -> EventRecorder:
        """``mgr.GetEventRecorderFor(name)``: ``api="events"`` writes ``events.k8s.io/v1`` Events (client-go's
        ``tools/events``, what controller-runtime's recorder uses since v0.23); ``api="core"`` writes core/v1
        Events (``tools/record``, as controllers built on older controller-runtime versions do).

        One recorder per name: asking again with another ``api`` is an error rather than a silent switch.
        """
        kind = EventRecorder.normalize_api(api)
        existing = self.recorders.get(name)
        if existing is None:
            existing = self.recorders[name] = EventRecorder(self, name, api=kind)
        elif existing.api != kind:
            raise ValueError(f"event recorder {name!r} already writes {existing.api} Events, not {kind}")
        return existing

    # -- request timing -------------------------------------------------------------------------------

    def _request(self) -> _Sleep:
        """The awaitable one API request costs: token-bucket wait plus latency."""
        self.requests += 1
        delay = self.api_latency.sample(self._latency_rng)
        if self.bucket is not None:
            delay += self.bucket.reserve(self.sim.scheduler.now)
        return _Sleep(delay)

    def response_delay(self) -> float:
        """Commit → response for the next request (``response_latency``)."""
        return self.response_latency.sample(self._response_rng)

    def cache_read_delay(self) -> float:
        """The next cache read's cost (``cache_read_latency``, from this manager's seeded stream)."""
        return self.cache_read_latency.sample(self._cache_rng)

    def __repr__(self) -> str:
        return f"<Manager {self.name}>"
