"""Public API the reconciler ports asked for: copy-free cache reads, cache_read(), the recorder's event API."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.sim import Simulation


def cm(name: str, **data: str) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "labels": {"app": "x"}}, "data": dict(data)}


def setup_cache():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=0.0)
    client = mgr.client("ctl")
    mgr.informer("configmaps")
    sim.store.create("configmaps", cm("a", k="1"), actor="user")
    sim.store.create("configmaps", cm("b", k="2"), actor="user")
    sim.run()
    return sim, mgr, client


def test_copy_false_returns_the_cache_object_and_copies_are_isolated():
    sim, mgr, client = setup_cache()

    async def go():
        shared1 = await client.get("configmaps", "a", "default", copy=False)
        shared2 = await client.get("configmaps", "a", "default", copy=False)
        copied = await client.get("configmaps", "a", "default")
        listed = await client.list("configmaps", "default", labels={"app": "x"}, copy=False)
        return shared1, shared2, copied, listed

    shared1, shared2, copied, listed = sim.run_until_complete(go())
    assert shared1 is shared2  # the same cached object, no copy
    assert copied == shared1 and copied is not shared1
    assert [o["metadata"]["name"] for o in listed] == ["a", "b"]
    assert listed[0] is shared1
    copied["data"]["k"] = "changed"  # a copy may be mutated freely ...
    assert shared1["data"]["k"] == "1"  # ... without touching the cache


def test_copy_false_objects_are_snapshots_that_never_change_under_the_reader():
    sim, mgr, client = setup_cache()

    async def read():
        return await client.get("configmaps", "a", "default", copy=False)

    before = sim.run_until_complete(read())
    rv = before["metadata"]["resourceVersion"]
    live = sim.store.get("configmaps", "a", "default")
    live["data"]["k"] = "3"
    sim.store.update("configmaps", live, actor="user")
    sim.run()
    after = sim.run_until_complete(read())
    # The cache moved on to a new object; the one handed out earlier still shows the state it was read at.
    assert after["data"]["k"] == "3" and after is not before
    assert before["data"]["k"] == "1" and before["metadata"]["resourceVersion"] == rv


def test_copy_false_list_is_a_fresh_list_and_not_found_still_raises():
    sim, mgr, client = setup_cache()

    async def go():
        first = await client.list("configmaps", "default", copy=False)
        first.clear()  # the list itself is the caller's
        second = await client.list("configmaps", "default", copy=False)
        with pytest.raises(errors.NotFound):
            await client.get("configmaps", "missing", "default", copy=False)
        return second

    assert len(sim.run_until_complete(go())) == 2


def test_cache_read_costs_what_a_cache_read_costs():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_read_latency=0.005)
    client = mgr.client("ctl")
    assert not client.is_live and client.live.is_live

    async def go():
        start = sim.now
        await client.cache_read()
        return sim.now - start

    assert sim.run_until_complete(go()) == pytest.approx(0.005)


def _recorded(api: str | None) -> tuple[list[str], list[dict]]:
    """(group/resource of the recorder's writes, the Events as stored)."""
    sim = Simulation(seed=1)
    mgr = sim.manager("m", api_latency=0.002, event_delay=0.001)
    rec = mgr.event_recorder("ctl") if api is None else mgr.event_recorder("ctl", api=api)
    obj = sim.store.create("configmaps", cm("a"), actor="user")
    rec.event(obj, "Normal", "Adopted", "adopted it")
    sim.run()
    writes = [f"{e.group}/{e.resource}" for e in sim.audit if e.actor == "ctl"]
    # Both APIs share one storage; read back through the API the recorder wrote with.
    events = sim.store.objects("events" if api == "core" else "events.events.k8s.io", "default")
    return writes, events


def test_event_recorder_api_choice():
    writes, events = _recorded(None)  # default: events.k8s.io/v1
    assert writes == ["events.k8s.io/events"] and events[0]["apiVersion"] == "events.k8s.io/v1"
    assert events[0]["note"] == "adopted it" and events[0]["regarding"]["name"] == "a"

    writes, events = _recorded("core")
    assert writes == ["/events"] and events[0]["apiVersion"] == "v1"
    assert events[0]["message"] == "adopted it" and events[0]["involvedObject"]["name"] == "a"
    assert events[0]["source"] == {"component": "ctl"}

    _writes, events = _recorded("events")
    assert events[0]["apiVersion"] == "events.k8s.io/v1"


def test_event_recorder_api_is_fixed_per_name_and_validated():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    rec = mgr.event_recorder("ctl", api="core")
    assert mgr.event_recorder("ctl", api="core") is rec
    with pytest.raises(ValueError, match="already writes"):
        mgr.event_recorder("ctl")
    with pytest.raises(ValueError, match="unknown event API"):
        mgr.event_recorder("other", api="bogus")


def test_response_latency_splits_a_request_at_the_commit():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", api_latency=0.002, response_latency=0.003, cache_lag=0.001)
    client = mgr.client("ctl")
    mgr.informer("configmaps")
    seen: list[float] = []

    async def go():
        start = sim.now
        await client.create("configmaps", cm("a"))
        returned = sim.now - start
        seen.append(returned)
        cached = await client.get("configmaps", "a", "default")  # the watch event beat the response
        return cached

    cached = sim.run_until_complete(go())
    entry = next(e for e in sim.audit if e.verb == "create")
    assert entry.time - sim.start_timestamp == pytest.approx(0.002, abs=1e-6)  # committed after the request leg
    assert seen == [pytest.approx(0.005)]  # answered after the response leg
    assert cached["metadata"]["name"] == "a"


def test_response_latency_applies_to_errors_and_zero_changes_nothing():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", api_latency=0.002, response_latency=0.003)
    client = mgr.client("ctl")

    async def go():
        start = sim.now
        with pytest.raises(errors.NotFound):
            await client.delete("configmaps", "missing", "default")
        return sim.now - start

    assert sim.run_until_complete(go()) == pytest.approx(0.005)
    assert Simulation(seed=1).manager("m").response_latency.is_zero
