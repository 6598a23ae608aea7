"""The kubelet actors write each container instance's log in virtual time (fakekube.pods.logs): one line at
start and one at exit, scripted lines, the previous instance after a restart, stamped with the simulation's
clock — and the same seed gives the same logs."""

from __future__ import annotations

from fakekube.cluster import Cluster, FailureRule, Timing
from fakekube.pods.logs import pod_logs
from fakekube.sim import Lag, Simulation

QUIET = Timing(lease_interval=None, node_status_interval=None)


def pod(name: str, **meta: object) -> dict:
    return {"metadata": {"name": name, **meta}, "spec": {"containers": [{"name": "main", "image": "app:1"}]}}


def _run(seed: int) -> tuple[Simulation, Cluster]:
    sim = Simulation(seed=seed)
    timing = QUIET.with_(failures=(FailureRule("*:crash"),), restart_backoff=1.0)
    cluster = Cluster(sim, nodes=1, timing=timing)
    cluster.logs.script(["scripted"], pod="crash")
    sim.store.create("pods", {**pod("crash"), "spec": {"containers": [{"name": "main", "image": "app:crash"}]}},
                     "default")
    sim.store.create("pods", pod("ok", annotations={"sim.fakekube.io/logs": "a\nb"}), "default")
    sim.run(until=5)
    return sim, cluster


def test_the_cluster_kubelet_logs_starts_exits_and_keeps_the_previous_instance() -> None:
    sim, cluster = _run(1)
    logs = cluster.logs
    assert logs.text("default", "ok") == "[fakekube] container main started (image app:1)\na\nb\n"
    status = sim.store.get("pods", "crash", "default")["status"]["containerStatuses"][0]
    assert status["restartCount"] >= 1
    previous = logs.text("default", "crash", previous=True)
    assert previous == ("[fakekube] container main started (image app:crash)\nscripted\n"
                        "[fakekube] container main exited with code 1\n")
    uid = sim.store.get("pods", "ok", "default")["metadata"]["uid"]
    first = logs.instance(uid, "main").lines()[0][0]
    assert first.time.year == sim.clock.now().year and first.time <= sim.clock.now()  # the simulation's clock
    sim.store.delete("pods", "ok", "default")
    sim.run(until=10)
    assert logs.find(uid, "main", status["containerID"]) is None  # a deleted pod's logs go with it


def test_same_seed_same_logs() -> None:
    def stamped(seed: int) -> list[tuple[str, bytes]]:
        sim, cluster = _run(seed)
        uid = sim.store.get("pods", "crash", "default")["metadata"]["uid"]
        return [(line.time.isoformat(), line.data) for line in cluster.logs.instance(uid, "main").lines()[0]]

    assert stamped(3) == stamped(3)


def test_the_simulation_kubelet_logs_running_pods() -> None:
    sim = Simulation(seed=1)
    sim.kubelet(pod_start_delays=Lag.fixed(0.1))
    sim.store.create("pods", {**pod("p"), "metadata": {"name": "p", "namespace": "default"}}, actor="user")
    sim.run()
    logs = pod_logs(sim.store)
    assert logs.text("default", "p") == "[fakekube] container main started (image app:1)\n"
