"""The simulation client: cache reads, in-place writes, patch options, based_on, live reads, token bucket."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.sim import Apply, JSONPatch, MergeFrom, RawPatch, Simulation, StrategicMergeFrom


def cm(name, **data):
    return {"metadata": {"name": name, "namespace": "default"}, "data": data}


def setup(**kw):
    sim = Simulation(seed=1)
    mgr = sim.manager("m", **kw)
    return sim, mgr, mgr.client("ctl")


def run(sim, coro):
    return sim.run_until_complete(coro)


def test_create_with_generate_name_updates_the_object_in_place():
    sim, mgr, client = setup(api_latency=0.002)
    obj = {"metadata": {"generateName": "pool-", "namespace": "default"}}

    async def go():
        returned = await client.create("configmaps", obj)
        return returned, sim.now

    returned, when = run(sim, go())
    assert returned is obj
    assert obj["metadata"]["name"].startswith("pool-") and len(obj["metadata"]["name"]) == 10
    assert obj["metadata"]["resourceVersion"]
    assert when == pytest.approx(0.002)
    entry = sim.audit[-1]
    assert (entry.verb, entry.actor, entry.code) == ("create", "ctl", 201)
    assert sim.elapsed(entry) == pytest.approx(0.002, abs=1e-6)  # the store op happens after the latency


def test_reads_come_from_the_lagging_cache_and_are_copies():
    sim, mgr, client = setup(cache_lag=0.010)
    sim.store.create("configmaps", cm("a", v="1"), actor="u")
    mgr.informer("configmaps")  # start the cache now

    async def go():
        first = await client.get("configmaps", "a", "default")
        first["data"]["v"] = "mutated"
        sim.store.patch("configmaps", "a", {"data": {"v": "2"}}, "default", actor="u")
        stale = await client.get("configmaps", "a", "default")
        await sim.sleep(0.011)
        fresh = await client.get("configmaps", "a", "default")
        live = await client.live.get("configmaps", "a", "default")
        return first, stale, fresh, live

    first, stale, fresh, live = run(sim, go())
    assert stale["data"]["v"] == "1"  # the cache has not seen the patch yet, and our mutation did not leak
    assert fresh["data"]["v"] == "2"
    assert live["data"]["v"] == "2"
    with pytest.raises(errors.NotFound):
        run(sim, client.get("configmaps", "missing", "default"))


def test_list_from_cache_with_labels_fields_and_an_index():
    sim, mgr, client = setup()
    for i in range(4):
        sim.store.create("configmaps", {"metadata": {"name": f"c{i}", "namespace": "default",
                                                     "labels": {"parity": str(i % 2)}},
                                        "data": {"ref": f"t{i % 2}"}}, actor="u")
    mgr.index_field("configmaps", "data.ref", lambda o: [o.get("data", {}).get("ref", "")])

    async def go():
        return (
            [o["metadata"]["name"] for o in await client.list("configmaps", "default", labels={"parity": "1"})],
            [o["metadata"]["name"] for o in await client.list("configmaps", "default", labels="parity in (0)")],
            [o["metadata"]["name"] for o in await client.list("configmaps", fields={"data.ref": "t1"})],
            [o["metadata"]["name"] for o in await client.list("configmaps", fields="metadata.name=c2")],
        )

    assert run(sim, go()) == (["c1", "c3"], ["c0", "c2"], ["c1", "c3"], ["c2"])


def test_update_conflicts_on_a_stale_rv_and_records_based_on():
    sim, mgr, client = setup()
    sim.store.create("configmaps", cm("a", v="1"), actor="u")

    async def go():
        obj = await client.live.get("configmaps", "a", "default")
        rv = obj["metadata"]["resourceVersion"]
        obj["data"]["v"] = "2"
        await client.update("configmaps", obj)
        assert obj["metadata"]["resourceVersion"] != rv  # in place
        stale = {**obj, "metadata": {**obj["metadata"], "resourceVersion": rv}}
        with pytest.raises(errors.Conflict) as info:
            await client.update("configmaps", stale)
        assert info.value.code == 409
        return rv

    rv = run(sim, go())
    updates = sim.audit.filter(verb="update")
    assert updates[0].based_on == rv and updates[0].code == 200
    assert updates[1].code == 409


def test_merge_from_sends_no_rv_and_the_optimistic_lock_does():
    sim, mgr, client = setup()
    sim.store.create("configmaps", cm("a", v="1"), actor="u")

    async def go():
        obj = await client.live.get("configmaps", "a", "default")
        base = {**obj, "data": dict(obj["data"])}
        sim.store.patch("configmaps", "a", {"data": {"other": "x"}}, "default", actor="u")  # base is now stale
        obj["data"]["v"] = "2"
        await client.patch("configmaps", obj, MergeFrom(base))
        assert obj["data"] == {"v": "2", "other": "x"}  # the server's answer, in place
        obj2 = await client.live.get("configmaps", "a", "default")
        sim.store.patch("configmaps", "a", {"data": {"other": "y"}}, "default", actor="u")
        base2 = {**obj2, "data": dict(obj2["data"])}
        obj2["data"]["v"] = "3"
        with pytest.raises(errors.Conflict):
            await client.patch("configmaps", obj2, MergeFrom(base2, optimistic_lock=True))

    run(sim, go())
    patches = sim.audit.filter(verb="patch", actor="ctl")
    assert [p.code for p in patches] == [200, 409]
    assert patches[0].patch_type == "application/merge-patch+json"


def test_merge_from_copies_its_base_unless_told_the_base_stays_put():
    base = {"metadata": {"name": "a", "resourceVersion": "5"}, "data": {"v": "1"}}
    modified = {"metadata": {"name": "a", "resourceVersion": "5"}, "data": {"v": "2"}}
    for patch_type in (MergeFrom, StrategicMergeFrom):
        copied, kept = patch_type(base), patch_type(base, copy=False)
        assert kept.base is base and copied.base == base and copied.base is not base
        assert copied.body(modified) == kept.body(modified) == {"data": {"v": "2"}}
        base["data"]["v"] = "2"  # the caller changes its object: only the copying patch still sees "1"
        assert copied.body(modified) == {"data": {"v": "2"}} and kept.body(modified) == {}
        base["data"]["v"] = "1"
    shared = MergeFrom(base, optimistic_lock=True, copy=False)
    assert shared.based_on(modified) == "5" and shared.body(modified)["metadata"] == {"resourceVersion": "5"}


def test_json_patch_strategic_apply_raw_and_status_variants():
    sim, mgr, client = setup()
    sim.store.create("pods", {"metadata": {"name": "p", "namespace": "default", "labels": {"a": "1"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}, actor="u")

    async def go():
        pod = await client.live.get("pods", "p", "default")
        await client.patch("pods", pod, JSONPatch([{"op": "add", "path": "/metadata/labels/b", "value": "2"}]))
        assert pod["metadata"]["labels"] == {"a": "1", "b": "2"}
        base = {**pod, "metadata": {**pod["metadata"], "labels": dict(pod["metadata"]["labels"])}}
        del pod["metadata"]["labels"]["a"]
        await client.patch("pods", pod, StrategicMergeFrom(base))
        assert pod["metadata"]["labels"] == {"b": "2"}
        await client.patch("pods", pod, RawPatch("application/merge-patch+json", {"metadata": {"labels": {"c": "3"}}}))
        assert pod["metadata"]["labels"] == {"b": "2", "c": "3"}
        base = {**pod, "status": dict(pod["status"])}
        pod["status"]["message"] = "hi"
        await client.status_patch("pods", pod, MergeFrom(base))
        assert pod["status"]["message"] == "hi"
        pod["status"]["reason"] = "Because"
        await client.status_update("pods", pod)
        assert pod["status"]["reason"] == "Because"
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": "default"},
               "data": {"k": "v"}}
        await client.patch("configmaps", cfg, Apply(field_owner="ctl"))
        assert cfg["metadata"]["resourceVersion"]

    run(sim, go())
    kinds = [(e.verb, e.subresource, e.patch_type) for e in sim.audit if e.actor == "ctl" and e.verb != "get"]
    assert kinds == [
        ("patch", None, "application/json-patch+json"),
        ("patch", None, "application/strategic-merge-patch+json"),
        ("patch", None, "application/merge-patch+json"),
        ("patch", "status", "application/merge-patch+json"),
        ("update", "status", None),
        ("patch", None, "application/apply-patch+yaml"),
    ]


def test_delete_propagates_errors_and_takes_a_policy():
    sim, mgr, client = setup()
    sim.store.create("configmaps", cm("a"), actor="u")

    async def go():
        await client.delete("configmaps", "a", "default", propagation_policy="Foreground")
        with pytest.raises(errors.NotFound):
            await client.delete("configmaps", {"metadata": {"name": "nope", "namespace": "default"}})

    run(sim, go())
    assert [e.code for e in sim.audit.filter(verb="delete")] == [200, 404]


def test_token_bucket_throttles_requests():
    sim, mgr, client = setup(qps=10, burst=2)

    async def go():
        for i in range(5):
            await client.create("configmaps", cm(f"c{i}"))

    run(sim, go())
    times = [round(e.time - sim.audit[0].time, 4) for e in sim.audit.filter(verb="create", actor="ctl")]
    # two from the burst, then one every 100 ms
    assert times == [0.0, 0.0, 0.1, 0.2, 0.3]
    assert mgr.bucket_for(sim.resolve("configmaps")).throttled == 3 == mgr.throttled


def test_each_resource_type_has_its_own_token_bucket():
    """controller-runtime builds one REST client, so one client-go token bucket, per GroupVersionKind."""
    sim, mgr, client = setup(qps=10, burst=2)

    async def go():
        for i in range(3):
            await client.create("configmaps", cm(f"c{i}"))
            await client.create("secrets", {"metadata": {"name": f"s{i}", "namespace": "default"}})

    run(sim, go())
    start = sim.audit[0].time
    times = {resource: [round(e.time - start, 4) for e in sim.audit.filter(verb="create", resource=resource)]
             for resource in ("configmaps", "secrets")}
    # Each type has its own burst of 2; the third configmap waits 100 ms, and the third secret, sent after
    # it, finds its own bucket refilled. One bucket for both would have spaced them 0, 0, .1, .2, .3, .4.
    assert times == {"configmaps": [0.0, 0.0, 0.1], "secrets": [0.0, 0.0, 0.1]}
    assert set(mgr.buckets) == {"configmaps.", "secrets."}
    assert (mgr.bucket_for(sim.resolve("configmaps")).throttled, mgr.bucket_for(sim.resolve("secrets")).throttled) \
        == (1, 0)


def test_fault_delay_is_paid_after_the_store_answers():
    from fakekube.faults import FaultRule

    sim, mgr, client = setup()
    sim.store.faults.add(FaultRule(verb="create", delay=0.5))

    async def go():
        await client.create("configmaps", cm("slow"))
        return sim.now

    assert run(sim, go()) == pytest.approx(0.5)


def test_strategic_merge_from_uses_the_kinds_merge_keys():
    """Removing a container merges by name (a $patch: delete), and the other containers are kept as they are.
    (A pod's containers cannot be removed, so the template of a Deployment shows it.)"""
    sim, mgr, client = setup()
    containers = [{"name": n, "image": "i"} for n in ("a", "b", "c")]
    sim.store.create("deployments", {"metadata": {"name": "d", "namespace": "default"}, "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": containers}}}}, actor="u")

    def names(obj):
        return [c["name"] for c in obj["spec"]["template"]["spec"]["containers"]]

    async def go():
        deploy = await client.live.get("deployments", "d", "default")
        base = json_copy(deploy)
        pod_spec = deploy["spec"]["template"]["spec"]
        pod_spec["containers"] = [c for c in pod_spec["containers"] if c["name"] != "b"]
        await client.patch("deployments", deploy, StrategicMergeFrom(base))
        return names(deploy)

    assert run(sim, go()) == ["a", "c"]
    assert names(sim.store.get("deployments", "d", "default")) == ["a", "c"]
