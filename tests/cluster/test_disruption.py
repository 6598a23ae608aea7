"""The disruption controller and pods/eviction together, and the TTL-after-finished controller, in virtual time."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.cluster import Cluster, Timing
from fakekube.sim import Simulation

PDBS = "poddisruptionbudgets.policy"
QUIET = Timing(lease_interval=None, node_status_interval=None)


def deployment(name: str, replicas: int) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"terminationGracePeriodSeconds": 1,
                              "containers": [{"name": "main", "image": "nginx"}]}}}}


@pytest.fixture
def sim() -> Simulation:
    sim = Simulation(seed=1)
    Cluster(sim, nodes=2, timing=QUIET)
    return sim


def pdb(sim: Simulation, app: str, **spec: Any) -> None:
    sim.store.create(PDBS, {"metadata": {"name": app}, "spec": {"selector": {"matchLabels": {"app": app}}, **spec}},
                     "default")


def status(sim: Simulation, name: str) -> dict[str, Any]:
    return sim.store.get(PDBS, name, "default")["status"]


def live(sim: Simulation, app: str) -> list[dict[str, Any]]:
    return [p for p in sim.store.objects("pods", "default")
            if p["metadata"]["labels"].get("app") == app and not p["metadata"].get("deletionTimestamp")]


def eviction(name: str) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"}}


def test_budget_status_follows_the_pods_and_evictions_spend_it(sim: Simulation):
    sim.store.create("deployments.apps", deployment("web", 3), "default")
    pdb(sim, "web", minAvailable=2)
    sim.run(until=10)
    current = status(sim, "web")
    assert {k: current[k] for k in ("currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed")} == {
        "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3, "disruptionsAllowed": 1}
    assert [(c["type"], c["status"], c["reason"]) for c in current["conditions"]] == [
        ("DisruptionAllowed", "True", "SufficientPods")]
    first, second, _ = (p["metadata"]["name"] for p in live(sim, "web"))
    sim.store.evict(first, eviction(first), "default", actor="kubectl")
    with pytest.raises(errors.ApiError) as refused:
        sim.store.evict(second, eviction(second), "default", actor="kubectl")
    assert refused.value.code == 429
    sim.run(until=20)  # the replacement comes up Ready; the evicted pod is gone
    current = status(sim, "web")
    assert current["disruptionsAllowed"] == 1 and "disruptedPods" not in current
    sim.store.evict(second, eviction(second), "default", actor="kubectl")
    writers = {e.actor for e in sim.audit if e.resource == "poddisruptionbudgets" and e.is_write and e.ok}
    assert writers == {"disruption-controller", "kube-apiserver", "fakekube"}
    assert sim.reconcile_errors() == [] or all("Conflict" in str(e) for e in sim.reconcile_errors())


def test_percentages_and_max_unavailable_scale_with_the_controller(sim: Simulation):
    sim.store.create("deployments.apps", deployment("web", 4), "default")
    pdb(sim, "web", maxUnavailable="50%")
    sim.store.create("pods", {"metadata": {"name": "bare", "labels": {"app": "bare"}},
                              "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    pdb(sim, "bare", minAvailable="50%")
    sim.run(until=10)
    web = status(sim, "web")
    assert (web["expectedPods"], web["desiredHealthy"], web["disruptionsAllowed"]) == (4, 2, 2)
    bare = status(sim, "bare")
    assert bare["disruptionsAllowed"] == 0
    assert [(c["reason"], c["message"]) for c in bare["conditions"]] == [
        ("SyncFailed", 'found no controller ref for pod "bare"')]


def test_ttl_after_finished_deletes_the_job_and_its_pods(sim: Simulation):
    job = {"metadata": {"name": "once"}, "spec": {"ttlSecondsAfterFinished": 5, "template": {
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}
    sim.store.create("jobs.batch", job, "default")
    sim.store.create("jobs.batch", {**job, "metadata": {"name": "kept"}, "spec": {
        k: v for k, v in job["spec"].items() if k != "ttlSecondsAfterFinished"}}, "default")
    sim.run(until=30)
    assert [j["metadata"]["name"] for j in sim.store.objects("jobs.batch", "default")] == ["kept"]
    [delete] = [e for e in sim.audit if e.resource == "jobs" and e.verb == "delete"]
    assert delete.actor == "ttl-after-finished-controller"
    completed = [e.time for e in sim.audit if e.resource == "jobs" and e.name == "once" and e.subresource == "status"]
    assert 4 <= delete.time - completed[-1] <= 6  # the Complete condition's second, plus five
    assert [p["metadata"]["name"].split("-")[0] for p in sim.store.objects("pods", "default")] == ["kept"]
