"""The CPU of one controller process: a few cores that every goroutine's work queues for, in virtual time.

A controller manager is one Go process. ``GOMAXPROCS`` (the container's CPU limit since Go 1.25, otherwise the
node's CPU count) bounds how many goroutines run at once; the others wait in run queues. Go's scheduler
(``runtime/proc.go``) keeps a FIFO run queue per P plus a global one, and a goroutine made runnable by the
network poller (a response or a watch event arriving) is appended to them (``injectglist``). A goroutine
runs until it blocks — for a controller, microseconds: encode a body, decode a response, log a line, copy an
object out of the cache — long before the 10 ms after which ``sysmon`` would preempt it. So the process is a
**first-come, first-served queue with ``cores`` servers**, not processor sharing, and that is what
:class:`Cpu` is: a job submitted at ``now`` with ``cost`` seconds of CPU starts when the earliest core is
free and holds it for ``cost``; jobs start in the order they were submitted.

What costs what is a :class:`CpuModel` (``ClusterModel.cpu``): per API request (encoding the body, decoding
the answer), per watch event (decoding it, updating the indexer, calling the handlers), per object copied
out of the cache, per reconcile pass (the controller's own work and its log lines). Off (``None``) unless a
model says otherwise; docs/simulation.md ("CPU") has the sources and docs/reproducing-pr-508.md what it does
to the seed-load count.

The queue itself draws no random numbers; costs given as distributions are drawn from the manager's own
``cpu`` stream, so a run stays the same for a seed.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .lag import Lag

if TYPE_CHECKING:
    from .scheduler import Scheduler

__all__ = ["Cpu", "CpuModel"]

_COSTS = ("encode", "decode", "event", "copy", "pass_")


@dataclass(frozen=True)
class CpuModel:
    """How many cores a controller process has and what its operations cost (virtual seconds of CPU).

    - ``cores`` — ``GOMAXPROCS``;
    - ``encode`` — building one request (serialising the body) before it is sent;
    - ``decode`` — reading one response (deserialising the object) before the caller goes on;
    - ``event`` — one watch event: decoding it, updating the indexer, calling the handlers (the informer's
      consumer pays it, in order, on top of its ``handling``);
    - ``copy`` — one object copied out of the cache (controller-runtime deep-copies on Get and per listed
      item);
    - ``pass_`` — one reconcile pass's own work outside those (its log lines, metrics, tracing span).
    """

    cores: int = 2
    encode: Lag = field(default_factory=Lag.zero)
    decode: Lag = field(default_factory=Lag.zero)
    event: Lag = field(default_factory=Lag.zero)
    copy: Lag = field(default_factory=Lag.zero)
    pass_: Lag = field(default_factory=Lag.zero)
    source: str = ""

    def __post_init__(self) -> None:
        if int(self.cores) < 1:
            raise ValueError(f"a CPU needs at least one core, not {self.cores}")
        object.__setattr__(self, "cores", int(self.cores))
        for name in _COSTS:
            object.__setattr__(self, name, Lag.coerce(getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"cores": self.cores, **{n.rstrip("_"): getattr(self, n).to_dict() for n in _COSTS}}
        if self.source:
            data["source"] = self.source
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CpuModel:
        names = {n.rstrip("_"): n for n in _COSTS}
        known = {"cores", "source", *names}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown cpu model fields: {', '.join(sorted(unknown))}")
        costs = {names[k]: Lag.from_dict(v) for k, v in data.items() if k in names}
        return cls(cores=int(data.get("cores", 2)), source=str(data.get("source", "")), **costs)



class Cpu:
    """``cores`` servers, first come first served, in virtual time.

    ``delay(cost)`` submits a job now and returns how long the submitter waits for it to finish (queueing
    plus ``cost``); a job of zero cost is free and waits for nothing. Because jobs are submitted in time
    order, the earliest-free core at submission is the one the job gets: the finish time is exact for a
    FIFO multi-server queue and costs one heap operation.
    """

    def __init__(self, scheduler: Scheduler, model: CpuModel, rng: random.Random) -> None:
        self.scheduler = scheduler
        self.model = model
        self.cores = model.cores
        self.rng = rng
        self._free = [0.0] * model.cores  # a heap: when each core is next free
        self.jobs = 0  # queued jobs (a goroutine the network woke)
        self.held = 0  # work done by running goroutines on the core they hold
        self.busy = 0.0  # CPU seconds handed out
        self.waited = 0.0  # seconds jobs spent queued before starting
        self.max_wait = 0.0
        self._costs = {name: getattr(model, name) for name in _COSTS}

    def finish_at(self, cost: float) -> float:
        """Submit ``cost`` seconds of work now; when it is done."""
        now = self.scheduler.now
        if cost <= 0:
            return now
        free = self._free
        start = free[0] if free[0] > now else now
        heapq.heapreplace(free, start + cost)
        wait = start - now
        self.jobs += 1
        self.busy += cost
        self.waited += wait
        if wait > self.max_wait:
            self.max_wait = wait
        return start + cost

    def delay(self, cost: float) -> float:
        return self.finish_at(cost) - self.scheduler.now

    def keep(self, cost: float) -> float:
        """``cost`` seconds of work by a goroutine that is already running: it keeps its core (Go hands the
        CPU on only when a goroutine blocks), so it does not queue; it runs now and holds a core that long,
        which is what the queued jobs wait for. Returns ``cost``."""
        if cost <= 0:
            return 0.0
        now = self.scheduler.now
        free = self._free
        heapq.heapreplace(free, (free[0] if free[0] > now else now) + cost)
        self.held += 1
        self.busy += cost
        return cost

    def cost(self, operation: str, count: int = 1) -> float:
        """The CPU one ``operation`` (``encode``, ``decode``, ``event``, ``copy``, ``pass_``) costs, ``count``
        times (one draw: a list's items are copied in one go)."""
        lag = self._costs[operation]
        if lag.is_zero or count <= 0:
            return 0.0
        return lag.sample(self.rng) * count

    def run(self, operation: str, count: int = 1) -> float:
        """``operation`` by a goroutine the network just woke (a response arrived): it queues for a core.
        The wait until it is done (sleep that long)."""
        return self.delay(self.cost(operation, count))

    def run_held(self, operation: str, count: int = 1) -> float:
        """``operation`` by a goroutine that is running (building a request, copying from the cache, the
        pass's own work): no queueing, it holds its core (:meth:`keep`). The time it takes."""
        return self.keep(self.cost(operation, count))

    def stats(self) -> dict[str, float]:
        now = self.scheduler.now
        return {"cores": self.cores, "jobs": self.jobs, "held": self.held, "cpu_seconds": self.busy,
                "utilisation": self.busy / (self.cores * now) if now > 0 else 0.0,
                "mean_wait": self.waited / self.jobs if self.jobs else 0.0, "max_wait": self.max_wait}

    def __repr__(self) -> str:
        return f"<Cpu cores={self.cores} jobs={self.jobs}>"
