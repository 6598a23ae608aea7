"""Hold rules force a stale read in every seed: the guestbook's lost update, searched for and then pinned."""

from __future__ import annotations

import pytest

from fakekube.explore import AfterTime, AfterWrite, HoldRule, Perturbation, explore, replay
from fakekube.sim import Lag, Simulation
from tests.explore import guestbook

# Hold the guestbook manager's ConfigMap cache from the controller's first write to the book until its next
# write attempt (or one second): the next pass reads the book as it was before its own write.
RULE = HoldRule("configmaps", name=guestbook.BOOK, writer=guestbook.ACTOR, manager=guestbook.MANAGER,
                until=(AfterWrite(actor=guestbook.ACTOR, committed=False), AfterTime(1.0)))
INVARIANTS = [guestbook.every_guest_greeted, "no-stale-overwrite", "no-conflict"]


def test_a_search_finds_the_lost_update_in_some_seeds_only() -> None:
    found = explore(guestbook.scenario, "1-12", {"lock": False}, invariants=INVARIANTS)
    lost = {o.seed for o in found.failures("every-guest-greeted")}
    assert lost and len(lost) < 12
    assert lost == {o.seed for o in found.failures("no-stale-overwrite")}  # lost greeting = stale overwrite


@pytest.mark.parametrize("lock", [False, True])
def test_the_hold_forces_the_race_in_every_seed(lock: bool) -> None:
    forced = explore(guestbook.scenario, "1-8", {"lock": lock}, invariants=INVARIANTS,
                     perturbation=Perturbation(holds=(RULE,)))
    assert all(o.holds == 1 for o in forced.outcomes)
    if not lock:  # the blind merge patch loses a greeting, every time
        assert len(forced.failures("every-guest-greeted")) == 8 == len(forced.failures("no-stale-overwrite"))
    else:  # the locked patch gets 409 instead, and the retry greets everyone
        assert len(forced.failures("no-conflict")) == 8
        assert not forced.failures("every-guest-greeted") and not forced.failures("no-stale-overwrite")


def test_hold_and_release_show_in_the_timeline() -> None:
    result = replay(guestbook.scenario, 3, {"lock": False}, perturbation=Perturbation(holds=(RULE,)))
    (holds,) = result.run.holds
    assert [e.action for e in holds.log] == ["hold", "release"] and holds.active == 0
    assert "write attempt" in holds.log[1].why
    rows = result.timeline_of("configmaps/guestbook").rows
    started = next(r for r in rows if any("hold guestbook-manager cache" in n for n in r.notes))
    ended = next(r for r in rows if any("released guestbook-manager cache" in n for n in r.notes))
    assert started.step < ended.step
    assert any(n.startswith("stale overwrite: data.log") for n in ended.notes)  # the pass that read the held cache


def test_a_held_cache_delivers_nothing_until_released_then_everything_in_order() -> None:
    sim = Simulation(seed=1)
    mgr = sim.manager("m", cache_lag=Lag.fixed(0.010))
    informer = mgr.informer("configmaps")
    seen: list[str] = []
    from fakekube.sim import InformerHandler

    informer.add_handler(InformerHandler(on_update=lambda old, new: seen.append(new["data"]["v"])))
    from fakekube.explore.holds import Holds

    holds = Holds(sim, (HoldRule("configmaps", name="a", writer="w", until=AfterTime(0.5), manager="m"),))
    sim.store.create("configmaps", {"metadata": {"name": "a"}, "data": {"v": "0"}}, "default", actor="w")
    sim.store.create("configmaps", {"metadata": {"name": "b"}, "data": {"v": "0"}}, "default", actor="w")
    sim.run(for_=0.1)
    for i, name in enumerate(("a", "b", "a"), start=1):
        sim.store.patch("configmaps", name, {"data": {"v": str(i)}}, "default", actor="w")
    sim.run(for_=0.1)
    assert seen == [] and informer.get("default", "a")["data"]["v"] == "0" and informer.backlog == 3
    sim.run(for_=1)
    assert seen == ["1", "2", "3"] and informer.get("default", "a")["data"]["v"] == "3"
    assert [e.action for e in holds.log] == ["hold", "release"] and holds.log[1].why == "after 0.5s"


def test_stale_mode_pins_one_object_while_others_flow() -> None:
    sim = Simulation(seed=1)
    informer = sim.manager("m", cache_lag=Lag.fixed(0.010)).informer("configmaps")
    from fakekube.explore.holds import Holds

    Holds(sim, (HoldRule("configmaps", name="a", mode="stale", until=AfterWrite(name="b"), manager="m"),))
    for name in ("a", "b"):
        sim.store.create("configmaps", {"metadata": {"name": name}, "data": {"v": "0"}}, "default", actor="w")
    sim.run(for_=0.1)
    sim.store.patch("configmaps", "a", {"data": {"v": "1"}}, "default", actor="w")
    sim.run(for_=0.1)
    assert informer.get("default", "a")["data"]["v"] == "0" and informer.backlog == 0  # delivered, yet pinned
    sim.store.patch("configmaps", "b", {"data": {"v": "1"}}, "default", actor="w")
    assert informer.get("default", "a")["data"]["v"] == "1"  # released by the write to b


def test_two_rules_on_one_informer_release_it_when_both_are_done() -> None:
    sim = Simulation(seed=1)
    informer = sim.manager("m", cache_lag=Lag.fixed(0.001)).informer("configmaps")
    from fakekube.explore.holds import Holds

    Holds(sim, (HoldRule("configmaps", name="a", events="ADDED", until=AfterTime(0.2)),
                HoldRule("configmaps", name="b", events="ADDED", until=AfterTime(0.5))))
    for name in ("a", "b"):
        sim.store.create("configmaps", {"metadata": {"name": name}}, "default", actor="w")
    sim.run(for_=0.3)
    assert informer.held and len(informer) == 0
    sim.run(for_=0.3)
    assert not informer.held and len(informer) == 2


def test_rules_count_skip_and_times() -> None:
    sim = Simulation(seed=1)
    informer = sim.manager("m", cache_lag=Lag.fixed(0.001)).informer("configmaps")
    from fakekube.explore.holds import Holds

    holds = Holds(sim, (HoldRule("configmaps", events="*", skip=1, times=2, until=AfterTime(0.01)),))
    for i in range(5):
        sim.store.create("configmaps", {"metadata": {"name": f"c{i}"}}, "default", actor="w")
        sim.run(for_=0.1)
    assert [e.target for e in holds.log if e.action == "hold"] == ["configmaps/default/c1", "configmaps/default/c2"]
    assert len(informer) == 5


def test_parse_and_validation() -> None:
    rule = HoldRule.parse("resource=sandboxclaims,name=sandboxclaim-*,writer=sandboxclaim-controller,"
                          "manager=agent-sandbox-controller,until=attempt@sandboxclaim-controller|1.5s,times=none")
    assert rule == HoldRule("sandboxclaims", name="sandboxclaim-*", writer="sandboxclaim-controller",
                            manager="agent-sandbox-controller", times=None,
                            until=(AfterWrite(actor="sandboxclaim-controller", committed=False), AfterTime(1.5)))
    assert "until write attempt to the held object by sandboxclaim-controller | 1.5s" in rule.describe()
    for bad in ("name=x", "resource=x,colour=red", "resource=x,until=soon"):
        with pytest.raises(ValueError):
            HoldRule.parse(bad)
    with pytest.raises(ValueError):
        HoldRule("configmaps", events="CHANGED")
    with pytest.raises(ValueError):
        HoldRule("configmaps", events="ADDED", mode="stale")
    with pytest.raises(ValueError):
        HoldRule("configmaps", until=())
