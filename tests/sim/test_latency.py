"""Per-verb request latency: the most specific class wins, the commit falls at ``commit_at`` of the round trip,
and the model round-trips through JSON."""

from __future__ import annotations

import json
import random

import pytest

from fakekube.sim import Lag, RequestLatency, Simulation


def test_the_most_specific_class_wins():
    lat = RequestLatency(default=0.010, classes={"create": 0.020, "create pods": 0.050,
                                                 "patch sandboxes/status": 0.030})
    assert lat.round_trip("create", "pods") == Lag.fixed(0.050)
    assert lat.round_trip("create", "services") == Lag.fixed(0.020)
    assert lat.round_trip("patch", "sandboxes", "status") == Lag.fixed(0.030)
    assert lat.round_trip("patch", "sandboxes") == Lag.fixed(0.010)
    assert lat.round_trip("create", "pods", "binding") == Lag.fixed(0.020)  # its own handler: the verb's class
    assert lat.split("create", "pods", None, random.Random(1)) == pytest.approx((0.025, 0.025))


def test_requests_commit_at_the_fraction_of_their_class_round_trip():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", latency=RequestLatency(default=0.010, classes={"create pods": 0.050}, commit_at=0.8))
    client = mgr.client("c")
    done = {}

    async def go():
        await client.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}})
        done["configmap"] = sim.now
        await client.create("pods", {"metadata": {"name": "p", "namespace": "default"},
                                     "spec": {"containers": [{"name": "c", "image": "i"}]}})
        done["pod"] = sim.now

    sim.run_until_complete(go())
    start = sim.start_timestamp
    commits = {e.resource: round(e.time - start, 6) for e in sim.audit.filter(verb="create")}
    assert commits == {"configmaps": 0.008, "pods": 0.050}  # 0.010 + 0.8 * 0.050
    assert done == pytest.approx({"configmap": 0.010, "pod": 0.060})


def test_model_json_round_trip():
    lat = RequestLatency(default=Lag.uniform(0.011, 0.017), classes={"create pods": Lag.exponential(0.05, cap=0.2)},
                         commit_at=0.75)
    again = RequestLatency.from_dict(json.loads(json.dumps(lat.to_dict())))
    assert again == lat
    assert Lag.from_dict(Lag.fixed(0.5).to_dict()) == Lag.fixed(0.5)
    with pytest.raises(ValueError):
        Lag.from_dict({"gamma": 1})
    with pytest.raises(ValueError):
        RequestLatency(commit_at=1.5)


def test_a_lag_draws_what_random_draws():
    # Lag.sample spells out Random.uniform and Random.expovariate: the same stream must give the same floats, bit
    # for bit, as calling them (every seeded run's timing, and so its audit log, depends on it).
    import random

    for lag in (Lag.uniform(0.001, 0.003), Lag.uniform(0.0, 0.0), Lag.exponential(0.02), Lag.exponential(0.02, 0.05),
                Lag.exponential(0.0), Lag.fixed(0.5)):
        ours, theirs = random.Random(7), random.Random(7)
        for _ in range(2000):
            if lag.kind == "uniform":
                expected = theirs.uniform(lag.a, lag.b)
            elif lag.kind == "exponential" and lag.a:
                value = theirs.expovariate(1.0 / lag.a)
                expected = min(value, lag.b) if lag.b else value
            else:
                expected = lag.a if lag.kind == "fixed" else 0.0
            assert lag.sample(ours).hex() == expected.hex(), lag
        assert ours.getstate() == theirs.getstate()


def test_client_time_follows_each_answer_and_comes_before_a_passes_first_request_after_its_reads():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", latency=RequestLatency(default=0.010, commit_at=0.5, client=0.003))
    client = mgr.client("c")
    seen: dict[str, float] = {}

    async def reconcile(req):
        seen.setdefault("read", sim.now)  # the cache read: at the pass's start, not after the client time
        await client.cache_read()
        obj = await client.get("configmaps", req.name, req.namespace)
        obj.setdefault("metadata", {}).setdefault("labels", {})["seen"] = "1"
        await client.update("configmaps", obj)
        seen.setdefault("end", sim.now)

    mgr.controller("c", reconcile).for_("configmaps")
    sim.store.create("configmaps", {"metadata": {"name": "a", "namespace": "default"}}, actor="user")
    sim.run(until=1.0)
    start = sim.start_timestamp
    update = next(e for e in sim.audit.filter(verb="update"))
    # pass start 0 (no watch delay) + 3 ms before its first request + half of the 10 ms round trip
    assert round(update.time - start, 6) == pytest.approx(seen["read"] + 0.003 + 0.005)
    # the answer 5 ms after the commit, then 3 ms of the caller's own work before the pass goes on
    assert seen["end"] == pytest.approx(seen["read"] + 0.003 + 0.010 + 0.003)


def test_a_model_without_client_time_draws_nothing_for_it():
    def run(latency):
        sim = Simulation(seed=7)
        mgr = sim.manager("m", latency=latency)
        client = mgr.client("c")

        async def go():
            for i in range(5):
                await client.create("configmaps", {"metadata": {"name": f"c{i}", "namespace": "default"}})

        sim.run_until_complete(go())
        return [round(e.time - sim.start_timestamp, 9) for e in sim.audit.filter(verb="create")]

    lag = Lag.uniform(0.005, 0.015)
    assert run(RequestLatency(default=lag)) == run(RequestLatency(default=lag, client=0.0))
    assert run(RequestLatency(default=lag)) != run(RequestLatency(default=lag, client=0.002))


def test_client_time_per_class_round_trips_through_json():
    lat = RequestLatency(default=0.010, client=0.002, client_classes={"patch sandboxclaims/status": Lag.uniform(
        0.0025, 0.0093)})
    assert lat.client_time("patch", "sandboxclaims", "status") == Lag.uniform(0.0025, 0.0093)
    assert lat.client_time("patch", "sandboxclaims") == Lag.fixed(0.002)
    assert RequestLatency.from_dict(json.loads(json.dumps(lat.to_dict()))) == lat
