"""The timing model of a simulated cluster: what ``fakekube fit`` estimates and ``--model FILE`` loads.

Every field is a delay in virtual seconds (a :class:`~fakekube.sim.Lag`):

- ``latency`` — per-verb (and per-resource) request round trips and where the commit falls in them
  (:class:`~fakekube.sim.RequestLatency`);
- ``cache_lag`` — a watch stream's transport delay, commit to the informer (drawn once per stream, or per
  event, in order, with ``cache_lag_per_event``);
- ``handling`` — what the informer's one consumer spends on each event (applying it, calling handlers);
- ``event_delay`` — the event broadcaster's wait before it POSTs an Event;
- ``cache_read_latency`` — a fixed stand-in for a cache read's cost, the same idle and under load (a
  sensitivity knob; ``cpu`` is the mechanism);
- ``cpu`` — the controller process's cores and what its operations cost (:class:`~fakekube.sim.cpu.CpuModel`);
  ``None`` (the default): work costs no time;
- ``pod_scheduled`` … ``pod_ready`` — the kubelet's (and scheduler's) steps of a starting pod.

``source`` and ``derivation`` say where the numbers came from (``fakekube fit`` fills them in); they are
carried through JSON unchanged and do not affect a run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .cpu import CpuModel
from .lag import Lag
from .latency import RequestLatency

POD_STEPS = ("pod_scheduled", "pod_initialized", "pod_running", "pod_containers_ready", "pod_ready")
KUBELET_STEPS = {"pod_scheduled": "PodScheduled", "pod_initialized": "Initialized", "pod_running": "Running",
                 "pod_containers_ready": "ContainersReady", "pod_ready": "Ready"}
_LAGS = ("cache_lag", "handling", "event_delay", "cache_read_latency", *POD_STEPS)


@dataclass(frozen=True)
class ClusterModel:
    latency: RequestLatency = field(default_factory=RequestLatency)
    cache_lag: Lag = field(default_factory=Lag.zero)
    handling: Lag = field(default_factory=Lag.zero)
    event_delay: Lag = field(default_factory=lambda: Lag.fixed(0.001))
    cache_read_latency: Lag = field(default_factory=Lag.zero)
    pod_scheduled: Lag = field(default_factory=lambda: Lag.uniform(0.002, 0.010))
    pod_initialized: Lag = field(default_factory=lambda: Lag.uniform(0.010, 0.050))
    pod_running: Lag = field(default_factory=lambda: Lag.uniform(0.050, 0.300))
    pod_containers_ready: Lag = field(default_factory=lambda: Lag.uniform(0.010, 0.100))
    pod_ready: Lag = field(default_factory=lambda: Lag.uniform(0.000, 0.005))
    cpu: CpuModel | None = None
    cache_lag_per_event: bool = False
    source: str = ""
    derivation: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name in _LAGS:
            object.__setattr__(self, name, Lag.coerce(getattr(self, name)))

    # -- using it -------------------------------------------------------------------------------------

    def manager_options(self) -> dict[str, Any]:
        """Keyword arguments for ``sim.manager(...)``: request timing, watch delay, handling, events, CPU."""
        options: dict[str, Any] = {"latency": self.latency, "cache_lag": self.cache_lag, "handling": self.handling,
                                   "event_delay": self.event_delay, "cache_read_latency": self.cache_read_latency}
        if self.cpu is not None:
            options["cpu"] = self.cpu
        if self.cache_lag_per_event:
            options["cache_lag_per_event"] = True
        return options

    def kubelet_options(self) -> dict[str, Any]:
        """Keyword arguments for ``sim.kubelet(...)``: its steps, and the same API server and watch timing."""
        options = {"pod_start_delays": {KUBELET_STEPS[s]: getattr(self, s) for s in POD_STEPS},
                   "latency": self.latency, "watch_lag": self.cache_lag, "handling": self.handling}
        if self.cache_lag_per_event:
            options["watch_lag_per_event"] = True
        return options

    def with_changes(self, **changes: Any) -> ClusterModel:
        return replace(self, **changes)

    # -- JSON -----------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"source": self.source, "latency": self.latency.to_dict()}
        data.update({name: getattr(self, name).to_dict() for name in _LAGS})
        if self.cpu is not None:
            data["cpu"] = self.cpu.to_dict()
        if self.cache_lag_per_event:  # models written before it existed stay byte-identical
            data["cache_lag_per_event"] = True
        if self.derivation:
            data["derivation"] = self.derivation
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClusterModel:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown cluster model fields: {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {name: Lag.from_dict(data[name]) for name in _LAGS if name in data}
        if "latency" in data:
            values["latency"] = RequestLatency.from_dict(data["latency"])
        if data.get("cpu") is not None:
            values["cpu"] = CpuModel.from_dict(data["cpu"])
        if "cache_lag_per_event" in data:
            values["cache_lag_per_event"] = bool(data["cache_lag_per_event"])
        return cls(source=str(data.get("source", "")), derivation=dict(data.get("derivation") or {}), **values)

    @classmethod
    def from_json(cls, text: str) -> ClusterModel:
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: str | Path) -> ClusterModel:
        return cls.from_json(Path(path).read_text())
