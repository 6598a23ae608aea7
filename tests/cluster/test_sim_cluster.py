"""The cluster's actors in virtual time: workloads converge the way a real cluster's do, deterministically."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.cluster import Cluster, FailureRule, NodeConfig, Timing
from fakekube.cluster.controllers.deployment_util import REVISION
from fakekube.sim import Simulation

QUIET = Timing(lease_interval=None, node_status_interval=None)


def deployment(name: str, replicas: int, image: str = "nginx:1.27", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"containers": [{"name": "main", "image": image}]}}, **spec}}


def cluster(seed: int = 1, nodes: int = 2, timing: Timing = QUIET, **options: Any) -> tuple[Simulation, Cluster]:
    sim = Simulation(seed=seed, managed_fields=options.pop("managed_fields", False))
    return sim, Cluster(sim, nodes=nodes, timing=timing, **options)


def condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or () if c["type"] == kind), None)


def test_a_deployment_becomes_available_with_the_real_write_sequence():
    sim, _ = cluster(managed_fields=True)
    sim.store.create("deployments.apps", deployment("web", 3), "default")
    sim.run(until=30)
    d = sim.store.get("deployments.apps", "web", "default")
    assert condition(d, "Available")["reason"] == "MinimumReplicasAvailable"
    assert condition(d, "Progressing")["reason"] == "NewReplicaSetAvailable"
    assert [c["type"] for c in d["status"]["conditions"]] == ["Available", "Progressing"]
    assert d["status"]["availableReplicas"] == 3 and d["metadata"]["annotations"][REVISION] == "1"
    assert d["metadata"]["generation"] == 1  # the revision annotation is written through /status
    pods = sim.store.objects("pods", "default")
    assert len(pods) == 3 and {p["status"]["phase"] for p in pods} == {"Running"}
    pod = pods[0]
    assert [c["type"] for c in pod["status"]["conditions"]] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert pod["status"]["podIP"].startswith("10.244.") and pod["status"]["hostIP"].startswith("172.18.0.")
    assert pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    # Who wrote what, with which verb and field manager (as a real cluster's audit log shows it).
    writes = {(e.actor, e.verb, e.resource, e.subresource) for e in sim.audit if e.is_write and e.ok}
    assert ("replicaset-controller", "create", "pods", None) in writes
    assert ("default-scheduler", "create", "pods", "binding") in writes
    assert ("kubelet", "patch", "pods", "status") in writes
    assert ("deployment-controller", "create", "replicasets", None) in writes
    assert ("deployment-controller", "update", "deployments", "status") in writes
    assert ("replicaset-controller", "update", "replicasets", "status") in writes
    managers = {(m["manager"], m.get("subresource")) for m in pod["metadata"]["managedFields"]}
    assert managers == {("kube-controller-manager", None), ("kubelet", "status")}
    assert sim.reconcile_errors() == []


def test_rolling_update_keeps_surge_and_unavailability_within_bounds():
    sim, _ = cluster(nodes=3)
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}
    sim.store.create("deployments.apps", deployment("web", 4, strategy=strategy), "default")
    sim.run(until=30)
    observed: list[tuple[int, int]] = []

    def check(entry: Any, old: Any, new: Any) -> None:
        pods = [p for p in sim.store.objects("pods", "default") if not p["metadata"].get("deletionTimestamp")]
        ready = [p for p in pods if condition(p, "Ready") and condition(p, "Ready")["status"] == "True"]
        observed.append((len(pods), len(ready)))

    sim.store.commit_hooks.append(check)
    d = sim.store.get("deployments.apps", "web", "default")
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    sim.store.update("deployments.apps", d, "default")
    sim.run(until=60)
    sim.store.commit_hooks.remove(check)
    assert max(total for total, _ in observed) == 5  # replicas + maxSurge, reached
    assert min(ready for _, ready in observed) == 3  # replicas - maxUnavailable, never less
    d = sim.store.get("deployments.apps", "web", "default")
    assert d["metadata"]["annotations"][REVISION] == "2"
    rss = sim.store.objects("replicasets.apps", "default")
    assert sorted(rs["spec"]["replicas"] for rs in rss) == [0, 4]
    assert all(p["spec"]["containers"][0]["image"] == "nginx:1.28" for p in sim.store.objects("pods", "default"))
    scaled = [e for e in sim.audit if e.actor == "deployment-controller" and e.verb == "update"
              and e.resource == "replicasets"]
    assert scaled and all(e.subresource is None for e in scaled)  # RS scale is an Update of the object


def test_same_seed_same_audit_log():
    def run(seed: int) -> str:
        sim, _ = cluster(seed=seed, timing=Timing())
        sim.store.create("deployments.apps", deployment("web", 3), "default")
        sim.store.create("jobs.batch", {"metadata": {"name": "pi"}, "spec": {"completions": 2, "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]}}}}, "default")
        sim.run(until=25)
        return sim.audit.to_jsonl()

    first = run(7)
    assert first == run(7)
    assert first != run(8)
    assert '"lease' in first or "leases" in first  # heartbeats are part of the log


def test_statefulset_scales_up_in_order_and_down_in_reverse():
    sim, _ = cluster()
    sts = {"metadata": {"name": "db"}, "spec": {
        "replicas": 3, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
        "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "pg", "image": "postgres"}]}},
        # A claim needs a storage request (ValidatePersistentVolumeClaimSpec), or the controller's PVC is a 422.
        "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}
    order: list[tuple[str, str]] = []

    def record(entry: Any, old: Any, new: Any) -> None:
        if entry.resource != "pods" or new is None or not new["metadata"]["name"].startswith("db-"):
            return
        name = new["metadata"]["name"]
        if old is None:
            order.append(("created", name))
        elif condition(new, "Ready") and condition(new, "Ready")["status"] == "True" and not (
                condition(old, "Ready") and condition(old, "Ready")["status"] == "True"):
            order.append(("ready", name))

    sim.store.commit_hooks.append(record)
    sim.store.create("statefulsets.apps", sts, "default")
    sim.run(until=30)
    # OrderedReady: each pod is created only once the previous one is Running and Ready.
    assert order == [("created", "db-0"), ("ready", "db-0"), ("created", "db-1"), ("ready", "db-1"),
                     ("created", "db-2"), ("ready", "db-2")]
    status = sim.store.get("statefulsets.apps", "db", "default")["status"]
    assert status["readyReplicas"] == 3 and status["currentRevision"] == status["updateRevision"]
    assert [p["metadata"]["name"] for p in sim.store.objects("persistentvolumeclaims", "default")] == [
        "data-db-0", "data-db-1", "data-db-2"]
    pod = sim.store.get("pods", "db-1", "default")
    assert pod["spec"]["hostname"] == "db-1" and pod["spec"]["subdomain"] == "db"
    assert pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "1"
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-1"}} in pod["spec"]["volumes"]

    current = sim.store.get("statefulsets.apps", "db", "default")
    current["spec"]["replicas"] = 0
    sim.store.update("statefulsets.apps", current, "default")
    sim.run(until=60)
    deletes = [e.name for e in sim.audit if e.verb == "delete" and e.actor == "statefulset-controller"]
    assert deletes == ["db-2", "db-1", "db-0"]
    assert sim.store.objects("pods", "default") == []
    assert len(sim.store.objects("persistentvolumeclaims", "default")) == 3  # Retain


def test_job_failures_reach_the_backoff_limit():
    sim, _ = cluster(timing=QUIET.with_(job_backoff=1.0))
    job = {"metadata": {"name": "flaky"}, "spec": {"backoffLimit": 2, "template": {
        "metadata": {"annotations": {"sim.fakekube.io/exit-code": "3"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}}
    sim.store.create("jobs.batch", job, "default")
    sim.run(until=60)
    job = sim.store.get("jobs.batch", "flaky", "default")
    assert job["status"]["failed"] == 3
    assert [(c["type"], c["reason"]) for c in job["status"]["conditions"]] == [
        ("FailureTarget", "BackoffLimitExceeded"), ("Failed", "BackoffLimitExceeded")]
    pods = sim.store.objects("pods", "default")
    assert len(pods) == 3 and {p["status"]["phase"] for p in pods} == {"Failed"}
    assert all(not p["metadata"].get("finalizers") for p in pods)
    terminated = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 3 and terminated["reason"] == "Error"
    creates = sorted(e.time for e in sim.audit if e.verb == "create" and e.resource == "pods"
                     and e.namespace == "default")
    gaps = [b - a for a, b in zip(creates, creates[1:], strict=False)]
    assert gaps[1] > gaps[0]  # the failure back-off doubles


def test_job_completes_with_parallelism_and_the_tracking_finalizer():
    sim, _ = cluster(timing=QUIET)
    spec = {"completions": 4, "parallelism": 2, "template": {
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}
    sim.store.create("jobs.batch", {"metadata": {"name": "batch"}, "spec": spec}, "default")
    active_max = 0

    def watch(entry: Any, old: Any, new: Any) -> None:
        nonlocal active_max
        running = [p for p in sim.store.objects("pods", "default")
                   if p["status"].get("phase") not in ("Succeeded", "Failed")]
        active_max = max(active_max, len(running))

    sim.store.commit_hooks.append(watch)
    sim.run(until=60)
    job = sim.store.get("jobs.batch", "batch", "default")
    assert job["status"]["succeeded"] == 4 and job["status"]["completionTime"]
    assert [c["type"] for c in job["status"]["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    assert active_max == 2
    created = [e for e in sim.store.audit.filter(verb="create", resource="pods")
               if e.namespace == "default" and e.subresource is None]
    assert len(created) == 4 and all(e.actor == "job-controller" for e in created)
    removals = [e for e in sim.audit if e.verb == "patch" and e.actor == "job-controller" and e.resource == "pods"]
    assert len(removals) == 4  # one finalizer removal per finished pod


def test_indexed_job_tracks_completed_indexes():
    sim, _ = cluster(timing=QUIET)
    spec = {"completions": 3, "parallelism": 3, "completionMode": "Indexed", "template": {
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}
    sim.store.create("jobs.batch", {"metadata": {"name": "idx"}, "spec": spec}, "default")
    sim.run(until=60)
    job = sim.store.get("jobs.batch", "idx", "default")
    assert job["status"]["completedIndexes"] == "0-2" and job["status"]["succeeded"] == 3
    indexes = sorted(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
                     for p in sim.store.objects("pods", "default"))
    assert indexes == ["0", "1", "2"]


def test_crash_loop_and_image_pull_failures_from_rules():
    timing = QUIET.with_(failures=(FailureRule("*:crash"), FailureRule("*:missing", "ImagePullBackOff")),
                         restart_backoff=1.0)
    sim, _ = cluster(timing=timing)
    sim.store.create("deployments.apps", deployment("crash", 1, image="app:crash"), "default")
    sim.store.create("deployments.apps", deployment("pull", 1, image="app:missing"), "default")
    sim.run(until=20)
    crash = next(p for p in sim.store.objects("pods", "default") if p["metadata"]["name"].startswith("crash"))
    status = crash["status"]["containerStatuses"][0]
    assert status["restartCount"] >= 2
    assert status["lastState"]["terminated"]["exitCode"] == 1
    pull = next(p for p in sim.store.objects("pods", "default") if p["metadata"]["name"].startswith("pull"))
    assert pull["status"]["phase"] == "Pending"
    assert pull["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] in ("ImagePullBackOff", "ErrImagePull")
    d = sim.store.get("deployments.apps", "pull", "default")
    assert condition(d, "Available")["status"] == "False"


def test_scheduler_respects_node_selector_and_resources():
    nodes = [NodeConfig("small", index=0, cpu="1"), NodeConfig("gpu", index=1, labels={"gpu": "yes"})]
    sim, _ = cluster(nodes=nodes)  # type: ignore[arg-type]
    def pod(name: str, **spec: Any) -> dict[str, Any]:
        return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "x", **spec.pop(
            "container", {})}], **spec}}

    sim.store.create("pods", pod("wants-gpu", nodeSelector={"gpu": "yes"}), "default")
    sim.store.create("pods", pod("big", container={"resources": {"requests": {"cpu": "4"}}}), "default")
    sim.store.create("pods", pod("huge", container={"resources": {"requests": {"cpu": "64"}}}), "default")
    sim.run(until=20)
    assert sim.store.get("pods", "wants-gpu", "default")["spec"]["nodeName"] == "gpu"
    assert sim.store.get("pods", "big", "default")["spec"]["nodeName"] == "gpu"
    huge = sim.store.get("pods", "huge", "default")
    assert "nodeName" not in huge["spec"]
    scheduled = condition(huge, "PodScheduled")
    assert scheduled["status"] == "False" and scheduled["reason"] == "Unschedulable"
    assert scheduled["message"] == "0/2 nodes are available: 2 Insufficient cpu."


def test_pods_without_requests_weigh_on_the_score_as_the_schedulers_nonzero_defaults():
    """A node holding one pod that requests 100m and 200Mi and a node holding two pods that request 100m and 70Mi
    each: three pods without requests, each counted as 100m and 200Mi when scored (GetNonzeroRequests), do not
    all go to the node that looked emptier."""
    sim, _ = cluster(nodes=2)
    def pod(name: str, node: str, cpu: str | None, memory: str | None) -> dict[str, Any]:
        requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
        return {"metadata": {"name": name, "labels": {"app": name.rstrip("0123456789")}},
                "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": requests}}]}}

    sim.store.create("pods", pod("metrics", "node-1", "100m", "200Mi"), "default")
    sim.store.create("pods", pod("dns1", "node-2", "100m", "70Mi"), "default")
    sim.store.create("pods", pod("dns2", "node-2", "100m", "70Mi"), "default")
    for i in range(3):
        sim.store.create("pods", {"metadata": {"name": f"web{i}"}, "spec": {"containers": [
            {"name": "c", "image": "nginx"}]}}, "default")
    sim.run(until=10)
    nodes = sorted(sim.store.get("pods", f"web{i}", "default")["spec"]["nodeName"] for i in range(3))
    assert len(set(nodes)) == 2, nodes


def test_graceful_deletion_ends_with_the_kubelets_uid_precondition_delete():
    sim, _ = cluster()
    sim.store.create("pods", {"metadata": {"name": "p"}, "spec": {"terminationGracePeriodSeconds": 5,
                                                                  "containers": [{"name": "c", "image": "x"}]}},
                     "default")
    sim.run(until=10)
    sim.store.delete("pods", "p", "default")
    assert sim.store.get("pods", "p", "default")["metadata"]["deletionGracePeriodSeconds"] == 5
    sim.run(until=20)
    assert sim.store.objects("pods", "default") == []
    final = [e for e in sim.audit if e.name == "p" and e.is_write][-2:]
    assert [(e.actor, e.verb, e.subresource) for e in final] == [("kubelet", "patch", "status"),
                                                                    ("kubelet", "delete", None)]


@pytest.mark.parametrize("controllers", [("kubelet", "scheduler"), ()])
def test_controllers_can_be_left_out(controllers: tuple[str, ...]):
    sim, c = cluster(controllers=controllers)
    sim.store.create("deployments.apps", deployment("web", 2), "default")
    sim.run(until=10)
    assert sim.store.objects("replicasets.apps", "default") == []
    assert bool(sim.store.objects("nodes")) == ("kubelet" in controllers)
    assert set(c.actors) == set(controllers)


def test_every_namespace_gets_the_root_ca_config_map_back():
    sim, _ = cluster()
    sim.run(until=5)
    namespaces = [ns["metadata"]["name"] for ns in sim.store.objects("namespaces")]
    assert all(sim.store.get("configmaps", "kube-root-ca.crt", ns)["data"]["ca.crt"].startswith("-----BEGIN")
               for ns in namespaces)
    sim.store.create("namespaces", {"metadata": {"name": "team-a"}})
    sim.store.delete("configmaps", "kube-root-ca.crt", "default")
    sim.run(until=10)
    assert sim.store.get("configmaps", "kube-root-ca.crt", "team-a")["metadata"]["annotations"][
        "kubernetes.io/description"].startswith("Contains a CA bundle")
    recreated = [e for e in sim.audit if e.name == "kube-root-ca.crt" and e.namespace == "default"
                 and e.verb == "create"]
    assert [e.actor for e in recreated] == ["root-ca-cert-publisher"] * 2


def test_only_a_jobs_pods_and_annotated_pods_complete_on_their_own():
    sim, _ = cluster()
    spec = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
    sim.store.create("pods", {"metadata": {"name": "server"}, "spec": spec}, "default")
    sim.store.create("pods", {"metadata": {"name": "one-off", "annotations": {"sim.fakekube.io/run-seconds": "2"}},
                              "spec": spec}, "default")
    sim.store.create("jobs.batch", {"metadata": {"name": "batch"}, "spec": {"template": {"spec": spec}}}, "default")
    sim.run(until=30)
    phases = {p["metadata"]["name"].split("-")[0]: p["status"]["phase"] for p in sim.store.objects("pods", "default")}
    assert phases == {"server": "Running", "one": "Succeeded", "batch": "Succeeded"}
