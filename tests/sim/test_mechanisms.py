"""The example controller shows each mechanism of the simulation (issue 4's acceptance scenarios)."""

from __future__ import annotations

from tests.sim.example import WIDGETS, widget_sim


def _status_conflicts(sim):
    return [e for e in sim.audit.conflicts() if e.resource == "widgets" and e.subresource == "status"]


def test_zero_lag_one_worker_never_conflicts():
    sim, ctl = widget_sim(cache_lag=0.0, widgets=5)
    sim.run()
    assert sim.audit.conflicts() == []
    assert sim.stale_overwrites() == []
    for w in sim.store.objects(WIDGETS):
        assert w["status"]["conditions"][0]["type"] == "Ready"


def test_lag_and_dirty_requeue_make_update_conflict():
    sim, ctl = widget_sim(cache_lag=0.010, status_mode="update")
    sim.run()
    conflicts = _status_conflicts(sim)
    assert len(conflicts) == 1
    assert conflicts[0].actor == "widget-controller"
    assert ctl.controller.errors == 1  # the 409 went back to the queue with backoff ...
    assert sim.store.get(WIDGETS, "w0", "default")["status"]["conditions"][0]["type"] == "Ready"  # ... and healed


def test_merge_patch_hides_the_conflict_but_overwrites_stale_state():
    sim, ctl = widget_sim(cache_lag=0.010, status_mode="merge")
    sim.run()
    assert sim.audit.conflicts() == []
    stale = sim.stale_overwrites()
    assert len(stale) == 1
    record = stale[0]
    assert record.resource == "widgets" and record.subresource == "status"
    assert record.paths == ["status.conditions"]
    assert record.actor == record.other_actor == "widget-controller"  # it collides with its own earlier pass
    entry = next(e for e in sim.audit if e.seq == record.seq)
    assert any(n.startswith("stale overwrite: status.conditions (after widget-controller@rv") for n in entry.notes)


def test_optimistic_lock_brings_the_409_back():
    sim, ctl = widget_sim(cache_lag=0.010, status_mode="locked")
    sim.run()
    assert len(_status_conflicts(sim)) == 1
    assert sim.stale_overwrites() == []


def test_owns_enqueues_the_controller_owner():
    sim, ctl = widget_sim(cache_lag=0.0, widgets=1)
    sim.run()
    # passes: initial add, the widget's own annotation patch / status writes and the owned configmap create
    assert len(ctl.passes) >= 2
    assert {name for _, name in ctl.passes} == {"w0"}
