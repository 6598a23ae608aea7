"""Non-controller actors: kubelet (and scheduler), garbage collector, event recorder."""

from __future__ import annotations

import contextlib

from fakekube import errors
from fakekube.sim import Lag, Simulation


def pod(name, **meta):
    return {"metadata": {"name": name, "namespace": "default", **meta},
            "spec": {"containers": [{"name": "main", "image": "img"}]}}


def test_kubelet_starts_pods_step_by_step_with_status_patches():
    sim = Simulation(seed=1)
    sim.kubelet(pod_start_delays=Lag.fixed(0.1))
    sim.store.create("pods", pod("p"), actor="user")
    sim.run()
    live = sim.store.get("pods", "p", "default")
    assert live["spec"]["nodeName"] == "node-1"
    assert live["status"]["phase"] == "Running"
    assert live["status"]["podIP"].startswith("10.244.")
    assert {c["type"]: c["status"] for c in live["status"]["conditions"]} == {
        "PodScheduled": "True", "Initialized": "True", "ContainersReady": "True", "Ready": "True"}
    writes = [(e.actor, e.verb, e.subresource) for e in sim.audit if e.is_write and e.actor != "user"]
    assert writes == [("default-scheduler", "create", "binding")] + [("kubelet", "patch", "status")] * 4
    status_writes = [e for e in sim.audit if e.subresource == "status"]
    assert all(e.patch_type == "application/strategic-merge-patch+json" for e in status_writes)
    # each step bumps the pod's resourceVersion
    assert len({e.rv_after for e in sim.audit if e.name == "p"}) == 6


def test_zero_delay_steps_share_the_kubelets_write():
    """No readiness probe: Running, ContainersReady and Ready are one status write (one pod event)."""
    sim = Simulation(seed=1)
    sim.kubelet(pod_start_delays={"PodScheduled": 0.05, "Initialized": 0.01, "Running": 0.3,
                                  "ContainersReady": 0, "Ready": 0})
    sim.store.create("pods", pod("p"), actor="user")
    sim.run()
    writes = [(round(e.time - sim.audit[0].time, 6), e.actor, e.subresource) for e in sim.audit
              if e.is_write and e.actor != "user"]
    assert [(actor, sub) for _, actor, sub in writes] == [
        ("default-scheduler", "binding"), ("kubelet", "status"), ("kubelet", "status")]
    live = sim.store.get("pods", "p", "default")
    assert {c["type"] for c in live["status"]["conditions"]} == {"PodScheduled", "Initialized", "ContainersReady",
                                                                "Ready"}
    assert live["status"]["containerStatuses"][0]["ready"] is True and live["status"]["phase"] == "Running"


def test_kubelet_writes_make_a_controller_put_from_an_old_copy_conflict():
    sim = Simulation(seed=1)
    sim.kubelet(pod_start_delays=Lag.fixed(0.05))
    client = sim.manager("sandbox", cache_lag=0.2).client("sandbox-controller")
    sim.store.create("pods", pod("p"), actor="user")

    async def relabel():
        await sim.sleep(0.01)
        cached = await client.get("pods", "p", "default")
        await sim.sleep(0.2)  # meanwhile the kubelet patches the status
        cached["metadata"]["labels"] = {"claimed": "yes"}
        try:
            await client.update("pods", cached)
        except errors.Conflict:
            return "409"
        return "200"

    assert sim.run_until_complete(relabel()) == "409"


def test_kubelet_completes_graceful_deletion():
    sim = Simulation(seed=1)
    sim.kubelet(pod_start_delays=0.01, termination_delay=0.3)
    sim.store.create("pods", pod("p"), actor="user")
    sim.run()
    sim.store.delete("pods", "p", "default", actor="user")
    assert sim.store.get("pods", "p", "default")["metadata"]["deletionGracePeriodSeconds"] == 30
    start = sim.now
    sim.run()
    assert sim.store.count("pods") == 0
    final = sim.audit.filter(verb="delete", actor="kubelet")[0]
    assert final.code == 200 and sim.elapsed(final) - start > 0.29


def test_garbage_collector_cascades_in_virtual_time():
    sim = Simulation(seed=1)
    sim.garbage_collector(delay=0.5)
    owner = sim.store.create("configmaps", {"metadata": {"name": "owner", "namespace": "default"}}, actor="u")
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"],
           "controller": True, "blockOwnerDeletion": True}
    sim.store.create("secrets", {"metadata": {"name": "dep", "namespace": "default", "ownerReferences": [ref]}},
                     actor="u")
    sim.run()
    sim.store.delete("configmaps", "owner", "default", propagation_policy="Foreground", actor="u")
    assert sim.store.count("secrets") == 1  # nothing happens synchronously
    sim.run()
    assert sim.store.count("secrets") == 0 and sim.store.objects("configmaps", "default") == []
    gc_deletes = sim.audit.filter(actor="generic-garbage-collector", verb="delete")
    assert gc_deletes and sim.elapsed(gc_deletes[0]) >= 0.5


def test_event_recorder_is_asynchronous_and_writes_events_k8s_io():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", api_latency=0.002, event_delay=0.001)
    client = mgr.client("ctl")
    rec = mgr.event_recorder("ctl")

    async def go():
        obj = await client.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}})
        rec.event(obj, "Normal", "Adopted", "adopted it")  # emitted before the delete ...
        with contextlib.suppress(errors.NotFound):  # ... this blind delete, like PR #508 steps 2-3
            await client.delete("secrets", "a-network-policy", "default")

    sim.run_until_complete(go())
    sim.run()
    writes = [(e.verb, e.resource, e.code) for e in sim.audit if e.is_write]
    assert writes == [("create", "configmaps", 201), ("delete", "secrets", 404), ("create", "events", 201)]
    event = sim.store.objects("events.events.k8s.io", "default")[0]
    assert event["reason"] == "Adopted" and event["note"] == "adopted it"
    assert event["regarding"]["name"] == "a" and event["reportingController"] == "ctl"


def test_a_fault_delay_on_an_event_write_is_paid_by_the_recorder():
    """The recorder's writes are ordinary client requests: a delay injected on them holds up the recorder,
    not whichever request the controller makes next."""
    sim = Simulation(seed=1)
    mgr = sim.manager("m", api_latency=0.002, event_delay=0.001)
    client = mgr.client("ctl")
    rec = mgr.event_recorder("rec")
    sim.store.faults.delay(5.0, verb="create", resource="events")

    async def go():
        obj = await client.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}})
        rec.event(obj, "Normal", "Created", "made it")
        await sim.sleep(0.1)  # the event is written meanwhile
        started = sim.now
        await client.get("configmaps", "a", "default", copy=False)
        await client.live.get("configmaps", "a", "default")
        return sim.now - started

    assert sim.run_until_complete(go()) < 1.0
