"""Informer caches: seeded lag, in-order delivery, Sieve-style hold/release and stale serving."""

from __future__ import annotations

from fakekube.sim import Lag, Simulation


def cm(name, v):
    return {"metadata": {"name": name, "namespace": "default"}, "data": {"v": v}}


def test_delivery_is_lagged_and_never_goes_backwards():
    sim = Simulation(seed=3)
    mgr = sim.manager("m", cache_lag=Lag.uniform(0.0, 0.050))
    inf = mgr.informer("configmaps")
    seen = []
    from fakekube.sim import InformerHandler

    inf.add_handler(InformerHandler(on_add=lambda o, i: seen.append(o["metadata"]["resourceVersion"]),
                            on_update=lambda old, new: seen.append(new["metadata"]["resourceVersion"])))

    async def writer():
        sim.store.create("configmaps", cm("a", "0"), actor="u")
        for i in range(1, 30):
            await sim.sleep(0.001)
            sim.store.patch("configmaps", "a", {"data": {"v": str(i)}}, "default", actor="u")

    sim.spawn(writer())
    sim.run()
    assert [int(rv) for rv in seen] == sorted(int(rv) for rv in seen)
    assert len(seen) == 30
    assert inf.get("default", "a")["data"]["v"] == "29"


def test_per_kind_lag_overrides_the_manager_default():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=0.001, per_kind_lag={"secrets": 0.5})
    assert mgr.informer("configmaps").lag == Lag.fixed(0.001)
    assert mgr.informer("secrets").lag == Lag.fixed(0.5)


def test_hold_and_release_one_kind():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=0.001)
    other = sim.manager("other", cache_lag=0.001)
    mine, theirs = mgr.informer("configmaps"), other.informer("configmaps")
    mgr.hold("configmaps")
    sim.store.create("configmaps", cm("a", "1"), actor="u")
    sim.run()
    assert mine.get("default", "a") is None and mine.backlog == 1
    assert theirs.get("default", "a") is not None  # only this manager is held back
    mgr.release("configmaps")
    sim.run()
    assert mine.get("default", "a")["data"]["v"] == "1"


def test_serve_stale_returns_an_older_copy_until_cleared():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    client = mgr.client("c")
    old = sim.store.create("configmaps", cm("a", "old"), actor="u")
    sim.store.patch("configmaps", "a", {"data": {"v": "new"}}, "default", actor="u")
    sim.run()
    mgr.serve_stale("configmaps", old)

    async def read():
        return (await client.get("configmaps", "a", "default"))["data"]["v"], \
            [o["data"]["v"] for o in await client.list("configmaps", "default")]

    assert sim.run_until_complete(read()) == ("old", ["old"])
    mgr.clear_stale("configmaps")
    assert sim.run_until_complete(read()) == ("new", ["new"])


def test_a_handler_added_later_gets_the_cached_objects_as_initial_adds():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    sim.store.create("configmaps", cm("a", "1"), actor="u")
    inf = mgr.informer("configmaps")
    from fakekube.sim import InformerHandler

    got = []
    inf.add_handler(InformerHandler(on_add=lambda o, initial: got.append((o["metadata"]["name"], initial))))
    assert got == [("a", True)]


def _arrivals(sim, inf):
    seen = []
    from fakekube.sim import InformerHandler

    inf.add_handler(InformerHandler(on_add=lambda o, i: seen.append(round(sim.now, 6)),
                                    on_update=lambda old, new: seen.append(round(sim.now, 6))))
    return seen


def test_the_transport_delay_is_one_per_watch_stream():
    """Every event of one stream arrives the same time after its commit: a slow event cannot hold back
    later ones, because there is no per-event delay to be slow."""
    sim = Simulation(seed=4)
    mgr = sim.manager("m", cache_lag=Lag.uniform(0.001, 0.050))
    inf = mgr.informer("configmaps")
    seen = _arrivals(sim, inf)
    _create_every(sim, 5, 0.010)
    assert 0.001 <= inf.transport <= 0.050
    assert seen == [round(0.010 * i + inf.transport, 6) for i in range(5)]
    other = Simulation(seed=5).manager("m", cache_lag=Lag.uniform(0.001, 0.050)).informer("configmaps")
    assert other.transport != inf.transport  # drawn from the stream's seeded generator


def test_a_delay_per_event_varies_along_one_stream_and_keeps_commit_order():
    """With ``cache_lag_per_event`` each event draws its own delay, and one drawn shorter than the event before
    it waits behind it (one stream delivers in order)."""
    sim = Simulation(seed=4)
    mgr = sim.manager("m", cache_lag=Lag.uniform(0.001, 0.050), cache_lag_per_event=True)
    inf = mgr.informer("configmaps")
    seen = _arrivals(sim, inf)
    _create_every(sim, 20, 0.002)
    delays = [round(at - 0.002 * i, 6) for i, at in enumerate(seen)]
    assert seen == sorted(seen) and len(seen) == 20
    assert all(0.001 <= d <= 0.050 + 0.002 * 20 for d in delays)
    assert len(set(delays)) > 10  # not one delay for the stream
    held = [i for i in range(1, 20) if seen[i] == seen[i - 1]]
    assert held  # some event drew less than the one before it minus 2 ms, and waited for it


def test_one_consumer_queues_events_that_come_faster_than_it_handles_them():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=0.002, handling=0.001)
    inf = mgr.informer("configmaps")
    seen = _arrivals(sim, inf)

    async def burst():
        for i in range(4):  # four commits at the same instant: the 4th waits for three handlings
            sim.store.create("configmaps", cm(f"b{i}", "x"), actor="u")
        await sim.sleep(0.050)
        sim.store.create("configmaps", cm("alone", "x"), actor="u")  # an idle consumer: transport + one handling

    sim.spawn(burst())
    sim.run()
    assert seen == [0.003, 0.004, 0.005, 0.006, 0.053]


def test_hold_and_release_with_a_handling_cost():
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=0.001, handling=0.002)
    inf = mgr.informer("configmaps")
    seen = _arrivals(sim, inf)
    mgr.hold("configmaps")
    for i in range(3):
        sim.store.create("configmaps", cm(f"h{i}", "x"), actor="u")
    sim.run(until=1.0, until_idle=False)
    assert seen == [] and inf.backlog == 3
    mgr.release("configmaps")
    sim.run()
    assert seen == [1.002, 1.004, 1.006]  # the backlog is worked through one event at a time


def _create_every(sim, count, every):
    """Create ConfigMaps c0, c1, ... ``every`` seconds apart, and run the simulation to the end."""
    async def writer():
        for i in range(count):
            sim.store.create("configmaps", cm(f"c{i}", "x"), actor="u")
            await sim.sleep(every)

    sim.spawn(writer())
    sim.run()
