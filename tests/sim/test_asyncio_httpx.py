"""Unchanged httpx-based asyncio operators (kr8s on httpx, lightkube on httpx2) inside a simulation, in virtual
time (fakekube.sim.asyncioloop, fakekube.inprocess.httpx_paced): their requests take the model's latency and
commit at the virtual instant it says, watches wait on the loop, a seed replays byte for byte, and no thread is
started."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from fakekube.inprocess.mock import Cluster, mock_kubernetes
from fakekube.inprocess.paced import StreamSignal
from fakekube.sim import Lag, RequestLatency, Simulation
from fakekube.sim.asyncioloop import VirtualEventLoop

from .operatorload import assert_a_timed_out_create_commits, run_beside_load
from .threadspy import threads_started

pytest.importorskip("kr8s")
pytest.importorskip("lightkube")
import httpx  # noqa: E402
import kr8s.asyncio  # noqa: E402
import lightkube  # noqa: E402
from lightkube.resources.core_v1 import ConfigMap  # noqa: E402

NAMESPACE = "default"
ANNOTATION = "seen-at"

pytestmark = pytest.mark.filterwarnings("ignore:Kubernetes version v1.37.0-fakekube is not supported")


async def kr8s_operator(loop: asyncio.AbstractEventLoop) -> None:
    """Plain kr8s: list the ConfigMaps, watch from the newest one listed, annotate each one not seen yet. kr8s's
    watch has no server timeout: it lasts the server's default (30 virtual minutes)."""
    api = await kr8s.asyncio.api()
    while True:
        listed = [cm async for cm in api.async_get("configmaps", namespace=NAMESPACE)]
        for cm in listed:
            await kr8s_annotate(cm, loop)
        since = str(max(int(cm.metadata.resourceVersion) for cm in listed)) if listed else None
        async for kind, cm in api.async_watch("configmaps", namespace=NAMESPACE, since=since):
            if kind in ("ADDED", "MODIFIED"):
                await kr8s_annotate(cm, loop)


async def kr8s_annotate(cm: Any, loop: asyncio.AbstractEventLoop) -> None:
    if ANNOTATION not in cm.annotations:
        await cm.async_patch({"metadata": {"annotations": {ANNOTATION: f"{loop.time():.6f}"}}})


async def lightkube_operator(loop: asyncio.AbstractEventLoop) -> None:
    """Plain lightkube: list the ConfigMaps, watch from the list's resourceVersion (20 s per request: lightkube
    watches again by itself), annotate each one not seen yet."""
    client = lightkube.AsyncClient()
    try:
        listed = client.list(ConfigMap, namespace=NAMESPACE)
        async for cm in listed:
            await lightkube_annotate(client, cm, loop)
        async for kind, cm in client.watch(ConfigMap, namespace=NAMESPACE, server_timeout=20,
                                           resource_version=listed.resourceVersion):
            if kind in ("ADDED", "MODIFIED"):
                await lightkube_annotate(client, cm, loop)
    finally:
        await client.close()


async def lightkube_annotate(client: Any, cm: Any, loop: asyncio.AbstractEventLoop) -> None:
    if ANNOTATION not in (cm.metadata.annotations or {}):
        await client.patch(ConfigMap, cm.metadata.name, {"metadata": {"annotations": {ANNOTATION: f"{loop.time():.6f}"}}},
                           namespace=NAMESPACE)


OPERATORS: dict[str, tuple[Callable[[asyncio.AbstractEventLoop], Coroutine[Any, Any, None]], str]] = {
    "kr8s": (kr8s_operator, "kr8s"),                 # the audit log's actor: the client's User-Agent
    "lightkube": (lightkube_operator, "python-httpx2"),
}


def run(which: str, seed: int, latency: RequestLatency, *, seconds: float = 60.0, creates: int = 10,
        every: float = 2.0, event_lag: Lag | float | None = None,
        ) -> tuple[Simulation, VirtualEventLoop, float, list[threading.Thread]]:
    """The operator and a load driver (a simulation client creating a ConfigMap every ``every`` s) for ``seconds``
    of virtual time; returns the simulation, the loop, the wall seconds the run took and the threads started."""
    # kr8s keeps one Api per thread and id(loop) (kr8s/asyncio/_api.py); a new loop at a collected one's address
    # would get the last run's, its discovery done: each run starts without.
    kr8s.Api._instances.clear()
    operator, _ = OPERATORS[which]
    sim = Simulation(seed=seed, freeze_time=False)
    with mock_kubernetes(store=sim.store), threads_started() as started:
        loop = VirtualEventLoop(sim, latency=latency, event_lag=event_lag, name=f"{which}-operator")
        wall = run_beside_load(sim, loop, operator(loop), seconds=seconds, creates=creates, every=every)
    assert loop.errors == []
    return sim, loop, wall, started


def commits(sim: Simulation, actor: str, verb: str) -> list[float]:
    return [round(sim.elapsed(e), 6) for e in sim.audit if e.actor == actor and e.verb == verb]


@pytest.mark.parametrize("which", OPERATORS)
def test_requests_take_the_models_latency_and_commit_at_its_virtual_instant(which: str) -> None:
    sim, loop, _, _ = run(which, 1, RequestLatency(default=0.020, commit_at=0.5), creates=3)
    actor = OPERATORS[which][1]
    at = {(e.actor, e.verb, e.name): round(sim.elapsed(e), 6) for e in sim.audit if e.name}
    lists, watches = commits(sim, actor, "list"), commits(sim, actor, "watch")
    audited = sum(1 for e in sim.audit if e.actor == actor)
    # Requests the audit log does not show (kr8s's /version and discovery) go first, a round trip each; the
    # list commits half a round trip after them, and the watch's request leaves when the list's answer arrived.
    unaudited = loop.fakekube_pacing.requests - audited
    assert lists[0] == pytest.approx(0.020 * unaudited + 0.010)
    assert watches[0] == pytest.approx(lists[0] + 0.020)
    for i in range(3):
        created = at[("load", "create", f"cm-{i}")]
        assert created == pytest.approx(2.0 * (i + 1) + 0.004 * i + 0.002)
        # The ADDED event reaches the operator at the commit; its patch commits one request leg later.
        assert at[(actor, "patch", f"cm-{i}")] == pytest.approx(created + 0.010)
    annotations = {o["metadata"]["name"]: o["metadata"]["annotations"][ANNOTATION]
                   for o in sim.store.list("configmaps", namespace=NAMESPACE)["items"]}
    assert annotations == {f"cm-{i}": f"{at[('load', 'create', f'cm-{i}')]:.6f}" for i in range(3)}
    if which == "lightkube":
        # Each 20 s watch ends on the server's virtual clock, 20 s after the server began serving it; lightkube
        # watches again at once (the new request's leg).
        assert len(watches) == 3
        for earlier, later in zip(watches, watches[1:], strict=False):
            assert later == pytest.approx(earlier + 20 + 0.010, abs=1e-6)
    else:
        assert len(watches) == 1  # kr8s's watch lasts the server's default 30 minutes
    assert audited == len(lists) + len(watches) + 3


@pytest.mark.parametrize("which", OPERATORS)
def test_the_models_client_time_follows_each_answer(which: str) -> None:
    # kr8s's 26 requests before its list take 0.12 s each now: the ConfigMap comes after its watch started.
    sim, _, _, _ = run(which, 1, RequestLatency(default=0.020, commit_at=0.5, client=0.100), creates=1, every=5)
    actor = OPERATORS[which][1]
    lists, watches = commits(sim, actor, "list"), commits(sim, actor, "watch")
    assert watches[0] == pytest.approx(lists[0] + 0.120)  # the list's answer, then 0.1 s of the operator's own
    [created] = commits(sim, "load", "create")
    [patched] = commits(sim, actor, "patch")
    assert patched == pytest.approx(created + 0.010)  # an event is no answer: no client time before the patch


def test_watch_events_arrive_after_the_event_lag_in_order() -> None:
    sim, _, _, _ = run("kr8s", 2, RequestLatency(default=0.020, commit_at=0.5), creates=3, event_lag=0.5)
    at = {(e.verb, e.name): sim.elapsed(e) for e in sim.audit if e.name}
    for i in range(3):
        assert at[("patch", f"cm-{i}")] == pytest.approx(at[("create", f"cm-{i}")] + 0.5 + 0.010)
    # Creates 5 ms apart, lags drawn up to a second: each event still arrives after the one before it.
    sim, _, _, _ = run("lightkube", 2, RequestLatency(default=0.002), creates=20, every=0.005,
                       event_lag=Lag.uniform(0, 1))
    patches = sorted((e.time, e.name) for e in sim.audit if e.verb == "patch")
    assert [name for _, name in patches] == [f"cm-{i}" for i in range(20)]
    assert patches[-1][0] - patches[0][0] > 0.3


@pytest.mark.parametrize("which", OPERATORS)
def test_a_seed_replays_byte_for_byte_and_another_seed_does_not(which: str) -> None:
    latency = RequestLatency(default=Lag.uniform(0.005, 0.050), commit_at=0.6)
    first = run(which, 7, latency)[0].audit.to_jsonl()
    again = run(which, 7, latency)[0].audit.to_jsonl()
    other = run(which, 8, latency)[0].audit.to_jsonl()
    assert first == again
    assert first != other
    actor = f'"actor": "{OPERATORS[which][1]}"'
    assert first.count(actor) == other.count(actor) > 10


@pytest.mark.parametrize("which", OPERATORS)
def test_no_thread_is_started_and_a_virtual_minute_is_quick(which: str) -> None:
    before = threading.enumerate()
    sim, loop, wall, started = run(which, 3, RequestLatency(default=Lag.uniform(0.005, 0.050)))
    assert started == []
    assert threading.enumerate() == before
    assert loop._default_executor is None
    # kr8s reads its kubeconfig with anyio.open_file, whose calls anyio would run in worker threads: inline.
    expected = {"io.open", "?.TextIOWrapper.read", "?.TextIOWrapper.close"} if which == "kr8s" else set()
    assert set(loop.executor_calls) == expected
    assert 60.0 <= sim.now < 61.0
    print(f"\n{which}, virtual 60 s: {wall:.3f} wall s, {loop.steps} loop iterations, {len(sim.audit)} requests")


def test_a_request_whose_client_timed_out_still_commits() -> None:
    # httpx's read timeout on the virtual clock: the client gives up, the server commits the create anyway.
    async def create(loop: VirtualEventLoop, cluster: Cluster) -> str:
        async with httpx.AsyncClient(base_url=cluster.url, headers={"User-Agent": "impatient"},
                                     timeout=httpx.Timeout(5, read=0.010)) as client:
            try:
                await client.post(f"/api/v1/namespaces/{NAMESPACE}/configmaps", json={"metadata": {"name": "cm"}})
            except httpx.ReadTimeout:
                return f"timed out at {loop.time():.3f}"
            return "created"

    assert_a_timed_out_create_commits(create)


def test_a_watch_deadline_an_ulp_away_is_reached() -> None:
    # A stream's remaining time can come out one ulp above zero; asyncio runs a timer due within its clock
    # resolution at once, so the loop's clock would not move and the stream would wait again for ever. The
    # pacer's clock counts a timed-out wait as ended (seen with lightkube's 20 s watches, seed 7).
    sim = Simulation(seed=1, freeze_time=False)
    loop = VirtualEventLoop(sim)

    async def until_deadline() -> int:
        await asyncio.sleep(20.04157187299127)
        signal = StreamSignal(loop)
        deadline = math.nextafter(signal.monotonic(), math.inf)
        waits = 0
        while (remaining := deadline - signal.monotonic()) > 0:
            waits += 1
            assert waits < 10
            await signal.wait(remaining)
        return waits

    assert loop.run_until_complete(until_deadline()) == 1
    loop.close()


def test_exec_is_refused_with_a_reason() -> None:
    # Exec's far end runs in a thread (fakekube.inprocess.upgrade): not in a simulation. kr8s's exec (httpx-ws)
    # sees the dropped connection; the loop's exception handler says why.
    kr8s.Api._instances.clear()
    sim = Simulation(seed=1, freeze_time=False)
    with mock_kubernetes(store=sim.store), threads_started() as started:
        sim.store.create("nodes", {"metadata": {"name": "n1"}})
        node = sim.store.get("nodes", "n1")
        node["status"] = {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}  # what exec connects to
        sim.store.update("nodes", node, subresource="status")
        sim.store.create("pods", {"metadata": {"name": "p1"}, "spec": {"nodeName": "n1", "containers": [
            {"name": "c", "image": "busybox"}]}}, NAMESPACE)
        pod = sim.store.get("pods", "p1", NAMESPACE)
        pod["status"] = {"phase": "Running", "conditions": [  # kr8s's exec waits for the pod to be ready
            {"type": "Ready", "status": "True"}, {"type": "ContainersReady", "status": "True"}], "containerStatuses": [
            {"name": "c", "ready": True, "restartCount": 0, "image": "busybox", "imageID": "",
             "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
        sim.store.update("pods", pod, NAMESPACE, subresource="status")
        loop = VirtualEventLoop(sim, latency=RequestLatency(default=0.020), name="exec")

        async def exec_() -> str:
            api = await kr8s.asyncio.api()
            target = await kr8s.asyncio.objects.Pod.get("p1", namespace=NAMESPACE, api=api)
            try:
                await target.exec(["echo", "hi"])
            except httpx.RemoteProtocolError as e:
                return f"{type(e).__name__}: {e}"
            return "ran"

        outcome = loop.run_until_complete(exec_(), until=60)
        assert outcome == "RemoteProtocolError: Server disconnected without sending a response."
        loop.close()
    assert started == []
    assert [e["message"] for e in loop.errors] == [
        "fakekube: exec, attach and port-forward are not simulated (their far end runs in a thread); the connection "
        "was dropped"]
