"""The CronJob controller in virtual time: schedules, concurrency policies, deadlines and history limits."""

from __future__ import annotations

from typing import Any
from unittest import mock

from fakekube.cluster import Cluster, Timing
from fakekube.sim import Simulation

QUIET = Timing(lease_interval=None, node_status_interval=None, run_duration=1.0)
MINUTE = 60.0


def cronjob(name: str = "tick", schedule: str = "* * * * *", run_seconds: float | None = None,
            exit_code: int | None = None, **spec: Any) -> dict[str, Any]:
    annotations = {}
    if run_seconds is not None:
        annotations["sim.fakekube.io/run-seconds"] = str(run_seconds)
    if exit_code is not None:
        annotations["sim.fakekube.io/exit-code"] = str(exit_code)
    template = {"metadata": {"annotations": annotations},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    return {"metadata": {"name": name}, "spec": {
        "schedule": schedule, "jobTemplate": {"metadata": {"labels": {"from": name}},
                                              "spec": {"backoffLimit": 0, "template": template}}, **spec}}


def run(*bodies: dict[str, Any], until: float, seed: int = 1) -> Simulation:
    sim = Simulation(seed=seed)
    Cluster(sim, nodes=1, timing=QUIET)
    for body in bodies:
        sim.store.create("cronjobs.batch", body, "default")
    sim.run(until=until, until_idle=False)
    return sim


def jobs(sim: Simulation) -> list[dict[str, Any]]:
    return sorted(sim.store.objects("jobs.batch", "default"), key=lambda j: j["metadata"]["name"])


def events(sim: Simulation, reason: str) -> list[str]:
    return [e.get("message") or e.get("note") or "" for e in sim.store.objects("events", "default")
            if e.get("reason") == reason]


def test_every_minute_names_annotates_and_records_times():
    sim = run(cronjob(), until=3 * MINUTE + 30)
    names = [j["metadata"]["name"] for j in jobs(sim)]
    base = int(sim.clock.now().timestamp()) // 60 - 3  # the store's clock: virtual time
    assert names == [f"tick-{base + 1}", f"tick-{base + 2}", f"tick-{base + 3}"]
    job = jobs(sim)[0]
    assert job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == "2026-01-01T00:01:00Z"
    assert job["metadata"]["labels"] == {"from": "tick"}
    assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    status = sim.store.get("cronjobs.batch", "tick", "default")["status"]
    assert status["lastScheduleTime"] == "2026-01-01T00:03:00Z"
    assert status["lastSuccessfulTime"].startswith("2026-01-01T00:03:0")
    assert "active" not in status  # every Job finished and left the active list
    creates = [e for e in sim.audit if e.resource == "jobs" and e.verb == "create"]
    assert [e.actor for e in creates] == ["cronjob-controller"] * 3
    assert [round(e.time - creates[0].time) for e in creates] == [0, 60, 120]  # on the minute, not before
    assert events(sim, "SawCompletedJob")[0].endswith("condition: Complete")


def test_history_limits_keep_the_newest_jobs():
    sim = run(cronjob(), cronjob("fails", exit_code=1), cronjob("one", successfulJobsHistoryLimit=1),
              until=6 * MINUTE + 30)
    by_owner: dict[str, list[str]] = {}
    for job in jobs(sim):
        by_owner.setdefault(job["metadata"]["ownerReferences"][0]["name"], []).append(job["metadata"]["name"])
    newest = int(sim.clock.now().timestamp()) // 60
    assert by_owner["tick"] == [f"tick-{newest - 2}", f"tick-{newest - 1}", f"tick-{newest}"]  # default 3
    assert by_owner["fails"] == [f"fails-{newest}"]  # failedJobsHistoryLimit defaults to 1
    assert by_owner["one"] == [f"one-{newest}"]
    deletes = [e for e in sim.audit if e.resource == "jobs" and e.verb == "delete"]
    assert {e.actor for e in deletes} == {"cronjob-controller"} and len(deletes) == 3 + 5 + 5


def test_forbid_skips_while_a_job_runs():
    sim = run(cronjob(concurrencyPolicy="Forbid", run_seconds=150), until=6 * MINUTE + 30)
    starts = [e.time - sim.audit.entries[0].time for e in sim.audit if e.resource == "jobs" and e.verb == "create"]
    # 00:01 runs until about 00:03:30, so 00:02 and 00:03 find it active; once it is done, the most recent
    # missed time (00:03) starts late, as upstream does without a starting deadline; then 00:06 (00:04 and
    # 00:05 find 00:03's Job active).
    assert [round(t) for t in starts] == [60, 210, 360]
    scheduled = [j["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] for j in jobs(sim)]
    assert scheduled == ["2026-01-01T00:01:00Z", "2026-01-01T00:03:00Z", "2026-01-01T00:06:00Z"]
    assert len(events(sim, "JobAlreadyActive")) >= 3


def test_replace_deletes_the_running_job():
    sim = run(cronjob(concurrencyPolicy="Replace", run_seconds=150), until=3 * MINUTE + 30)
    names = [j["metadata"]["name"] for j in jobs(sim) if not j["metadata"].get("deletionTimestamp")]
    assert len(names) == 1
    status = sim.store.get("cronjobs.batch", "tick", "default")["status"]
    assert [a["name"] for a in status["active"]] == names
    assert len(events(sim, "SuccessfulDelete")) == 2


def test_allow_overlaps():
    sim = run(cronjob(run_seconds=150), until=3 * MINUTE + 30)
    status = sim.store.get("cronjobs.batch", "tick", "default")["status"]
    assert len(status["active"]) == 3


def test_suspend_and_the_starting_deadline():
    sim = run(cronjob("late", suspend=True), cronjob("strict", suspend=True, startingDeadlineSeconds=10),
              until=5 * MINUTE + 20)
    assert jobs(sim) == []
    for name in ("late", "strict"):
        cj = sim.store.get("cronjobs.batch", name, "default")
        cj["spec"]["suspend"] = False
        sim.store.update("cronjobs.batch", cj, "default")
    sim.run(until=sim.now + 5, until_idle=False)
    # Resumed 20 s after a missed 00:05: without a deadline the most recent missed run starts at once;
    # a 10 s deadline lets it go and waits for 00:06.
    assert [j["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] for j in jobs(sim)] \
        == ["2026-01-01T00:05:00Z"]
    sim.run(until=6 * MINUTE + 10)
    assert sorted(j["metadata"]["ownerReferences"][0]["name"] for j in jobs(sim)) == ["late", "late", "strict"]


def test_time_zone():
    sim = run(cronjob("tokyo", "0 10 * * *", timeZone="Asia/Tokyo"), until=2 * 3600)
    [job] = jobs(sim)  # the store's clock starts at 2026-01-01T00:00Z, 09:00 in Tokyo
    assert job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == \
        "2026-01-01T10:00:00+09:00"
    assert sim.store.get("cronjobs.batch", "tokyo", "default")["status"]["lastScheduleTime"] == "2026-01-01T01:00:00Z"


def test_bad_schedules_and_zones_are_events_not_errors():
    # The API refuses such a schedule and zone (validateScheduleFormat, validateTimeZone); ones stored before
    # those checks existed are what the controller meets, so the create skips the API's checks here.
    with mock.patch("fakekube.kinds.batch.parse_standard"), \
            mock.patch("fakekube.kinds.batch._time_zone_errors", return_value=[]):
        sim = run(cronjob("bad", "61 * * * *"), cronjob("zone", timeZone="Mars/Olympus"), until=2 * MINUTE)
    assert jobs(sim) == []
    assert events(sim, "UnparseableSchedule") == [
        'unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61']
    assert events(sim, "UnknownTimeZone")[0].startswith('invalid timeZone: "Mars/Olympus"')
    assert sim.reconcile_errors() == []


def test_same_seed_same_log():
    def once(seed: int) -> str:
        return run(cronjob(concurrencyPolicy="Forbid", run_seconds=70), until=4 * MINUTE, seed=seed).audit.to_jsonl()

    assert once(5) == once(5)
