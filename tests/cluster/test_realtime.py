"""The runtime's wall-clock scheduler: same coroutines, real sleeps, work handed over from other threads."""

from __future__ import annotations

import inspect
import threading
import time

import pytest

from fakekube.sim.realtime import RealTimeRuntime, RealTimeScheduler
from fakekube.store import Store
from fakekube.watch import WatchEvent


@pytest.fixture
def scheduler():
    sched = RealTimeScheduler("test-loop").start()
    yield sched
    sched.stop()


def test_tasks_sleep_on_wall_time_in_order(scheduler: RealTimeScheduler):
    seen: list[str] = []
    done = threading.Event()

    async def worker(name: str, delay: float) -> None:
        await scheduler.sleep(delay)
        seen.append(name)
        if len(seen) == 3:
            done.set()

    started = time.monotonic()
    for name, delay in (("slow", 0.15), ("fast", 0.01), ("middle", 0.08)):
        scheduler.run_in_loop(lambda n=name, d=delay: scheduler.spawn(worker(n, d)))
    assert done.wait(10)
    assert seen == ["fast", "middle", "slow"]
    assert time.monotonic() - started >= 0.15


def test_futures_wake_waiters_and_errors_come_back(scheduler: RealTimeScheduler):
    result: list[object] = []

    async def waiter(fut):
        result.append(await fut)

    fut = scheduler.run_in_loop(scheduler.future)
    scheduler.run_in_loop(lambda: scheduler.spawn(waiter(fut)))
    scheduler.call_soon_threadsafe(lambda: fut.set_result("woken"))
    deadline = time.monotonic() + 10
    while not result and time.monotonic() < deadline:
        time.sleep(0.01)
    assert result == ["woken"]
    with pytest.raises(ZeroDivisionError):
        scheduler.run_in_loop(lambda: 1 / 0)


def test_watch_events_from_other_threads_arrive_on_the_loop_in_commit_order():
    store = Store()
    runtime = RealTimeRuntime(store).start()
    try:
        received: list[tuple[str, str, bool]] = []

        def on_event(event: WatchEvent) -> None:
            on_loop = threading.current_thread() is runtime.scheduler.thread
            received.append((event.type, event.raw["metadata"]["name"], on_loop))

        store.create("configmaps", {"metadata": {"name": "before"}}, "default")
        runtime.scheduler.run_in_loop(lambda: runtime.store.watch("configmaps", on_event=on_event))
        assert received == [("ADDED", "before", True)]  # the initial list is delivered synchronously

        def writer(prefix: str) -> None:
            for i in range(20):
                store.create("configmaps", {"metadata": {"name": f"{prefix}-{i}"}}, "default")

        threads = [threading.Thread(target=writer, args=(p,)) for p in "abc"]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        committed = [e.name for e in store.audit if e.verb == "create"][1:]
        deadline = time.monotonic() + 10
        while len(received) < 61 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [name for _, name, _ in received[1:]] == committed
        assert all(on_loop for _, _, on_loop in received)
    finally:
        runtime.stop()


def test_the_runtime_offers_the_simulations_helpers():
    runtime = RealTimeRuntime(Store())
    sleep = runtime.sleep(0.25)
    assert inspect.isawaitable(sleep) and next(sleep) == 0.25  # awaiting it hands the scheduler the delay
    assert runtime.manager("m") is runtime.managers["m"]
    assert runtime.rng("a").random() == runtime.rng("a").random()
    assert runtime.resolve("pods").plural == "pods"


@pytest.mark.parametrize(("controllers", "accounts"), [((), []), (("serviceaccount",), ["default"])])
def test_a_cluster_without_the_serviceaccount_controller_makes_no_default_accounts(controllers, accounts):
    # The Cluster switches the store's own controller off through the runtime's view of the store: the switch
    # must reach the store (`fakekube serve --no-controllers` made default ServiceAccounts, which envtest's
    # bare API server and the oracle without controllers do not; controller-runtime's cache suite saw it).
    from fakekube.cluster.runner import ClusterRunner

    store = Store()
    runner = ClusterRunner(store, controllers=controllers).start()
    try:
        store.create("namespaces", {"metadata": {"name": "fresh"}})
        time.sleep(0.2)
        assert [a["metadata"]["name"] for a in store.list("serviceaccounts", "fresh")["items"]] == accounts
    finally:
        runner.stop()


@pytest.mark.parametrize(("controllers", "collected"), [(("serviceaccount",), False), (("garbagecollector",), True)])
def test_only_a_cluster_with_the_garbage_collector_collects(controllers, collected):
    from fakekube.cluster.runner import ClusterRunner

    store = Store()
    runner = ClusterRunner(store, controllers=controllers).start()
    try:
        owner = store.create("configmaps", {"metadata": {"name": "owner"}}, "default")
        ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
        store.create("configmaps", {"metadata": {"name": "dependent", "ownerReferences": [ref]}}, "default")
        store.delete("configmaps", "owner", "default")
        time.sleep(0.2)
        names = {c["metadata"]["name"] for c in store.list("configmaps", "default")["items"]}
        assert ("dependent" not in names) == collected
    finally:
        runner.stop()
