"""fakekube.sim.fit: round trips from in-pass gaps, the reaction from pass starts, events, kubelet writes; and
the audit-log estimate from stage timestamps. The inputs are built by hand so every number can be checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakekube.sim import Lag
from fakekube.sim.fit import Observation, TimelineFit, fit_audit_log
from fakekube.sim.model import ClusterModel

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "audit-samples"


def obs(step, ms, verb, resource, *, sub=None, name=None, code=200, actor="c", key="k", position=None,
        enqueues=(), emitted_by=None):
    return Observation(step=step, time=ms / 1000, verb=verb, resource=resource, name=name, subresource=sub,
                       code=code, ok=200 <= code < 300, actor=actor, key=key, position=position,
                       enqueues=tuple(enqueues), emitted_by=emitted_by)


# A controller "c" on key "k" (positions 0 → 1 → 2 in one pass), and a watcher "w" whose passes on "j" start
# from c's writes; w's first request in a pass is an UPDATE of pods (never seen inside a pass).
STORY = [
    obs(1, 0, "patch", "things", position=0, enqueues=[("w", "j")]),
    obs(2, 15, "update", "things", position=1, enqueues=[("w", "j")]),  # in pass: update things 15 ms
    obs(3, 35, "update", "things", sub="status", position=2),  # in pass: update things/status 20 ms
    obs(4, 40, "delete", "policies", position=0, actor="w", key="j"),  # w reacts to step 1: 40 ms
    obs(5, 52, "patch", "things", sub="status", position=1, actor="w", key="j", enqueues=[("c", "k")]),  # 12 ms
    obs(6, 75, "delete", "policies", position=0, actor="c", key="k"),  # c reacts to step 5: 23 ms
    obs(7, 80, "create", "events", actor="c/events", key=None, emitted_by=1),
    obs(8, 90, "update", "pods", position=0, actor="w", key="j"),  # w reacts to step 5? no: w wrote it
]


def test_round_trips_come_from_gaps_inside_one_pass():
    fit = TimelineFit(STORY)
    gaps = {cls: [round(v * 1000, 6) for v in values] for cls, values in fit.in_pass.items()}
    assert gaps == {"update things": [15.0], "update things/status": [20.0], "patch things/status": [12.0]}
    assert [p.rows for p in fit.passes] == [[0, 1, 2], [3, 4], [5], [7]]


def test_the_reaction_is_the_gap_to_a_pass_start_less_its_round_trip():
    fit = TimelineFit(STORY)
    gaps = {fit.obs[r["row"]].step: (fit.obs[r["trigger"]].step, round(r["gap"] * 1000, 6)) for r in fit.reactions}
    assert gaps == {4: (1, 40.0), 6: (5, 23.0)}  # step 8 has no trigger: w's own write does not start w
    # delete policies has no in-pass round trip: it is estimated from the reaction, which then has no sample
    assert fit.reaction == 0.0 and fit.round_trip["delete policies"] == pytest.approx(0.0315)


def test_model_classes_fall_back_to_the_verb_then_the_default():
    model = TimelineFit(STORY, commit_at=0.8).model()
    lat = model.latency
    assert lat.commit_at == 0.8
    assert lat.round_trip("update", "things") == Lag.fixed(0.015)
    assert lat.round_trip("update", "widgets") == Lag.fixed(0.0175)  # median of the update classes' medians
    assert lat.round_trip("get", "things") == lat.default
    # the event: 65 ms after the write that emitted it, less an event create's round trip (no create measured:
    # the default, the median of the class medians, 17.5 ms)
    assert model.handling == Lag.zero() and model.event_delay == Lag.fixed(0.0475)
    assert model.derivation["round_trip_ms"]["update things/status"] == [20.0]
    again = ClusterModel.from_json(model.to_json())
    assert again == model and again.to_json() == model.to_json()


def test_kubelet_writes_are_the_pod_owners_passes_without_a_visible_trigger():
    f = 0.9
    x = {"actor": "s", "key": "x", "enqueues": [("s", "x")]}
    other = {"actor": "o", "key": "o", "position": 0, "enqueues": [("s", "x")]}  # e.g. the pod's owner's owner
    story = [
        obs(1, 0, "update", "things", actor="o", key="o", position=0, enqueues=[("w", "j")]),
        obs(2, 30, "patch", "things", sub="status", actor="w", key="j", position=0),  # reaction 30 - 20 = 10
        obs(3, 40, "create", "pods", name="x", position=1, **x),
        obs(4, 60, "patch", "things", sub="status", position=2, actor="s", key="x"),  # in pass: 20 ms (no change)
        obs(5, 65, "update", "gadgets", **other),
        obs(6, 125, "update", "pods", name="x", position=1, **x),  # started by 5: update pods 60 - 10
        obs(7, 145, "patch", "things", sub="status", position=2, actor="s", key="x"),
        obs(8, 150, "update", "gadgets", **other),
        obs(9, 210, "update", "pods", name="x", code=409, position=1, actor="s", key="x"),  # started by 8
        obs(10, 230, "patch", "things", sub="status", position=2, actor="s", key="x"),
        obs(11, 700, "update", "pods", name="x", position=1, **x),  # nothing visible started this one
        obs(12, 720, "patch", "things", sub="status", position=2, **x),  # ... and the status changed: Ready
        obs(13, 790, "update", "pods", name="x", position=1, **x),  # after the last status write: dropped
    ]
    fit = TimelineFit(story, commit_at=f)
    assert fit.reaction == pytest.approx(0.010) and fit.rt_for("update pods") == pytest.approx(0.050)
    pod = fit.kubelet["x"]
    assert pod["created"] == pytest.approx(0.040 - (1 - f) * 0.035)  # create pods: the default round trip
    # the 409's window (the pass read at 210 - 50 - 10, the PUT committed at 210 - 5) and the pass at 700 ms
    assert pod["writes"] == pytest.approx([0.1775, 0.640])
    steps = fit.kubelet_steps()
    transport = 0.010 + (1 - f) * 0.050  # the reaction plus the response leg of its trigger (an update)
    assert steps["pod_initialized"] == Lag.fixed(round(transport, 6))
    bind = fit.rt_for("create pods/binding")  # no create measured: the default, 35 ms
    assert bind == pytest.approx(0.035) and fit.rt_for("patch pods/status") == pytest.approx(0.020)
    assert steps["pod_scheduled"].a == pytest.approx(0.1775 - pod["created"] - transport - f * bind)
    assert steps["pod_running"].a == pytest.approx(0.640 - (0.1775 + (1 - f) * bind + transport + f * 0.020) - 0.020)
    assert steps["pod_containers_ready"] == Lag.zero() == steps["pod_ready"]


def event(audit_id, verb, actor, received, completed, code=200, stage="ResponseComplete", **ref):
    """A native audit Event (times: seconds after 10:00:00 on 2026-04-03)."""
    def stamp(seconds):
        return f"2026-04-03T10:00:{seconds:09.6f}Z"

    return {"auditID": audit_id, "verb": verb, "stage": stage, "user": {"username": actor}, "objectRef": ref,
            "requestReceivedTimestamp": stamp(received), "stageTimestamp": stamp(completed),
            "responseStatus": {"code": code}}


POD = {"resource": "pods", "namespace": "d", "name": "p"}
AUDIT = [
    event("1", "watch", "ctl", 0.0, 0.001, stage="ResponseStarted", resource="configmaps"),
    event("2", "update", "alice", 1.0, 1.012, resource="configmaps", namespace="d", name="a"),
    event("3", "patch", "ctl", 1.020, 1.036, resource="configmaps", namespace="d", name="a"),
    event("4", "create", "rs", 2.0, 2.040, code=201, **POD),
    event("5", "create", "system:kube-scheduler", 2.100, 2.110, code=201, subresource="binding", **POD),
    event("6", "patch", "system:node:n1", 2.150, 2.160, subresource="status", **POD),
    event("7", "patch", "system:node:n1", 2.700, 2.710, subresource="status", **POD),
]


def test_audit_log_round_trips_reaction_and_pod_phases():
    text = "\n".join(json.dumps(e) for e in AUDIT) + "\nnot json\n"
    model, problems = fit_audit_log(text, source="synthetic")
    assert problems and problems[0].startswith("line 8: not JSON")
    lat = model.latency
    assert lat.round_trip("update", "configmaps") == Lag.fixed(0.012)
    assert lat.round_trip("create", "pods", "binding") == Lag.fixed(0.010)
    assert model.cache_lag == Lag.fixed(0.008)  # alice's update done at .012, ctl's next request at .020
    assert model.pod_scheduled == Lag.fixed(0.070) and model.pod_initialized == Lag.fixed(0.050)
    assert model.pod_running == Lag.fixed(0.550)
    assert model.source == "synthetic" and model.derivation["watchers"] == {"configmaps": ["ctl"]}


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/audit-samples is not here")
def test_a_real_audit_log_is_read_and_fitted():
    path = SHARED / "openshift+cluster-logging-operator" / "test_functional_filters_apiaudit_vrl_testdata_audit_in.log"
    model, problems = fit_audit_log(path.read_text())
    assert problems == []
    assert model.derivation["requests"] > 50
    assert model.latency.round_trip("get", "namespaces").mean > 0


def test_an_actors_request_seconds_after_a_write_is_a_requeue_not_a_reaction():
    cm = {"resource": "configmaps", "namespace": "d", "name": "a"}
    # alice writes again at 1.5 s; ctl's next request on the object comes 1.5 s later: a timer, not the watch
    late = [*AUDIT, event("8", "update", "alice", 1.500, 1.512, **cm), event("9", "get", "ctl", 3.012, 3.013, **cm)]
    model, _ = fit_audit_log("\n".join(json.dumps(e) for e in late))
    assert model.derivation["reaction_ms"] == [8.0]
    assert model.cache_lag == Lag.fixed(0.008)


def test_client_time_is_the_gap_between_one_passes_requests_on_one_object():
    cm = {"resource": "configmaps", "namespace": "d", "name": "a"}
    log = [*AUDIT,
           # ctl's patch (done 1.036) then, 3 ms later, its status update of the same object: one pass
           event("8", "update", "ctl", 1.039, 1.050, subresource="status", **cm),
           # the same shape again 20 ms later: the next pass, re-queued by that write's own event, not client time
           event("9", "update", "ctl", 1.070, 1.080, subresource="status", **cm),
           # a read after a write waits for a timer, not for the caller's work
           event("10", "get", "ctl", 1.090, 1.091, **cm)]
    model, _ = fit_audit_log("\n".join(json.dumps(e) for e in log))
    assert model.derivation["client_ms"] == {"patch configmaps": [3.0]}
    assert model.latency.client == Lag.fixed(0.003)
    assert model.latency.client_time("patch", "configmaps") == Lag.fixed(0.003)
    # The reaction (alice's update done at .012, ctl's patch at .020) less the client time: the watch delay.
    assert model.derivation["reaction_ms"] == [8.0]
    assert model.cache_lag == Lag.fixed(0.005) and model.cache_lag_per_event
    again = ClusterModel.from_json(model.to_json())  # what `fakekube simulate --model` reads
    assert again == model and again.manager_options()["cache_lag_per_event"] is True


def test_a_passes_requests_to_other_objects_are_taken_off_its_client_time_and_another_workers_are_not():
    cm = {"resource": "configmaps", "namespace": "d", "name": "a"}
    log = [*AUDIT,
           # ctl's pass: its patch of a (done 1.036), a secret's update 1.040-1.050 (the pass's: sent after the
           # answer, answered before the next request), then a's status 1.054: 18 ms less 10 of round trip
           event("8", "update", "ctl", 1.040, 1.050, resource="secrets", namespace="d", name="s"),
           # another worker's request, still in flight when the pass sends its next one: not the pass's
           event("9", "update", "ctl", 1.045, 1.060, resource="secrets", namespace="d", name="t"),
           event("10", "update", "ctl", 1.054, 1.064, subresource="status", **cm)]
    model, _ = fit_audit_log("\n".join(json.dumps(e) for e in log))
    assert model.derivation["client_ms"] == {"patch configmaps": [8.0]}


def test_a_gap_of_tenths_of_a_second_is_not_the_callers_work():
    cm = {"resource": "configmaps", "namespace": "d", "name": "a"}
    log = [*AUDIT, event("8", "update", "ctl", 1.336, 1.350, subresource="status", **cm)]  # 300 ms: a timer
    model, _ = fit_audit_log("\n".join(json.dumps(e) for e in log))
    assert model.derivation["client_ms"] == {} and model.latency.client.is_zero


def test_without_passes_there_is_no_client_time_and_the_reaction_is_the_watch_delay():
    model, _ = fit_audit_log("\n".join(json.dumps(e) for e in AUDIT))
    assert model.derivation["client_ms"] == {} and model.latency.client.is_zero
    assert "client" not in model.latency.to_dict()  # models fitted before it existed read and write the same
    assert model.cache_lag == Lag.fixed(0.008)
