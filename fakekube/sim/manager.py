"""The manager: shared informer caches, the rate limits and latency of its API client, its controllers.

One manager is one controller process (``ctrl.NewManager``). Its controllers share its caches; a test that
wants one controller to see a different (older, held back) world gives it a manager of its own.

Client-side throttling is per resource type, as in controller-runtime: its client builds one REST client per
GroupVersionKind (``pkg/client/client_rest_resources.go`` → ``apiutil.RESTClientForGVK`` →
client-go's ``rest.RESTClientForConfigAndClient``), and each REST client gets its own token bucket from the
shared ``rest.Config``'s QPS and burst. So ``qps``/``burst`` apply to each resource type separately.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .client import Client
from .controller import Controller, Reconcile
from .cpu import Cpu, CpuModel
from .informer import IndexFunc, Informer
from .lag import Lag
from .latency import RequestLatency
from .ratelimit import RateLimiter, TokenBucket
from .recorder import EventRecorder

__all__ = ["Manager", "TokenBucket"]

if TYPE_CHECKING:
    from fakekube.resources import ResourceType

    from .simulation import Simulation

Obj = dict[str, Any]


class Manager:
    """One controller process: shared caches, per-resource-type client rate limits, request timing.

    Timing of its requests: ``latency`` (a :class:`RequestLatency`: a round trip per verb and resource, cut
    at the commit) or, without it, ``api_latency`` before the commit and ``response_latency`` after it.
    Informers: ``cache_lag`` (or ``per_kind_lag[plural]``) is a watch stream's transport delay, drawn once
    per stream (per event with ``cache_lag_per_event``); ``handling`` is what applying one event to the cache and calling the handlers costs its one
    consumer (so events queue when they come faster). Controllers use controller-runtime's priority queue
    (``priority_queue=True``, its default since v0.23) or client-go's classic workqueue with the default
    controller rate limiter (``False``, the default before v0.23).
    """

    def __init__(self, sim: Simulation, name: str, *, cache_lag: Lag | float | None = None,
                 per_kind_lag: dict[str, Lag | float] | None = None, api_latency: Lag | float | None = None,
                 cache_read_latency: Lag | float | None = None, qps: float | None = None,
                 burst: int = 10, event_delay: Lag | float | None = None,
                 response_latency: Lag | float | None = None, latency: RequestLatency | None = None,
                 handling: Lag | float | None = None, priority_queue: bool = True,
                 cpu: CpuModel | None = None, cache_lag_per_event: bool = False) -> None:
        self.sim = sim
        self.scheduler = sim.scheduler
        self.name = name
        self.cache_lag = Lag.coerce(cache_lag)
        self.per_kind_lag = {k: Lag.coerce(v) for k, v in (per_kind_lag or {}).items()}
        self.cache_lag_per_event = cache_lag_per_event
        self.handling = Lag.coerce(handling)
        self.api_latency = Lag.coerce(api_latency)  # request sent → commit (audit entry, watch event)
        # commit → the caller has the response (default 0: the answer arrives at the commit instant). A real
        # write commits somewhere inside the round trip, so its watch event can beat its response.
        self.response_latency = Lag.coerce(response_latency)
        self.latency = latency
        self.cache_read_latency = Lag.coerce(cache_read_latency)
        self.qps = qps
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}  # one per resource type (controller-runtime's REST clients)
        self._bucket_of: dict[int, tuple[ResourceType, TokenBucket]] = {}
        self.priority_queue = priority_queue
        self.event_delay = Lag.coerce(event_delay if event_delay is not None else 0.001)
        self._latency_rng = sim.rng(name, "api-latency")
        self._cache_rng = sim.rng(name, "cache-read")
        self._response_rng = sim.rng(name, "api-response")  # its own stream: a zero lag draws nothing
        self._client_rng = sim.rng(name, "client-time")  # the same: a model without client time replays as before
        # Workers whose pass has not sent a request yet: its first request also waits the client time, the
        # pass's work between its cache reads and that request (latency.py, ``client``).
        self.passes_starting: set[Any] = set()
        self.informers: dict[str, Informer] = {}
        self.controllers: dict[str, Controller] = {}
        self.clients: dict[str, Client] = {}
        self.recorders: dict[str, EventRecorder] = {}
        self.requests = 0
        # The process's cores (fakekube/sim/cpu.py); None: its work costs no time, as before the model.
        self.cpu = Cpu(sim.scheduler, cpu, sim.rng(name, "cpu")) if cpu is not None else None

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
                                self.name, self.sim.store, handling=self.handling, cpu=self.cpu,
                                per_event=self.cache_lag_per_event)
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

    def controller(self, name: str, reconcile: Reconcile, workers: int = 1, *,
                   priority_queue: bool | None = None, rate_limiter: RateLimiter | None = None) -> Controller:
        """A controller with its own workqueue: the manager's queue kind unless ``priority_queue`` says
        otherwise, and upstream's default rate limiter for that queue unless ``rate_limiter`` is given."""
        if name in self.controllers:
            raise ValueError(f"controller {name!r} already exists in manager {self.name!r}")
        ctrl = Controller(self, name, reconcile, workers,
                          priority_queue=self.priority_queue if priority_queue is None else priority_queue,
                          rate_limiter=rate_limiter)
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

    def bucket_for(self, rt: ResourceType) -> TokenBucket | None:
        """The token bucket of ``rt``'s REST client (None without ``qps``)."""
        if not self.qps:
            return None
        found = self._bucket_of.get(id(rt))  # every request asks: skip building the key
        if found is not None and found[0] is rt:
            return found[1]
        key = f"{rt.plural}.{rt.group}"
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.qps, self.burst)
        self._bucket_of[id(rt)] = (rt, bucket)  # the type is kept alive, so its id is not reused
        return bucket

    @property
    def throttled(self) -> int:
        """Requests that waited for a token, over all resource types."""
        return sum(b.throttled for b in self.buckets.values())

    def request_timing(self, verb: str, rt: ResourceType, subresource: str | None) -> tuple[float, float | None]:
        """(wait before the commit, response leg) of the next request; the response leg is None when it is
        drawn after the commit (``response_latency``, from its own stream). The wait includes the token."""
        self.requests += 1
        after: float | None
        if self.latency is not None:
            before, after = self.latency.split(verb, rt.plural, subresource, self._latency_rng)
            latency = self.latency
            if latency.has_client_time:  # the caller's own time after the answer (latency.py, ``client``)
                after += latency.client_time(verb, rt.plural, subresource).sample(self._client_rng)
                starting = self.passes_starting
                if starting and self.scheduler.current in starting:
                    starting.discard(self.scheduler.current)
                    before += latency.client.sample(self._client_rng)
        else:
            before, after = self.api_latency.sample(self._latency_rng), None
        if self.qps:
            bucket = self.bucket_for(rt)
            if bucket is not None:
                before += bucket.reserve(self.scheduler.now)
        return before, after

    def response_delay(self) -> float:
        """Commit → response for a request timed with ``api_latency`` (``response_latency``)."""
        return self.response_latency.sample(self._response_rng) if not self.response_latency.is_zero else 0.0

    def cache_read_delay(self) -> float:
        """The next cache read's cost (``cache_read_latency``, from this manager's seeded stream)."""
        return self.cache_read_latency.sample(self._cache_rng)

    def read_delay(self, items: int = 1) -> float:
        """A cache read's cost: ``cache_read_delay()`` plus ``cpu_delay("copy", items)``, in one call."""
        delay = self.cache_read_latency.sample(self._cache_rng)
        cpu = self.cpu
        return delay + cpu.run_held("copy", items) if cpu is not None else delay + 0.0

    def cpu_delay(self, operation: str, count: int = 1) -> float:
        """``operation`` by a running goroutine of this process (cpu.py, ``run_held``): how long it takes on
        its core (0 without a CPU)."""
        cpu = self.cpu
        return cpu.run_held(operation, count) if cpu is not None else 0.0

    def __repr__(self) -> str:
        return f"<Manager {self.name}>"
