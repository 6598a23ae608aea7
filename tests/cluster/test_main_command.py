"""A container's main command, run by the kubelet actor (``fakekube.cluster.mainprocesses``), in virtual time."""

from __future__ import annotations

from typing import Any

from fakekube.cluster import Cluster, Timing
from fakekube.sim import Simulation

TIMING = Timing(lease_interval=None, node_status_interval=None, accept_delay=0, start_latency=0,
                restart_backoff=10.0)


def start(*containers: dict[str, Any], restart: str = "Never", **meta: Any) -> tuple[Simulation, Cluster]:
    sim = Simulation(seed=1)
    cluster = Cluster(sim, nodes=1, timing=TIMING)
    sim.store.create("pods", {"metadata": {"name": "p", **meta}, "spec": {
        "restartPolicy": restart, "containers": list(containers)}}, "default")
    return sim, cluster


def status(sim: Simulation) -> dict[str, Any]:
    return sim.store.get("pods", "p", "default")["status"]


def test_a_script_writes_the_log_as_it_runs_and_its_exit_code_ends_the_container() -> None:
    sim, cluster = start({"name": "main", "image": "busybox", "args": [
        "/bin/sh", "-c", "for i in 1 2 3; do echo tick $i; sleep 5; done; echo bye >&2; exit 3"]})
    sim.run(until=7)
    assert cluster.logs.text("default", "p") == "tick 1\ntick 2\n"  # only what the command wrote
    assert status(sim)["phase"] == "Running"
    sim.run(until=30)
    log = cluster.logs.instance(sim.store.get("pods", "p", "default")["metadata"]["uid"], "main")
    assert [(line.stream, line.data) for line in log.lines()[0]] == [
        ("stdout", b"tick 1\n"), ("stdout", b"tick 2\n"), ("stdout", b"tick 3\n"), ("stderr", b"bye\n")]
    assert [line.time.second for line in log.lines()[0]] == [0, 5, 10, 15]  # virtual time
    assert status(sim)["phase"] == "Failed"
    assert status(sim)["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 3


def test_restart_policy_always_restarts_an_ended_command_with_back_off() -> None:
    sim, cluster = start({"name": "main", "image": "busybox", "command": ["sh", "-c", "echo run; exit 1"]},
                         restart="Always")
    sim.run(until=12)
    cs = status(sim)["containerStatuses"][0]
    assert cs["restartCount"] == 2 and cs["lastState"]["terminated"]["exitCode"] == 1  # at 0, at once, after 10 s
    assert cluster.logs.text("default", "p", previous=True) == "run\n"


def test_a_job_pod_ends_when_its_command_does() -> None:
    sim = Simulation(seed=1)
    Cluster(sim, nodes=1, timing=TIMING)
    sim.store.create("jobs.batch", {"metadata": {"name": "count"}, "spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 42; echo done"]}]}}}}, "default")
    sim.run(until=120)
    job = sim.store.get("jobs.batch", "count", "default")
    assert job["status"]["succeeded"] == 1
    pod = sim.store.objects("pods", "default")[0]
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["startedAt"], terminated["finishedAt"]) == ("2026-01-01T00:00:00Z", "2026-01-01T00:00:42Z")


def test_what_cannot_be_emulated_runs_as_before_silent_but_for_the_kubelet() -> None:
    for command in (["nginx", "-g", "daemon off;"], ["sh", "-c", "pip install x && python app.py"],
                    ["sh", "-c", "$CMD"], ["bash", "-c", "a=(1 2); echo ${a[0]}"], ["sh", "-c", "env A=1 perl x"],
                    ["python", "app.py"], ["sh"]):
        sim, cluster = start({"name": "main", "image": "python", "command": command})
        sim.run(until=60)
        assert status(sim)["phase"] == "Running"
        assert cluster.logs.text("default", "p") == "[fakekube] container main started (image python)\n"


def test_deleting_the_pod_stops_the_command() -> None:
    sim, cluster = start({"name": "main", "image": "busybox",
                          "command": ["sh", "-c", "while true; do date; sleep 1; done"]})
    sim.run(until=3.5)
    uid = sim.store.get("pods", "p", "default")["metadata"]["uid"]
    log = cluster.logs.instance(uid, "main")
    assert len(log.lines()[0]) == 4
    sim.store.delete("pods", "p", "default")
    sim.run(until=10)
    assert log.terminated and len(log.lines()[0]) == 4 and not cluster.kubelets[0].mains.running


def test_an_echo_server_listens_while_its_container_runs() -> None:
    sim = Simulation(seed=1)
    Cluster(sim, nodes=1, timing=TIMING)
    sim.store.create("configmaps", {"metadata": {"name": "srv"}, "data": {"server.py": (
        "import socketserver, sys\n"
        "class H(socketserver.BaseRequestHandler):\n"
        "    def handle(self):\n"
        "        while data := self.request.recv(1024):\n"
        "            self.request.sendall(data)\n"
        "for port in sys.argv[1:]:\n"
        "    socketserver.TCPServer(('', int(port)), H)\n")}}, "default")
    sim.store.create("pods", {"metadata": {"name": "p"}, "spec": {
        "containers": [{"name": "s", "image": "python", "command": ["python", "-u", "/opt/server.py", "1234"],
                        "volumeMounts": [{"name": "srv", "mountPath": "/opt"}]}],
        "volumes": [{"name": "srv", "configMap": {"name": "srv"}}]}}, "default")
    sim.run(until=5)
    pod = sim.store.get("pods", "p", "default")
    forwards = sim.store.pod_exec.port_forwards
    files = lambda name: sim.store.pod_exec.files(pod, name, lambda p, n: None)  # noqa: E731
    assert forwards.find(pod, 1234, files).__name__ == "echo"
    assert forwards.find(pod, 1236, files) is None  # nothing listens there: refused
    sim.store.delete("pods", "p", "default")
    sim.run(until=10)
    assert forwards.find(pod, 1234, files) is None


def test_the_kubelet_expands_var_references_before_the_shell_sees_the_script() -> None:
    sim, cluster = start({"name": "main", "image": "busybox", "env": [{"name": "WHO", "value": "world"}],
                          "command": ["sh", "-c"], "args": ["echo hello $(WHO) $WHO $(date +%Y)"]})
    sim.run(until=5)
    # $(WHO) is the kubelet's (ExpandContainerCommandAndArgs), $WHO the shell's; $(date +%Y) names no variable,
    # so the kubelet leaves it and the shell runs it as a command substitution.
    assert cluster.logs.text("default", "p") == "hello world world 2026\n"


def test_a_command_substitution_of_an_unknown_command_leaves_the_container_unemulated() -> None:
    sim, cluster = start({"name": "main", "image": "busybox", "command": ["sh", "-c", "echo $(kubectl version)"]})
    sim.run(until=5)
    assert cluster.logs.text("default", "p").startswith("[fakekube] container main started")


def test_a_command_that_ends_first_cancels_the_run_seconds_exit_of_its_instance() -> None:
    sim, cluster = start({"name": "main", "image": "busybox", "command": ["sh", "-c", "sleep 4; exit 1"]},
                         restart="OnFailure", annotations={"sim.fakekube.io/run-seconds": "5"})
    sim.run(until=6)  # exits at 4 (code 1), restarts at once; the old 5 s deadline must not end the new instance
    cs = status(sim)["containerStatuses"][0]
    assert cs["restartCount"] == 1 and "running" in cs["state"]
    assert cs["lastState"]["terminated"]["exitCode"] == 1
