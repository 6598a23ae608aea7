"""An unchanged kubernetes_asyncio operator inside a simulation, in virtual time (fakekube.sim.asyncioloop):
its requests take the model's latency and commit at the virtual instant the model says, a seed replays byte for
byte, and no thread is started."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from fakekube.inprocess.mock import Cluster, mock_kubernetes
from fakekube.sim import Lag, RequestLatency, Simulation
from fakekube.sim.asyncioloop import VirtualEventLoop, classify

from .operatorload import assert_a_timed_out_create_commits, run_beside_load
from .threadspy import threads_started

kubernetes_asyncio = pytest.importorskip("kubernetes_asyncio")
from kubernetes_asyncio import client, config, watch  # noqa: E402

NAMESPACE = "default"


async def operator(loop: asyncio.AbstractEventLoop) -> None:
    """Plain kubernetes_asyncio: list the ConfigMaps, watch from there, annotate each one it has not seen.
    Each watch lasts 20 s (the server ends it), then it lists and watches again."""
    await config.load_kube_config()
    api_client = client.ApiClient()
    api_client.user_agent = "cm-operator/1.0"  # the audit log's actor
    async with api_client:
        v1 = client.CoreV1Api(api_client)
        watcher = watch.Watch()  # one: each makes an ApiClient of its own (an SSL context, ~20 ms)
        while True:
            listed = await v1.list_namespaced_config_map(NAMESPACE)
            for item in listed.items:
                await annotate(v1, item, loop)
            stream = watcher.stream(v1.list_namespaced_config_map, NAMESPACE,
                                          resource_version=listed.metadata.resource_version, timeout_seconds=20)
            async for event in stream:
                if event["type"] in ("ADDED", "MODIFIED"):
                    await annotate(v1, event["object"], loop)


async def annotate(v1: Any, obj: Any, loop: asyncio.AbstractEventLoop) -> None:
    if "seen-at" in (obj.metadata.annotations or {}):
        return
    await v1.patch_namespaced_config_map(obj.metadata.name, NAMESPACE,
                                         {"metadata": {"annotations": {"seen-at": f"{loop.time():.6f}"}}})


def run(seed: int, latency: RequestLatency, *, seconds: float = 60.0, creates: int = 10, every: float = 2.0,
        event_lag: Lag | float | None = None) -> tuple[Simulation, VirtualEventLoop, float, list[threading.Thread]]:
    """The operator and a load driver (a simulation client creating a ConfigMap every 2 s) for ``seconds``
    of virtual time; returns the simulation, the loop, the wall seconds the run took and the threads started."""
    # freeze_time=False: kubernetes_asyncio's deserializer compares classes with ``datetime.datetime``, which
    # freezegun replaces (api_client.py, __deserialize): every timestamp would fail to parse.
    sim = Simulation(seed=seed, freeze_time=False)
    with mock_kubernetes(store=sim.store), threads_started() as started:
        loop = VirtualEventLoop(sim, latency=latency, event_lag=event_lag, name="cm-operator")
        wall = run_beside_load(sim, loop, operator(loop), seconds=seconds, creates=creates, every=every)
    assert loop.errors == []
    return sim, loop, wall, started


def test_requests_take_the_models_latency_and_commit_at_its_virtual_instant() -> None:
    sim, loop, _, _ = run(1, RequestLatency(default=0.020, commit_at=0.5), creates=3)
    at = {(e.actor, e.verb, e.name): round(sim.elapsed(e), 6) for e in sim.audit if e.name}
    lists = [round(sim.elapsed(e), 6) for e in sim.audit if e.verb == "list"]
    watches = [round(sim.elapsed(e), 6) for e in sim.audit if e.verb == "watch"]
    # The first list commits half a round trip in; the watch's request leaves when the list's answer arrived.
    assert (lists[0], watches[0]) == (0.010, 0.030)
    for i in range(3):
        created = at[("load", "create", f"cm-{i}")]
        assert created == pytest.approx(2.0 * (i + 1) + 0.004 * i + 0.002)
        # The ADDED event reaches the operator at the commit; its patch commits one request leg later.
        assert at[("cm-operator", "patch", f"cm-{i}")] == pytest.approx(created + 0.010)
    annotations = {o["metadata"]["name"]: o["metadata"]["annotations"]["seen-at"]
                   for o in sim.store.list("configmaps", namespace=NAMESPACE)["items"]}
    assert annotations == {f"cm-{i}": f"{at[('load', 'create', f'cm-{i}')]:.6f}" for i in range(3)}
    # Each 20 s watch ends on the server's virtual clock, 20 s after the server began serving it; the operator
    # then lists (a request leg) and watches again (the list's response leg, the watch's request leg).
    assert len(lists) == len(watches) == 3
    for earlier, later in zip(watches, watches[1:], strict=False):
        assert later == pytest.approx(earlier + 20 + 0.010 + 0.010 + 0.010, abs=1e-6)
    assert loop.fakekube_pacing.requests == 3 + 3 + 3


def test_the_models_client_time_follows_each_answer() -> None:
    sim, _, _, _ = run(1, RequestLatency(default=0.020, commit_at=0.5, client=0.100), creates=1)
    lists = [round(sim.elapsed(e), 6) for e in sim.audit if e.verb == "list"]
    watches = [round(sim.elapsed(e), 6) for e in sim.audit if e.verb == "watch"]
    assert (lists[0], watches[0]) == (0.010, 0.130)  # the list's answer, then 0.1 s of the operator's own


def test_watch_events_arrive_after_the_event_lag_in_order() -> None:
    sim, _, _, _ = run(2, RequestLatency(default=0.020, commit_at=0.5), creates=3, event_lag=0.5)
    at = {(e.verb, e.name): sim.elapsed(e) for e in sim.audit if e.name}
    for i in range(3):
        assert at[("patch", f"cm-{i}")] == pytest.approx(at[("create", f"cm-{i}")] + 0.5 + 0.010)
    # Creates 5 ms apart, lags drawn up to a second: each event still arrives after the one before it.
    sim, _, _, _ = run(2, RequestLatency(default=0.002), creates=20, every=0.005, event_lag=Lag.uniform(0, 1))
    patches = sorted((e.time, e.name) for e in sim.audit if e.verb == "patch")
    assert [name for _, name in patches] == [f"cm-{i}" for i in range(20)]
    assert patches[-1][0] - patches[0][0] > 0.3


def test_a_seed_replays_byte_for_byte_and_another_seed_does_not() -> None:
    latency = RequestLatency(default=Lag.uniform(0.005, 0.050), commit_at=0.6)
    first = run(7, latency)[0].audit.to_jsonl()
    again = run(7, latency)[0].audit.to_jsonl()
    other = run(8, latency)[0].audit.to_jsonl()
    assert first == again
    assert first != other
    assert first.count('"actor": "cm-operator"') == other.count('"actor": "cm-operator"') > 10


def test_no_thread_is_started_and_a_virtual_minute_is_quick() -> None:
    before = threading.enumerate()
    sim, loop, wall, started = run(3, RequestLatency(default=Lag.uniform(0.005, 0.050)))
    assert started == []
    assert threading.enumerate() == before
    assert loop._default_executor is None  # aiohttp's to_thread calls (netrc, proxies) ran inline
    # aiohttp's per-request lookups in a trust_env session (client.py, _request), inline:
    assert set(loop.executor_calls) == {"aiohttp.client.ClientSession._get_netrc_auth",
                                        "aiohttp.helpers.get_env_proxy_for_url"}
    assert 60.0 <= sim.now < 61.0  # the run reached 60 s; cancelling took a round trip or two
    print(f"\nvirtual 60 s: {wall:.3f} wall s, {loop.steps} loop iterations, {len(sim.audit)} requests")


def test_executor_calls_can_be_refused() -> None:
    sim = Simulation(seed=1, freeze_time=False)
    loop = VirtualEventLoop(sim, executor="refuse")

    async def main() -> None:
        await asyncio.to_thread(print, "never")

    with pytest.raises(RuntimeError, match="would need a thread"):
        loop.run_until_complete(main())
    loop.close()


def test_a_frozen_simulation_is_warned_about() -> None:
    with pytest.warns(UserWarning, match="freeze_time=False"):
        VirtualEventLoop(Simulation(seed=1)).close()


def test_timers_are_virtual() -> None:
    sim = Simulation(seed=1, freeze_time=False)
    loop = VirtualEventLoop(sim)
    seen: list[tuple[str, float]] = []

    async def tick(name: str, every: float) -> None:
        for _ in range(3):
            await asyncio.sleep(every)
            seen.append((name, loop.time()))

    async def main() -> None:
        await asyncio.gather(tick("a", 1.5), tick("b", 1.0))
        async with asyncio.timeout(5):
            await asyncio.sleep(3600)

    with pytest.raises(TimeoutError):
        loop.run_until_complete(main())
    assert seen == [("b", 1.0), ("a", 1.5), ("b", 2.0), ("a", 3.0), ("b", 3.0), ("a", 4.5)]
    assert sim.now == 9.5
    loop.close()


@pytest.mark.parametrize(("method", "target", "expected"), [
    ("GET", "/api/v1/namespaces/default/configmaps?watch=True", ("watch", "configmaps", None)),
    ("GET", "/api/v1/namespaces/default/configmaps", ("list", "configmaps", None)),
    ("GET", "/api/v1/namespaces/default/pods/p/log", ("get", "pods", "log")),
    ("PATCH", "/apis/apps/v1/namespaces/x/deployments/d/status", ("patch", "deployments", "status")),
    ("DELETE", "/api/v1/namespaces/default/configmaps", ("deletecollection", "configmaps", None)),
    ("POST", "/api/v1/namespaces", ("create", "namespaces", None)),
    ("GET", "/apis", ("get", "", None)),
])
def test_requests_are_classified_as_the_latency_model_names_them(method: str, target: str,
                                                                   expected: tuple[str, str, str | None]) -> None:
    assert classify(method, target) == expected


def test_a_request_whose_client_timed_out_still_commits() -> None:
    # The race a client timeout hides: the client saw a failure, the server committed the create anyway.
    async def create(loop: VirtualEventLoop, cluster: Cluster) -> str:
        await config.load_kube_config()
        async with client.ApiClient() as api:
            api.user_agent = "impatient"
            try:
                await client.CoreV1Api(api).create_namespaced_config_map(
                    NAMESPACE, {"metadata": {"name": "cm"}}, _request_timeout=0.010)
            except TimeoutError:
                return f"timed out at {loop.time():.3f}"
            return "created"

    assert_a_timed_out_create_commits(create)
