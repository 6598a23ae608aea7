"""The audit-log half of ``fakekube fit`` (`fakekube.sim.fit` has the method): round trips from stage
timestamps, the watch delay from the next request of a watching actor on a written object, the client's own
time from the gaps inside one pass, kubelet phases from a pod's create, binding and ``pods/status`` writes."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from fakekube.audit.native import read_requests

from .fit import DEFAULT_COMMIT_AT, as_ms, iqr_lag
from .lag import Lag
from .latency import RequestLatency
from .model import ClusterModel


class AuditLogFit:
    """The estimate from kube-apiserver's audit log (`fakekube.sim.fit`'s docstring, last paragraph)."""

    def __init__(self, requests: Sequence[Any], *, commit_at: float = DEFAULT_COMMIT_AT, source: str = "",
                 horizon: float = 1.0) -> None:
        self.requests = [r for r in requests if r.verb != "watch"]
        self.commit_at = commit_at
        self.source = source
        # A reaction further than this from the write is not counted (seconds). A watch delivers an event in
        # milliseconds to a second even under load; an actor's request seconds later is a re-queue (RequeueAfter,
        # the rate limiter's back-off) or another pass, not a reaction: on the real apiserver's log of PR #508's
        # small test (tests/reconcilers/pr508_real_runs/oracle-v0.4.6), 52 gaps up to 1 s (median 6 ms) and 18
        # at 1-5 s, the controller's 1-2 s and 5 s timers; with a 10 s horizon those made the fitted watch delay
        # uniform 4 ms - 2.2 s (docs/reproducing-pr-508.md, "The simulation as a prediction").
        self.horizon = horizon
        # The longest a pass's own work between two of its requests is taken to be (seconds). In Go it is
        # microseconds of CPU, on a shared machine milliseconds: on the real apiserver's logs of PR #508's small
        # test the in-pass gaps found below end at 66 ms, and the next gaps of one actor on one object in another
        # shape start at 328 ms (a pod's next phase, a sandbox's next pass), which are not the caller's work.
        self.pass_horizon = min(horizon, 0.1)
        self.round_trips: dict[str, list[float]] = {}
        for r in self.requests:
            self.round_trips.setdefault(_class(r), []).append(max(r.completed - r.received, 0.0))
        self.watchers: dict[str, set[str]] = {}
        for r in requests:
            if r.verb == "watch":
                self.watchers.setdefault(r.resource, set()).add(r.actor)
        self.reactions = self._reactions()
        self.client_by_class = self._client_times()
        self.client_times = sorted(v for values in self.client_by_class.values() for v in values)
        self.pods = self._pods()

    def _reactions(self) -> list[float]:
        """For each successful write and each other actor watching its resource: the gap from the write's
        completion to that actor's next request on the same object.

        Every watching actor counts, nodes too. Without kwok's reactions (``system:node:*``), the watch delay
        fitted from the real apiserver's logs of PR #508's small test (each reaction less the median client time)
        is 0-0.5 ms (v0.4.6) and 0-6.8 ms (v1.0.1), below the delivery the probes measured directly on the same
        idle machine (p50 0.8-2.6 ms, p90 1.4-16 ms; docs/reproducing-pr-508.md, "Watch event against
        response"); with them, 0-7.1 and 0-9.8 ms, which that measurement bears out. The median client time
        taken off is a pass's time between two requests, longer than its time before its first."""
        by_actor_object: dict[tuple[str, str, str | None], list[Any]] = {}
        for r in self.requests:
            by_actor_object.setdefault((r.actor, r.resource, r.name), []).append(r)
        out = []
        for w in self.requests:
            if not (w.is_write and w.ok and w.name):
                continue
            for actor in sorted(self.watchers.get(w.resource, ())):
                if actor == w.actor:
                    continue
                later = [r.received for r in by_actor_object.get((actor, w.resource, w.name), ())
                         if w.completed < r.received <= w.completed + self.horizon]
                if later:
                    out.append(min(later) - w.completed)
        return out

    def _client_times(self) -> dict[str, list[float]]:
        """The caller's own time after an answer, per class of the answered request (``client_classes`` of
        `fakekube.sim.RequestLatency`): from each request to the same actor's next request on the same object,
        when that one is a write in another shape (verb or subresource), the gap less the round trips of the
        actor's requests on other objects that the pass could have made in it, one after another.

        - the same object: a controller-runtime worker holds one key for its whole pass, so the pass's next
          request on that object follows its answer, after the pass's own work and its requests on other
          objects (a claim's adoption patches the sandbox and the pod between the claim's update and its status
          write), whose round trips the simulation pays itself and which are taken off;
        - another shape: a pass writes an object, and its status, at most once each; the same write again
          (``update status`` after ``update status``) is the next pass, re-queued by the first write's own
          watch event — a reaction, which the watch delay already counts;
        - a write: a read next (a kubelet's ``get pods`` after its status write) waits for a timer — the pod's
          next phase, which the kubelet steps model — not for the caller's work.

        Other workers of the same process send requests inside a pass's gaps too; one still in flight when the
        pass sends its next request cannot be the pass's (it has one in flight at a time) and is not taken off.
        On the real apiserver's logs of PR #508's small test this gives 0.9-5.2 ms after a claim's annotation
        patch and 1.9-26 ms after v1.0.1's status write (docs/reproducing-pr-508.md, "The client's own time")."""
        by_actor: dict[str, list[Any]] = {}
        for r in self.requests:
            by_actor.setdefault(r.actor, []).append(r)
        out: dict[str, list[float]] = {}
        for requests in by_actor.values():
            requests.sort(key=lambda r: r.received)
            last_on: dict[tuple[str, str | None, str], int] = {}
            for index, then in enumerate(requests):
                if not then.name:
                    continue
                key = (then.resource, then.namespace, then.name)
                before = last_on.get(key)
                last_on[key] = index
                if before is None or not then.is_write:
                    continue
                first = requests[before]
                start, end = first.completed, then.received
                if not 0.0 < end - start <= self.pass_horizon or (first.verb, first.subresource) == (then.verb, then.subresource):
                    continue
                idle = end - start - _chain([(r.received, r.completed) for r in requests[before + 1:index]
                                             if (r.resource, r.namespace, r.name) != key], start, end)
                if idle > 0.0:
                    out.setdefault(_class(first), []).append(idle)
        return out

    def _pods(self) -> dict[str, list[float]]:
        """Per created pod: its create, binding and kubelet pods/status writes (completion times), in order."""
        out: dict[str, list[float]] = {}
        created = {(r.namespace, r.name): r.completed for r in self.requests
                   if r.verb == "create" and r.resource == "pods" and not r.subresource and r.ok and r.name}
        for key, at in created.items():
            marks = [at]
            for r in self.requests:
                if (r.namespace, r.name) != key or not r.ok or r.completed <= at or r.resource != "pods":
                    continue
                if r.subresource == "binding" or (r.subresource == "status" and r.actor.startswith("system:node:")):
                    marks.append(r.completed)
            if len(marks) > 1:
                out[f"{key[0]}/{key[1]}"] = marks
        return out

    def latency(self) -> RequestLatency:
        classes = {c: iqr_lag(v) for c, v in sorted(self.round_trips.items())}
        medians = {c: statistics.median(v) for c, v in self.round_trips.items()}
        for verb in sorted({c.split(" ", 1)[0] for c in medians}):
            classes.setdefault(verb, Lag.fixed(round(statistics.median(
                [m for c, m in medians.items() if c.split(" ", 1)[0] == verb]), 6)))
        default = statistics.median(medians.values()) if medians else 0.0
        client = iqr_lag(self.client_times) if self.client_times else Lag.zero()
        by_class = {c: iqr_lag(v) for c, v in sorted(self.client_by_class.items())}
        return RequestLatency(default=Lag.fixed(round(default, 6)), classes=classes, commit_at=self.commit_at,
                              client=client, client_classes=by_class)

    def kubelet_steps(self) -> dict[str, Lag]:
        steps = {"pod_scheduled": [], "pod_initialized": [], "pod_running": []}  # type: dict[str, list[float]]
        for marks in self.pods.values():
            gaps = [b - a for a, b in zip(marks, marks[1:], strict=False)]
            for name, gap in zip(("pod_scheduled", "pod_initialized", "pod_running"), gaps, strict=False):
                steps[name].append(gap)
            if len(gaps) > 3:
                steps["pod_running"][-1] = sum(gaps[2:])  # later kubelet writes until Ready: one Running phase
        out = {k: iqr_lag(v) for k, v in steps.items() if v}
        if out:
            out.update({"pod_containers_ready": Lag.zero(), "pod_ready": Lag.zero()})
        return out

    def watch_delays(self) -> list[float]:
        """Each reaction less the reacting pass's own work before its first request (the median client time):
        the simulated pass pays that as client time, after reading its cache, so counting it in the watch delay
        as well would make the pass read the cache that much later than the real one did."""
        own = statistics.median(self.client_times) if self.client_times else 0.0
        return [max(r - own, 0.0) for r in self.reactions]

    def model(self) -> ClusterModel:
        delays = self.watch_delays()
        transport = iqr_lag(delays) if delays else Lag.zero()
        derivation = {
            "method": "audit log (fakekube.sim.fit: server round trips from stage timestamps, reaction from the "
                      "next request of a watching actor on the written object)",
            "commit_at": self.commit_at, "requests": len(self.requests),
            "round_trip_ms": {c: as_ms(v) for c, v in sorted(self.round_trips.items())},
            "reaction_ms": as_ms(self.reactions),
            "client_ms": {c: as_ms(v) for c, v in sorted(self.client_by_class.items())},
            "watchers": {k: sorted(v) for k, v in sorted(self.watchers.items())},
            "pods_ms": {k: as_ms([m - v[0] for m in v]) for k, v in sorted(self.pods.items())},
            "watch_delay": "drawn per event (in order): one stream's reactions in the log differ event by event",
            "handling": "not estimated (reactions do not separate the informer's queue from its transport): 0",
            "event_delay": "not in an audit log (the emitting call is not logged): 0",
        }
        # One watch stream's events are late by different amounts on the real apiserver (the reactions of one
        # actor to one resource here span milliseconds to tenths of a second, and the probes measured p50 0.8-2.6
        # ms against p90 1.4-16 ms on one idle stream): a delay per event, not one per stream.
        return ClusterModel(latency=self.latency(), cache_lag=transport, handling=Lag.zero(), event_delay=Lag.zero(),
                            cache_lag_per_event=True, source=self.source, derivation=derivation,
                            **self.kubelet_steps())


def fit_audit_log(text: str, *, commit_at: float = DEFAULT_COMMIT_AT, source: str = "") -> tuple[ClusterModel, list[str]]:
    """The cluster model an audit log implies, and the reader's problems (line numbers and why)."""
    read = read_requests(text)
    return AuditLogFit(read.requests, commit_at=commit_at, source=source).model(), read.problems


def _class(request: Any) -> str:
    """A request's timing class: ``<verb> <resource>[/<subresource>]``."""
    return f"{request.verb} {request.resource}" + (f"/{request.subresource}" if request.subresource else "")


def _chain(intervals: list[tuple[float, float]], start: float, end: float) -> float:
    """The round trips of the requests one pass could have made one after another inside [start, end]: from
    ``start``, the earliest request sent after it and answered before ``end``, then the same from its answer.
    A request still in flight when the next one of the pair is sent, or sent while another of the chain is in
    flight, is another worker's: a pass has one request in flight at a time."""
    total, at = 0.0, start
    for received, completed in sorted(intervals):
        if received >= at and completed <= end:
            total += completed - received
            at = completed
    return total
