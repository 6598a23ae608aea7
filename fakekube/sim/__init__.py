"""fakekube.sim: a deterministic controller runtime in virtual time.

See docs/simulation.md for the model and docs/concepts.md for how each knob maps to controller-runtime.
"""

from fakekube.audit.timeline import Timeline
from fakekube.sim import predicates
from fakekube.sim.client import Client
from fakekube.sim.controller import Controller, EventHandler, ReconcileError, Request, Result, TerminalError
from fakekube.sim.fifoqueue import FifoWorkQueue
from fakekube.sim.gcactor import GarbageCollectorActor
from fakekube.sim.informer import Informer, InformerHandler
from fakekube.sim.kubelet import Kubelet
from fakekube.sim.lag import Lag
from fakekube.sim.latency import RequestLatency
from fakekube.sim.manager import Manager
from fakekube.sim.patches import Apply, JSONPatch, MergeFrom, Patch, RawPatch, StrategicMergeFrom
from fakekube.sim.ratelimit import (
    BucketRateLimiter,
    ItemExponentialBackoff,
    MaxOfRateLimiter,
    TokenBucket,
    default_controller_rate_limiter,
)
from fakekube.sim.recorder import EventRecorder
from fakekube.sim.scheduler import Future, Scheduler, Task
from fakekube.sim.simulation import Simulation, SimulationError
from fakekube.sim.stale import StaleDetector, StaleOverwrite
from fakekube.sim.workqueue import WorkQueue

__all__ = [
    "Apply",
    "BucketRateLimiter",
    "Client",
    "Controller",
    "EventHandler",
    "EventRecorder",
    "FifoWorkQueue",
    "Future",
    "GarbageCollectorActor",
    "Informer",
    "InformerHandler",
    "ItemExponentialBackoff",
    "JSONPatch",
    "Kubelet",
    "Lag",
    "Manager",
    "MaxOfRateLimiter",
    "MergeFrom",
    "Patch",
    "RawPatch",
    "ReconcileError",
    "Request",
    "RequestLatency",
    "Result",
    "Scheduler",
    "Simulation",
    "SimulationError",
    "StaleDetector",
    "StaleOverwrite",
    "StrategicMergeFrom",
    "Task",
    "TerminalError",
    "Timeline",
    "TokenBucket",
    "WorkQueue",
    "default_controller_rate_limiter",
    "predicates",
]
