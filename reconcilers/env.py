"""An agent-sandbox environment on fakekube.sim: the CRDs, one manager running the four controllers with the
flags of the #508 load test, a kubelet and a garbage collector.

The timing model (``fakekube.sim.model.ClusterModel``) and the controllers' build (``fakekube.agentsandbox.builds``)
are parameters; docs/agent-sandbox.md and docs/reproducing-pr-508.md say where the defaults come from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["GUESSED_MODEL", "MANAGER", "MODEL_NAMES", "AgentSandboxEnv", "ClusterModel", "ControllerFlags",
           "build_env", "default_model", "named_model"]

from fakekube.agentsandbox import claim, crd_paths, keys, sandbox, template, warmpool
from fakekube.agentsandbox.builds import Build, get_build
from fakekube.agentsandbox.cache import register_controller_index, register_label_index
from fakekube.agentsandbox.indexes import ClaimCandidates, WarmPoolMembers
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.agentsandbox.tracing import Tracer
from fakekube.clock import rfc3339
from fakekube.sim import Lag, RequestLatency, Simulation, predicates
from fakekube.sim.model import ClusterModel

MANAGER = "agent-sandbox-controller"


# A hand-set model for a regional GKE cluster under moderate load (the one the seed scenarios used before
# a model was fitted to PR #508's timeline): a 2–8 ms round trip for every verb, committed half way, a 4 ms
# watch delay, pods Ready one to three seconds after creation.
GUESSED_MODEL = ClusterModel(
    latency=RequestLatency(default=Lag.uniform(0.002, 0.008), commit_at=0.5),
    cache_lag=Lag.fixed(0.004),
    event_delay=Lag.uniform(0.001, 0.010),
    pod_scheduled=Lag.uniform(0.020, 0.150),  # creation → PodScheduled (scheduler queue + binding)
    pod_initialized=Lag.uniform(0.200, 0.600),  # → Initialized (pod sandbox, CNI, no init containers)
    pod_running=Lag.uniform(0.500, 2.000),  # → Running with a pod IP (image already on the node)
    pod_containers_ready=Lag.uniform(0.010, 0.100),  # → ContainersReady (no readiness probe)
    pod_ready=Lag.uniform(0.000, 0.005),  # → Ready
    source="hand-set (docs/agent-sandbox.md)",
)


def named_model(name: str) -> ClusterModel:
    """A timing model by name: ``pr508-table1`` (the default, fitted from PR #508's first table) or
    ``hand-set`` (`GUESSED_MODEL`, the scenarios' model before the fitting)."""
    if name == "hand-set":
        return GUESSED_MODEL
    if name == "pr508-table1":
        return default_model()
    raise ValueError(f"unknown timing model {name!r}: pr508-table1 or hand-set")


MODEL_NAMES = ("pr508-table1", "hand-set")


def default_model() -> ClusterModel:
    """The seed scenarios' timing model: the one fitted from PR #508's first table (reconcilers/fitcmd.py)."""
    from fakekube.agentsandbox.fitcmd import pr508_model

    return pr508_model()


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
    build: Build
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
    build: Build | str | None = None,
) -> AgentSandboxEnv:
    """A simulation with the CRDs loaded and the four controllers, kubelet and GC wired (not yet run).

    ``build`` (a name from ``fakekube.agentsandbox.builds.BUILDS``; default the one PR #508's tables came from) picks
    the controllers' code; ``strategies`` defaults to that build's (claim status ``update``).
    """
    build = get_build(build)
    strategies = build.resolve(strategies)
    flags = flags or ControllerFlags()
    model = model or default_model()
    sim = sim or Simulation(seed=seed)
    for path in crd_paths():
        sim.store.load_crds(path)

    # controller-runtime's queue and default rate limiter follow the version the build pins (builds.py).
    mgr = sim.manager(MANAGER, qps=flags.client_qps, burst=flags.client_burst, priority_queue=build.priority_queue,
                      **model.manager_options())
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

    sandbox_r = sandbox.SandboxReconciler(mgr.client(keys.SANDBOX_ACTOR), now, seconds, strategies, tracer,
                                          build=build)
    # 2026-04-02 used client-go's core/v1 record.EventRecorder; #458 (7d4a8cbb) moved to events.k8s.io.
    recorder = mgr.event_recorder(keys.CLAIM_ACTOR, api=build.events_api)
    claim_r = claim.ClaimReconciler(mgr.client(keys.CLAIM_ACTOR), recorder, now,
                                    seconds, workers=flags.claim_workers, strategies=strategies, tracer=tracer,
                                    build=build)
    pool_r = warmpool.WarmPoolReconciler(mgr.client(keys.WARMPOOL_ACTOR), seconds)
    template_r = template.TemplateReconciler(mgr.client(keys.TEMPLATE_ACTOR))

    # Cache indexes that answer the controllers' label-selected LISTs without namespace scans (cache.py). None
    # on pods: the sandbox pass's pod LIST (its answer unused) is only paid for with a cache-reading client.
    # The pod informer is still made first, as when it had an index: informers start their watches in the
    # order they were made, and the audit log records that order.
    mgr.informer(keys.PODS)
    register_label_index(mgr, keys.SANDBOXES, keys.WARM_POOL_SANDBOX)
    register_label_index(mgr, keys.SANDBOXES, keys.TEMPLATE_REF_HASH)
    register_controller_index(mgr, keys.SANDBOXES)
    # Summaries kept from the sandbox informer's events, so pool and claim passes do not rescan (indexes.py).
    sandbox_informer = mgr.informer(keys.SANDBOXES)
    pool_r.members = WarmPoolMembers(sandbox_informer)
    claim_r.candidates = ClaimCandidates(sandbox_informer)

    env = AgentSandboxEnv(sim, mgr, strategies, flags, model, build)
    env.reconcilers = {"sandbox": sandbox_r, "claim": claim_r, "warmpool": pool_r, "template": template_r}
    env.controllers = {
        "sandbox": sandbox.setup(mgr, sandbox_r, flags.sandbox_workers, predicates),
        "claim": claim.setup(mgr, claim_r, flags.claim_workers),
        "warmpool": warmpool.setup(mgr, pool_r, flags.warmpool_workers),
        "template": template.setup(mgr, template_r, flags.template_workers),
    }
    sim.kubelet(**model.kubelet_options())
    sim.garbage_collector()
    return env
