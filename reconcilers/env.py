"""An agent-sandbox environment on fakekube.sim: the CRDs, one manager running the four controllers with the
flags of the #508 load test, a kubelet and a garbage collector.

The timing model stands for a regional GKE cluster under moderate load (docs/agent-sandbox.md has the
reasoning): API requests take a few milliseconds, watch events reach the shared informers tens of
milliseconds after the commit with a long tail, and pods need about one to three seconds from creation to
Ready.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakekube.clock import rfc3339
from fakekube.sim import Lag, Simulation, predicates
from reconcilers import claim, crd_paths, keys, sandbox, template, warmpool
from reconcilers.cache import register_controller_index, register_label_index
from reconcilers.indexes import ClaimCandidates, WarmPoolMembers
from reconcilers.strategies import WriteStrategies
from reconcilers.tracing import Tracer

MANAGER = "agent-sandbox-controller"


@dataclass(frozen=True)
class ClusterModel:
    """Latencies of the simulated cluster, in virtual seconds."""

    # One request's round trip, 2–8 ms, split at the etcd commit: request → commit, then commit → response.
    # With the split a write's watch event can reach the cache before the writer has its answer, as on a
    # cluster (putting the whole round trip before the commit made self-collisions more frequent).
    api_latency: Lag = Lag.uniform(0.001, 0.004)
    cache_lag: Lag = Lag.exponential(0.004, cap=0.250)  # commit to the informer's cache (watch delivery)
    event_delay: Lag = Lag.uniform(0.001, 0.010)  # the event broadcaster's asynchronous POST
    cache_read_latency: Lag = Lag.zero()  # time before each cache read (a pass's own CPU time)
    response_latency: Lag = Lag.uniform(0.001, 0.004)  # commit → response (docs/concepts.md)
    # Pod start, one kubelet/scheduler write per step (each bumps the pod's resourceVersion):
    pod_scheduled: Lag = Lag.uniform(0.020, 0.150)  # creation → PodScheduled (scheduler queue + binding)
    pod_initialized: Lag = Lag.uniform(0.200, 0.600)  # → Initialized (pod sandbox, CNI, no init containers)
    pod_running: Lag = Lag.uniform(0.500, 2.000)  # → Running with a pod IP (image already on the node)
    pod_containers_ready: Lag = Lag.uniform(0.010, 0.100)  # → ContainersReady (no readiness probe)
    pod_ready: Lag = Lag.uniform(0.000, 0.005)  # → Ready

    def to_dict(self) -> dict[str, str]:
        return {name: str(getattr(self, name)) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class ControllerFlags:
    """The controller manager's flags (cmd/agent-sandbox-controller/main.go), as the #508 run set them."""

    sandbox_workers: int = 400
    claim_workers: int = 400
    warmpool_workers: int = 1
    template_workers: int = 1
    client_qps: float | None = 1000.0
    client_burst: int = 2000
    enable_tracing: bool = True


@dataclass
class AgentSandboxEnv:
    """What a test or scenario needs to drive and inspect one simulated cluster."""

    sim: Simulation
    manager: Any
    strategies: WriteStrategies
    flags: ControllerFlags
    model: ClusterModel
    reconcilers: dict[str, Any] = field(default_factory=dict)
    controllers: dict[str, Any] = field(default_factory=dict)

    @property
    def store(self) -> Any:
        return self.sim.store


def build_env(
    *,
    seed: int = 1,
    strategies: WriteStrategies | None = None,
    flags: ControllerFlags | None = None,
    model: ClusterModel | None = None,
    sim: Simulation | None = None,
) -> AgentSandboxEnv:
    """A simulation with the CRDs loaded and the four controllers, kubelet and GC wired (not yet run)."""
    strategies = strategies or WriteStrategies()
    flags = flags or ControllerFlags()
    model = model or ClusterModel()
    sim = sim or Simulation(seed=seed)
    for path in crd_paths():
        sim.store.load_crds(path)

    mgr = sim.manager(MANAGER, cache_lag=model.cache_lag, api_latency=model.api_latency,
                      qps=flags.client_qps, burst=flags.client_burst, event_delay=model.event_delay,
                      cache_read_latency=model.cache_read_latency, response_latency=model.response_latency)
    tracer = Tracer(enabled=flags.enable_tracing)

    # Every sandbox pass stamps its Ready condition: format the time once per virtual instant.
    stamp: list[Any] = [None, ""]  # [clock offset, RFC 3339 string]

    def now() -> str:
        offset = sim.clock.monotonic
        if stamp[0] != offset:
            stamp[0], stamp[1] = offset, rfc3339(sim.clock.now())
        return stamp[1]

    def seconds() -> float:
        return sim.clock.now().timestamp()

    sandbox_r = sandbox.SandboxReconciler(mgr.client(keys.SANDBOX_ACTOR), now, seconds, strategies, tracer)
    # 2026-04-02 used client-go's core/v1 record.EventRecorder (#458 changed it later).
    recorder = mgr.event_recorder(keys.CLAIM_ACTOR, api="core")
    claim_r = claim.ClaimReconciler(mgr.client(keys.CLAIM_ACTOR), recorder, now,
                                    seconds, workers=flags.claim_workers, strategies=strategies, tracer=tracer)
    pool_r = warmpool.WarmPoolReconciler(mgr.client(keys.WARMPOOL_ACTOR), seconds)
    template_r = template.TemplateReconciler(mgr.client(keys.TEMPLATE_ACTOR))

    # Cache indexes that answer the controllers' label-selected LISTs without namespace scans (cache.py).
    register_label_index(mgr, keys.PODS, keys.SANDBOX_NAME_HASH)
    register_label_index(mgr, keys.SANDBOXES, keys.WARM_POOL_SANDBOX)
    register_label_index(mgr, keys.SANDBOXES, keys.TEMPLATE_REF_HASH)
    register_controller_index(mgr, keys.SANDBOXES)
    # Summaries kept from the sandbox informer's events, so pool and claim passes do not rescan (indexes.py).
    sandbox_informer = mgr.informer(keys.SANDBOXES)
    pool_r.members = WarmPoolMembers(sandbox_informer)
    claim_r.candidates = ClaimCandidates(sandbox_informer)

    env = AgentSandboxEnv(sim, mgr, strategies, flags, model)
    env.reconcilers = {"sandbox": sandbox_r, "claim": claim_r, "warmpool": pool_r, "template": template_r}
    env.controllers = {
        "sandbox": sandbox.setup(mgr, sandbox_r, flags.sandbox_workers, predicates),
        "claim": claim.setup(mgr, claim_r, flags.claim_workers),
        "warmpool": warmpool.setup(mgr, pool_r, flags.warmpool_workers),
        "template": template.setup(mgr, template_r, flags.template_workers),
    }
    sim.kubelet(pod_start_delays={
        "PodScheduled": model.pod_scheduled, "Initialized": model.pod_initialized, "Running": model.pod_running,
        "ContainersReady": model.pod_containers_ready, "Ready": model.pod_ready,
    })
    sim.garbage_collector()
    return env
