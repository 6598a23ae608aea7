"""The DaemonSet controller in virtual time: one pod per eligible node, rolling updates within their bounds."""

from __future__ import annotations

from typing import Any

from fakekube.cluster import Cluster, NodeConfig, Timing
from fakekube.cluster.controllers.daemonset_util import AUTOMATIC_TOLERATIONS, should_run
from fakekube.sim import Simulation

QUIET = Timing(lease_interval=None, node_status_interval=None)
TAINTED = NodeConfig("tainted", index=2, taints=({"key": "dedicated", "value": "db", "effect": "NoSchedule"},))
NODES = [NodeConfig("plain", index=0), NodeConfig("ssd", index=1, labels={"disk": "ssd"}), TAINTED]


def daemonset(name: str = "agent", image: str = "agent:1", strategy: dict[str, Any] | None = None,
              **pod_spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "selector": {"matchLabels": {"app": name}},
        "updateStrategy": strategy or {"type": "RollingUpdate"},
        "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"containers": [{"name": "main", "image": image}], **pod_spec}}}}


def run(nodes: list[NodeConfig] = NODES, seed: int = 1, timing: Timing = QUIET) -> Simulation:
    sim = Simulation(seed=seed)
    Cluster(sim, nodes=nodes, timing=timing)
    return sim


def live_pods(sim: Simulation, app: str = "agent") -> list[dict[str, Any]]:
    return [p for p in sim.store.objects("pods", "default")
            if p["metadata"]["labels"].get("app") == app and not p["metadata"].get("deletionTimestamp")]


def test_one_pod_per_node_that_tolerates_and_matches():
    sim = run()
    sim.store.create("daemonsets.apps", daemonset(), "default")
    sim.store.create("daemonsets.apps", daemonset("ssd-only", nodeSelector={"disk": "ssd"}), "default")
    sim.store.create("daemonsets.apps", daemonset("everywhere", tolerations=[{"operator": "Exists"}]), "default")
    sim.run(until=20)
    placed = {app: sorted(p["spec"]["nodeName"] for p in live_pods(sim, app))
              for app in ("agent", "ssd-only", "everywhere")}
    assert placed == {"agent": ["plain", "ssd"], "ssd-only": ["ssd"], "everywhere": ["plain", "ssd", "tainted"]}
    status = sim.store.get("daemonsets.apps", "agent", "default")["status"]
    assert status == {"currentNumberScheduled": 2, "desiredNumberScheduled": 2, "numberMisscheduled": 0,
                      "numberReady": 2, "numberAvailable": 2, "updatedNumberScheduled": 2,
                      "observedGeneration": 1}
    pod = live_pods(sim)[0]
    # Pinned by node affinity (the scheduler binds it), with the automatic tolerations and the revision label.
    terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [pod["spec"]["nodeName"]]}]}]}
    assert [t["key"] for t in pod["spec"]["tolerations"]] == [t["key"] for t in AUTOMATIC_TOLERATIONS]
    revision = sim.store.objects("controllerrevisions.apps", "default")[0]
    assert pod["metadata"]["labels"]["controller-revision-hash"] == revision["metadata"]["labels"][
        "controller-revision-hash"]
    binds = [e for e in sim.audit if e.subresource == "binding" and e.name == pod["metadata"]["name"]]
    assert [e.actor for e in binds] == ["default-scheduler"]
    creates = {e.actor for e in sim.audit if e.verb == "create" and e.resource == "pods" and e.ok
               and e.namespace == "default" and e.subresource is None}
    assert creates == {"daemon-set-controller"}


def test_a_noexecute_taint_evicts_but_a_noschedule_taint_only_stops_new_pods():
    node = {"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}}
    assert should_run(daemonset(), node) == (False, True)
    node["spec"]["taints"] = [{"key": "k", "effect": "NoExecute"}]
    assert should_run(daemonset(), node) == (False, False)
    node["spec"]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    assert should_run(daemonset(), node) == (True, True)  # an automatic toleration


def test_a_new_node_gets_a_pod_and_a_relabelled_node_loses_it():
    sim = run(nodes=[NodeConfig("a", index=0, labels={"role": "edge"}), NodeConfig("b", index=1)])
    sim.store.create("daemonsets.apps", daemonset(nodeSelector={"role": "edge"}), "default")
    sim.run(until=10)
    assert [p["spec"]["nodeName"] for p in live_pods(sim)] == ["a"]
    sim.store.patch("nodes", "b", {"metadata": {"labels": {"role": "edge"}}})
    sim.store.patch("nodes", "a", {"metadata": {"labels": {"role": None}}})
    sim.run(until=20)
    assert [p["spec"]["nodeName"] for p in live_pods(sim)] == ["b"]


def _roll(sim: Simulation, image: str) -> list[tuple[int, int]]:
    """Update the image; record (live agent pods, ready agent pods) at every commit until idle."""
    seen: list[tuple[int, int]] = []

    def check(entry: Any, old: Any, new: Any) -> None:
        pods = live_pods(sim)
        ready = [p for p in pods if any(c["type"] == "Ready" and c["status"] == "True"
                                        for c in p.get("status", {}).get("conditions", []))]
        seen.append((len(pods), len(ready)))

    ds = sim.store.get("daemonsets.apps", "agent", "default")
    ds["spec"]["template"]["spec"]["containers"][0]["image"] = image
    sim.store.commit_hooks.append(check)
    sim.store.update("daemonsets.apps", ds, "default")
    sim.run(until=sim.now + 30)
    sim.store.commit_hooks.remove(check)
    return seen


def test_rolling_update_without_surge_keeps_max_unavailable():
    nodes = [NodeConfig(f"n{i}", index=i) for i in range(4)]
    sim = run(nodes=nodes)
    sim.store.create("daemonsets.apps", daemonset(strategy={"type": "RollingUpdate",
                                                            "rollingUpdate": {"maxUnavailable": 1}}), "default")
    sim.run(until=10)
    seen = _roll(sim, "agent:2")
    assert min(ready for _, ready in seen) == 3 and max(total for total, _ in seen) == 4
    assert {p["spec"]["containers"][0]["image"] for p in live_pods(sim)} == {"agent:2"}
    status = sim.store.get("daemonsets.apps", "agent", "default")["status"]
    assert status["updatedNumberScheduled"] == 4 and status["observedGeneration"] == 2
    assert len(sim.store.objects("controllerrevisions.apps", "default")) == 2


def test_rolling_update_with_surge_never_drops_below_every_node():
    nodes = [NodeConfig(f"n{i}", index=i) for i in range(3)]
    sim = run(nodes=nodes)
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    sim.store.create("daemonsets.apps", daemonset(strategy=strategy), "default")
    sim.run(until=10)
    seen = _roll(sim, "agent:2")
    assert min(ready for _, ready in seen) == 3  # full availability throughout
    assert max(total for total, _ in seen) == 4  # one node at a time carries two pods
    assert {p["spec"]["containers"][0]["image"] for p in live_pods(sim)} == {"agent:2"}


def test_on_delete_waits_for_the_user():
    sim = run(nodes=[NodeConfig("a", index=0)])
    sim.store.create("daemonsets.apps", daemonset(strategy={"type": "OnDelete"}), "default")
    sim.run(until=10)
    _roll(sim, "agent:2")
    [pod] = live_pods(sim)
    assert pod["spec"]["containers"][0]["image"] == "agent:1"
    sim.store.delete("pods", pod["metadata"]["name"], "default")
    sim.run(until=sim.now + 20)
    assert [p["spec"]["containers"][0]["image"] for p in live_pods(sim)] == ["agent:2"]


def test_failed_daemon_pods_are_replaced_after_a_backoff():
    # A DaemonSet's pods restart Always (the API refuses another policy), so they fail the way the kubelet's
    # eviction manager fails them: phase Failed, reason Evicted — here as soon as each one runs.
    sim = run(nodes=[NodeConfig("a", index=0)], timing=QUIET.with_(daemon_backoff=2.0))
    sim.store.create("daemonsets.apps", daemonset(), "default")
    now = 0.0
    while now < 30:
        now += 0.25
        sim.run(until=now)
        for pod in live_pods(sim):
            if (pod.get("status") or {}).get("phase") == "Running":
                sim.store.patch("pods", pod["metadata"]["name"], {"status": {
                    "phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory."}},
                    "default", subresource="status", actor="kubelet")
    deletes = [e.time for e in sim.audit if e.actor == "daemon-set-controller" and e.verb == "delete"
               and e.resource == "pods"]
    assert len(deletes) >= 3
    gaps = [b - a for a, b in zip(deletes, deletes[1:], strict=False)]
    assert gaps[1] > gaps[0]  # the failed-pod back-off doubles
    assert any("FailedDaemonPod" in line for line in _events(sim))


def _events(sim: Simulation) -> list[str]:
    return [f"{e.get('reason')} {e.get('message') or e.get('note')}" for e in sim.store.objects("events", "default")]


def test_same_seed_same_log():
    def once(seed: int) -> str:
        sim = run(seed=seed, timing=Timing(lease_interval=None, node_status_interval=None))
        sim.store.create("daemonsets.apps", daemonset(), "default")
        sim.run(until=10)
        _roll(sim, "agent:2")
        return sim.audit.to_jsonl()

    assert once(3) == once(3)
    assert once(3) != once(4)
