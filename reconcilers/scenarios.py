"""The load generator and the two seed scenarios of PR #508.

The generator follows agent-sandbox ``dev/load-test/test-recipes/rapid-burst-test.yaml`` (ClusterLoader2):
create one SandboxTemplate and one SandboxWarmPool of WARMPOOL_SIZE, wait until that many pool sandboxes are
Ready, then TOTAL_BURSTS times raise the number of claims by BURST_SIZE at QPS, wait until they are all
Ready, and pause (20 s in the recipe). After the last burst it waits for the warm pool to refill, so a run
ends in a settled state that tests can check.

- seed-timeline: BURST_SIZE=1, QPS=1, TOTAL_BURSTS=10, WARMPOOL_SIZE=2 (the setup of the PR's audit tables);
- seed-load: 300 / 300 / 5 / 600 with 400 sandbox and 400 claim workers, 1 warm-pool worker, client QPS 1000
  and burst 2000 (the PR's load test).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.builds import Build, get_build
from fakekube.agentsandbox.env import AgentSandboxEnv, ClusterModel, ControllerFlags, build_env
from fakekube.agentsandbox.gcpause import cyclic_gc_paused
from fakekube.agentsandbox.hashing import name_hash
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.agentsandbox.tracking import ReadinessTracker
from fakekube.agentsandbox.types import (
    ObjectMeta,
    PodMetadata,
    PodTemplate,
    SandboxClaim,
    SandboxClaimSpec,
    SandboxTemplate,
    SandboxTemplateSpec,
    SandboxWarmPool,
    SandboxWarmPoolSpec,
    TemplateRef,
)
from fakekube.jsonvalues import json_copy
from fakekube.sim import Simulation

LOADER = "clusterloader"
Progress = Callable[[str], None]


@dataclass(frozen=True)
class LoadParams:
    """The recipe's parameters (CL2_BURST_SIZE, CL2_QPS, CL2_TOTAL_BURSTS, CL2_WARMPOOL_SIZE) and waits."""

    burst_size: int
    qps: float
    total_bursts: int
    warmpool_size: int
    pause_seconds: float = 20.0  # the recipe's sleep between bursts
    namespace: str = "agent-sandbox-load"
    template: str = "cluster-loader-sandbox-template"
    pool: str = "cluster-loader-warmpool"
    pool_ready_timeout: float = 900.0  # WaitForGenericK8sObjects, 15 min
    burst_ready_timeout: float = 3600.0  # 60 min
    settle_timeout: float = 600.0  # after the last burst: wait for the pool to refill
    poll_interval: float = 0.020  # the recipe's 20 ms refresh

    @property
    def total_claims(self) -> int:
        return self.burst_size * self.total_bursts


@dataclass(frozen=True)
class Scenario:
    name: str
    params: LoadParams
    flags: ControllerFlags = field(default_factory=ControllerFlags)
    timeline: bool = False  # render one claim's audit timeline (PR format)

    def with_overrides(self, **overrides: Any) -> Scenario:
        """A copy with LoadParams or ControllerFlags fields replaced (None values are ignored)."""
        p = {k: v for k, v in overrides.items() if v is not None and k in LoadParams.__dataclass_fields__}
        f = {k: v for k, v in overrides.items() if v is not None and k in ControllerFlags.__dataclass_fields__}
        unknown = set(overrides) - set(LoadParams.__dataclass_fields__) - set(ControllerFlags.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown scenario parameters: {', '.join(sorted(unknown))}")
        return replace(self, params=replace(self.params, **p), flags=replace(self.flags, **f))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": asdict(self.params), "flags": asdict(self.flags)}


SCENARIOS: dict[str, Scenario] = {
    "seed-timeline": Scenario("seed-timeline", LoadParams(burst_size=1, qps=1, total_bursts=10, warmpool_size=2),
                              timeline=True),
    "seed-load": Scenario("seed-load", LoadParams(burst_size=300, qps=300, total_bursts=5, warmpool_size=600)),
}


# -- the objects the recipe creates ----------------------------------------------------------------------


def template_object(params: LoadParams) -> dict[str, Any]:
    """templates/cluster-loader-sandbox-template.yaml: python:3.11-slim sleeping for an hour."""
    pod_spec = {
        "restartPolicy": "Never",
        "containers": [{"name": "sandbox", "image": "python:3.11-slim", "command": ["sleep", "3600"]}],
    }
    return SandboxTemplate(
        metadata=ObjectMeta(name=params.template, namespace=params.namespace),
        spec=SandboxTemplateSpec(podTemplate=PodTemplate(
            metadata=PodMetadata(labels={"latency-type": "warm"}), spec=pod_spec)),
    ).to_obj()


def pool_object(params: LoadParams) -> dict[str, Any]:
    obj = SandboxWarmPool(
        metadata=ObjectMeta(name=params.pool, namespace=params.namespace),
        spec=SandboxWarmPoolSpec(replicas=params.warmpool_size, sandboxTemplateRef=TemplateRef(name=params.template)),
    ).to_obj()
    obj.pop("status", None)
    return obj


def claim_name(index: int) -> str:
    return f"sandboxclaim-{index}"


def claim_object(params: LoadParams, index: int) -> dict[str, Any]:
    """templates/sandbox-claim.yaml: the recipe's claims differ only by name, so the typed model is built once per
    recipe (``_claim_shape``; a model takes ~60 µs, as much as the API server's create) and each claim is a copy
    with its name."""
    obj = json_copy(_claim_shape(params))
    obj["metadata"]["name"] = claim_name(index)
    return obj


@lru_cache(maxsize=8)
def _claim_shape(params: LoadParams) -> dict[str, Any]:
    """The recipe's claim as the typed model gives it, named after claim 0 (``claim_object`` renames each copy)."""
    return SandboxClaim(
        metadata=ObjectMeta(name=claim_name(0), namespace=params.namespace),
        spec=SandboxClaimSpec(sandboxTemplateRef=TemplateRef(name=params.template)),
    ).to_obj()


# -- running -----------------------------------------------------------------------------------------------


@dataclass
class ScenarioRun:
    scenario: Scenario
    strategies: WriteStrategies
    seed: int
    env: AgentSandboxEnv
    tracker: ReadinessTracker
    phases: dict[str, float] = field(default_factory=dict)  # phase → simulated second it ended
    timed_out: list[str] = field(default_factory=list)
    finished: bool = False
    wall_seconds: float = 0.0


async def _wait(env: AgentSandboxEnv, params: LoadParams, done: Callable[[], bool], timeout: float) -> bool:
    deadline = env.sim.now + timeout
    while not done():
        if env.sim.now >= deadline:
            return False
        await env.sim.sleep(params.poll_interval)
    return True


async def load_generator(run: ScenarioRun, progress: Progress | None = None) -> None:
    env, params, tracker = run.env, run.scenario.params, run.tracker
    sim = env.sim
    # ClusterLoader2 creates open loop (each create a task of its own), through the same API server.
    loader = sim.manager(LOADER, latency=env.model.latency).client(LOADER)
    say = progress or (lambda _msg: None)

    await loader.create("namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                       "metadata": {"name": params.namespace}})
    await loader.create(keys.TEMPLATES, template_object(params))
    await loader.create(keys.WARMPOOLS, pool_object(params))
    say(f"warm pool {params.pool}: waiting for {params.warmpool_size} Ready sandboxes")
    if not await _wait(env, params, lambda: len(tracker.pool_ready) >= params.warmpool_size,
                       params.pool_ready_timeout):
        run.timed_out.append("warm-pool")
    run.phases["warm-pool-ready"] = sim.now

    created = 0
    for burst in range(1, params.total_bursts + 1):
        start = sim.now
        for i in range(params.burst_size):
            # qpsLoad: creations spaced 1/QPS apart, each a client call of its own.
            due = start + i / params.qps
            if due > sim.now:
                await sim.sleep(due - sim.now)
            sim.spawn(loader.create(keys.CLAIMS, claim_object(params, created + i)))
        created += params.burst_size
        target = created
        ok = await _wait(env, params, lambda t=target: len(tracker.claim_ready) >= t, params.burst_ready_timeout)
        if not ok:
            run.timed_out.append(f"burst-{burst}")
        run.phases[f"burst-{burst}-ready"] = sim.now
        say(f"burst {burst}/{params.total_bursts}: {len(tracker.claim_ready)}/{created} claims Ready "
            f"at t={sim.now:.1f}s")
        if burst < params.total_bursts:
            await sim.sleep(params.pause_seconds)

    await _wait(env, params, lambda: len(tracker.pool_ready) >= params.warmpool_size, params.settle_timeout)
    run.phases["settled"] = sim.now
    run.finished = True


def run_scenario(scenario: Scenario | str, strategies: WriteStrategies | None = None, *, seed: int = 1,
                 model: ClusterModel | None = None, progress: Progress | None = None,
                 build: Build | str | None = None, sim: Simulation | None = None) -> ScenarioRun:
    """Build a fresh cluster, drive the load recipe to the end, and return the run for reporting.

    ``build`` picks the agent-sandbox code (default: the build PR #508's tables came from, see
    reconcilers/builds.py); ``strategies`` default to that build's with the claim status as ``Update``.
    ``sim``: build the cluster on this (fresh) simulation instead of ``Simulation(seed=seed)`` — how
    fakekube.explore hands in a perturbed one.
    """
    if isinstance(scenario, str):
        scenario = SCENARIOS[scenario]
    build = get_build(build)
    strategies = build.resolve(strategies)
    if sim is not None:
        seed = sim.seed
    wall = time.perf_counter()  # wall-clock time is reported, never used inside the simulation
    env = build_env(seed=seed, strategies=strategies, flags=scenario.flags, model=model, build=build, sim=sim)
    tracker = ReadinessTracker(env.sim, scenario.params.namespace, name_hash(scenario.params.pool))
    run = ScenarioRun(scenario, strategies, seed, env, tracker)
    env.sim.spawn(load_generator(run, progress))
    with cyclic_gc_paused():
        env.sim.run(stop_when=lambda: run.finished)
    run.wall_seconds = time.perf_counter() - wall
    return run
