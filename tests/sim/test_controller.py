"""Controller result handling, workers, predicates and watch wiring."""

from __future__ import annotations

import pytest

from fakekube.sim import EventHandler, Request, Result, Simulation, TerminalError, predicates


def cm(name, labels=None, owner=None, **data):
    meta = {"name": name, "namespace": "default", "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [owner]
    return {"metadata": meta, "data": data}


def test_workers_run_different_keys_concurrently_but_never_one_key_twice():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    running: dict[str, int] = {}
    overlap = []

    async def reconcile(req):
        running[req.name] = running.get(req.name, 0) + 1
        if running[req.name] > 1:
            overlap.append(req.name)
        await sim.sleep(0.1)
        running[req.name] -= 1

    ctrl = mgr.controller("c", reconcile, workers=3).for_("configmaps")
    for i in range(6):
        sim.store.create("configmaps", cm(f"c{i}"), actor="user")
    for _ in range(5):
        ctrl.enqueue("c0", "default")
    sim.run()
    assert overlap == []
    assert ctrl.max_active == 3
    assert sim.now < 0.6  # 7 passes of 0.1 s on 3 workers


def test_error_requeues_with_backoff_terminal_error_does_not_and_requeue_after_forgets():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    times = {"err": [], "term": [], "after": []}

    async def reconcile(req):
        times[req.name].append(round(sim.now, 6))
        if req.name == "err" and len(times["err"]) < 4:
            raise RuntimeError("try again")
        if req.name == "term":
            raise TerminalError("give up")
        if req.name == "after" and len(times["after"]) < 3:
            return Result(requeue_after=2.0)
        return None

    ctrl = mgr.controller("c", reconcile)
    for name in times:
        ctrl.enqueue(name, "default")
    sim.run()
    assert times["err"] == [0.0, 0.005, 0.015, 0.035]  # 5, 10, 20 ms
    assert times["term"] == [0.0]
    assert times["after"] == [0.0, 2.0, 4.0]
    assert ctrl.errors == 4
    assert ctrl.queue.num_requeues(Request("default", "err")) == 0  # forgotten after success


def test_bug_exceptions_stop_the_run_in_strict_mode():
    import pytest

    from fakekube.sim import SimulationError

    sim = Simulation(seed=1)
    mgr = sim.manager("m")

    async def reconcile(req):
        return req.nope  # AttributeError: a bug, not a retryable failure

    mgr.controller("c", reconcile).enqueue("x", "default")
    with pytest.raises(SimulationError, match="AttributeError"):
        sim.run()


def test_predicates_filter_events():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    seen = []

    async def reconcile(req):
        seen.append(req.name)

    mgr.controller("c", reconcile).for_("configmaps", predicates=[predicates.label_selector({"app": "x"}),
                                                                  predicates.ResourceVersionChanged()])
    sim.store.create("configmaps", cm("yes", {"app": "x"}), actor="u")
    sim.store.create("configmaps", cm("no", {"app": "y"}), actor="u")
    sim.run()
    assert seen == ["yes"]


def test_generation_changed_predicate_ignores_status_only_writes():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    seen = []

    async def reconcile(req):
        seen.append(sim.now)

    mgr.controller("c", reconcile).for_("deployments", predicates=[predicates.GenerationChanged()])
    dep = {"metadata": {"name": "d", "namespace": "default"},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c",
                                                                                              "image": "i"}]}}}}
    sim.store.create("deployments", dep, actor="u")
    sim.run()
    sim.store.patch("deployments", "d", {"status": {"replicas": 1}}, "default", subresource="status", actor="u")
    sim.run()
    sim.store.patch("deployments", "d", {"spec": {"replicas": 2}}, "default", actor="u")
    sim.run()
    assert len(seen) == 2


def test_owns_enqueues_old_and_new_controller_owner_and_watches_maps():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    seen = []

    async def reconcile(req):
        seen.append(req.name)

    (mgr.controller("owner", reconcile)
        .for_("secrets")
        .owns("configmaps")
        .watches("services", lambda obj: [Request("default", "mapped-" + obj["metadata"]["name"])]))
    a = sim.store.create("secrets", {"metadata": {"name": "a", "namespace": "default"}}, actor="u")
    b = sim.store.create("secrets", {"metadata": {"name": "b", "namespace": "default"}}, actor="u")
    sim.run()
    seen.clear()

    def ref(o, controller=True):
        return {"apiVersion": "v1", "kind": "Secret", "name": o["metadata"]["name"], "uid": o["metadata"]["uid"],
                "controller": controller}

    sim.store.create("configmaps", cm("child", owner=ref(a)), actor="u")
    sim.run()
    assert seen == ["a"]
    seen.clear()
    child = sim.store.get("configmaps", "child", "default")
    child["metadata"]["ownerReferences"] = [ref(b)]
    sim.store.update("configmaps", child, actor="u")
    sim.run()
    assert sorted(seen) == ["a", "b"]
    seen.clear()
    sim.store.create("configmaps", cm("not-controller", owner=ref(a, controller=False)), actor="u")
    sim.store.create("services", {"metadata": {"name": "svc", "namespace": "default"},
                                  "spec": {"ports": [{"port": 80}]}}, actor="u")
    sim.run()
    assert seen == ["mapped-svc"]


def test_watches_raw_gets_copies_and_enqueues_nothing():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    added, reconciled = [], []

    async def reconcile(req):
        reconciled.append(req)

    def on_add(obj):
        obj["metadata"]["name"] = "mutated"  # a copy: the cache is not affected
        added.append(obj)

    mgr.controller("c", reconcile).watches_raw("configmaps", EventHandler(on_add=on_add))
    sim.store.create("configmaps", cm("x"), actor="u")
    sim.run()
    assert len(added) == 1 and reconciled == []
    assert mgr.informer("configmaps").get("default", "x")["metadata"]["name"] == "x"



@pytest.mark.parametrize("outcome", ["error", "requeue", "requeue_after"])
def test_a_requeue_keeps_the_priority_the_key_was_handed_out_with(outcome: str):
    # The worker asks the queue for the key's priority only when it requeues (after the pass, while the key is
    # still locked): an object of the initial list, handed out at LowPriority, must be requeued at it.
    from fakekube.sim.workqueue import LOW_PRIORITY

    sim = Simulation(seed=1)
    sim.store.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}}, actor="setup")
    mgr = sim.manager("m")
    passes = []

    async def reconcile(req: Request) -> Result | None:
        passes.append(req)
        if len(passes) > 1:
            return None
        if outcome == "error":
            raise RuntimeError("once")
        return Result(requeue=True) if outcome == "requeue" else Result(requeue_after=1.0)

    ctrl = mgr.controller("c", reconcile).for_("configmaps")
    sim.run(until=0.001)
    assert passes == [Request("default", "a")]
    item = ctrl.queue._items[Request("default", "a")]
    assert item.priority == LOW_PRIORITY
    assert item.ready_at == pytest.approx(1.0 if outcome == "requeue_after" else 0.005)
