"""The stale-overwrite detector on its own."""

from __future__ import annotations

import itertools

from fakekube.sim import MergeFrom, Simulation
from fakekube.sim.stale import IGNORED, _relevant, changed_paths, render_path


def test_changed_paths_are_leaves_with_lists_whole():
    old = {"metadata": {"labels": {"a": "1", "x.io/k": "v"}}, "status": {"conditions": [{"type": "A"}], "n": 1}}
    new = {"metadata": {"labels": {"a": "2"}}, "status": {"conditions": [{"type": "A"}, {"type": "B"}], "n": 1},
           "spec": {}}
    assert sorted(render_path(p) for p in changed_paths(old, new)) == [
        "metadata.labels.a", "metadata.labels[x.io/k]", "spec", "status.conditions"]


def _setup():
    sim = Simulation(seed=1)
    mgr = sim.manager("m")
    return sim, mgr.client("late-writer")


def test_blind_patch_over_another_actors_newer_write_is_flagged_with_both_actors():
    sim, client = _setup()
    sim.store.create("configmaps", {"metadata": {"name": "a", "namespace": "default"},
                                    "data": {"owner": "none", "x": "1"}}, actor="u")

    async def go():
        obj = await client.live.get("configmaps", "a", "default")
        base = {**obj, "data": dict(obj["data"])}
        sim.store.patch("configmaps", "a", {"data": {"owner": "fast-writer"}}, "default", actor="fast-writer")
        sim.store.patch("configmaps", "a", {"data": {"x": "2"}}, "default", actor="other")
        obj["data"]["owner"] = "late-writer"
        await client.patch("configmaps", obj, MergeFrom(base))

    sim.run_until_complete(go())
    [record] = sim.stale_overwrites()
    assert record.actor == "late-writer" and record.other_actor == "fast-writer"
    assert record.paths == ["data.owner"]
    assert record.target == "configmaps/a"
    assert sim.summary()["stale_by_actor"] == {"late-writer": 1}


def test_no_flag_when_the_write_touches_other_fields_or_writes_the_same_value():
    sim, client = _setup()
    sim.store.create("configmaps", {"metadata": {"name": "a", "namespace": "default"},
                                    "data": {"a": "1", "b": "1"}}, actor="u")

    async def go():
        obj = await client.live.get("configmaps", "a", "default")
        base = {**obj, "data": dict(obj["data"])}
        sim.store.patch("configmaps", "a", {"data": {"a": "2"}}, "default", actor="other")
        obj["data"]["b"] = "2"
        await client.patch("configmaps", obj, MergeFrom(base))
        obj2 = {**obj, "data": dict(obj["data"])}
        base2 = {**base, "data": dict(base["data"])}
        obj2["data"]["a"] = "2"  # the same value the other writer set: nothing is lost
        await client.patch("configmaps", obj2, MergeFrom(base2))

    sim.run_until_complete(go())
    assert sim.stale_overwrites() == []


def test_bookkeeping_paths_are_dropped_and_shared_subtrees_are_unchanged():
    parts = ["metadata", "resourceVersion", "generation", "managedFields", "labels", "status"]
    paths = [tuple(c) for n in range(4) for c in itertools.product(parts, repeat=n)]
    assert _relevant(paths) == [p for p in paths if not any(p[:len(i)] == i for i in IGNORED)]
    spec = {"containers": [{"name": "a"}]}
    old = {"metadata": {"resourceVersion": "1", "labels": {"a": "1"}}, "spec": spec}
    new = {"metadata": {"resourceVersion": "2", "labels": {"a": "2"}}, "spec": spec}
    assert _relevant(changed_paths(old, new)) == [("metadata", "labels", "a")]
    assert changed_paths(old, {**new, "spec": {"containers": [{"name": "b"}]}})[-1] == ("spec", "containers")
