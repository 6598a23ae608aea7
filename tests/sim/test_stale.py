"""The stale-overwrite detector on its own."""

from __future__ import annotations

import itertools

from fakekube.sim import MergeFrom, Simulation
from fakekube.sim.stale import IGNORED, changed_paths, relevant_paths, render_path

_IGNORED_SET = frozenset(IGNORED)
_IGNORED_LENGTHS = sorted({len(i) for i in IGNORED})


def _relevant(paths):
    """The reference filter relevant_paths is held to: the paths not under an IGNORED prefix."""
    return [p for p in paths if not any(p[:n] in _IGNORED_SET for n in _IGNORED_LENGTHS if len(p) >= n)]


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


def _brute_force_stale(writes, history):
    """The detector's rule written out from scratch: (seq, paths, other seq) for every stale overwrite."""
    from fakekube.sim.stale import _overlap

    found = []
    for i, (entry, old, new) in enumerate(writes):
        current = int(old["metadata"]["resourceVersion"]) if old is not None else 0
        based_on = int(entry.based_on) if entry.based_on else 0
        if old is None or not based_on or based_on >= current:
            continue
        remembered = writes[max(0, i - history):i]
        later = [w for w in remembered if int(w[2]["metadata"]["resourceVersion"]) > based_on]
        mine = _relevant(changed_paths(old, new))
        hits = {}
        for path in mine:
            for other, before, after in reversed(later):
                if before is not None and any(_overlap(path, t) for t in _relevant(changed_paths(before, after))):
                    hits.setdefault(other.seq, []).append(render_path(path))
                    break
        found.extend((entry.seq, paths, seq) for seq, paths in hits.items())
    return found


def test_remembered_paths_give_what_diffing_every_write_again_gives():
    # The detector keeps each write's changed paths once a stale write has diffed them (and a stale write's own):
    # random writes to one object, many of them stale, must be reported as diffing everything afresh reports them.
    import random

    from fakekube.audit import AuditEntry
    from fakekube.sim.stale import StaleDetector

    for seed in range(20):
        rng = random.Random(seed)
        history = rng.choice((2, 4, 16))
        detector = StaleDetector(history)
        obj = {"metadata": {"uid": "u1", "resourceVersion": "1"}, "data": {}}
        versions = [obj]
        writes = []
        for seq in range(1, 60):
            new = {"metadata": {"uid": "u1", "resourceVersion": str(seq + 1)},
                   "data": {**obj["data"], rng.choice("abcd"): str(rng.randrange(3))}}
            if rng.random() < 0.3:
                new["data"].pop(rng.choice("abcd"), None)
            base = rng.choice(versions[-6:])
            entry = AuditEntry(seq=seq, time=0.0, actor=f"actor-{rng.randrange(3)}", verb="update", group="",
                               resource="configmaps", namespace="ns", name="a",
                               based_on=base["metadata"]["resourceVersion"], uid="u1")
            detector(entry, obj, new)
            writes.append((entry, obj, new))
            versions.append(new)
            obj = new
        expected = _brute_force_stale(writes, history)
        assert [(r.seq, r.paths, r.other_seq) for r in detector.records] == expected, seed
        assert expected, seed  # the case exercises stale writes at all
        # Incomplete: a stale write whose base is older than every remembered write of a full history.
        incomplete = 0
        for i, (entry, old, _new) in enumerate(writes):
            remembered = writes[max(0, i - history):i]
            if (int(entry.based_on) < int(old["metadata"]["resourceVersion"]) and len(remembered) == history
                    and all(int(w[2]["metadata"]["resourceVersion"]) > int(entry.based_on) for w in remembered)):
                incomplete += 1
        assert detector.incomplete == incomplete, seed


def test_relevant_paths_are_the_changed_paths_without_bookkeeping():
    # relevant_paths skips the IGNORED subtrees while it walks; it must give exactly what filtering the full diff
    # gives, in the same order, on random documents that put keys and non-dicts where IGNORED looks.
    import random

    keys = ["metadata", "resourceVersion", "generation", "managedFields", "labels", "status", "a"]

    def doc(rng: random.Random, depth: int):
        if depth == 0 or rng.random() < 0.25:
            return rng.choice([1, "x", [1, 2], [{"a": 1}], None, {}])
        return {k: doc(rng, depth - 1) for k in rng.sample(keys, rng.randrange(1, 5))}

    def mutate(rng: random.Random, value, depth: int):
        if isinstance(value, dict) and depth:
            out = dict(value)
            for key in list(out):
                roll = rng.random()
                if roll < 0.15:
                    del out[key]
                elif roll < 0.6:
                    out[key] = mutate(rng, out[key], depth - 1)
            if rng.random() < 0.3:
                out[rng.choice(keys)] = doc(rng, depth - 1)
            return out
        return doc(rng, depth) if rng.random() < 0.5 else value

    checked = 0
    for seed in range(3000):
        rng = random.Random(seed)
        old = {"metadata": doc(rng, 3), "status": doc(rng, 2)}
        new = mutate(rng, old, 4)
        expected = _relevant(changed_paths(old, new))
        assert relevant_paths(old, new) == expected, seed
        checked += len(changed_paths(old, new)) != len(expected)
    assert checked > 100  # many cases had bookkeeping paths to drop
