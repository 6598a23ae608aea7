"""A container's main command behind a server: the official client port-forwards to the echo server it starts
(as the client's e2e ``test_portforward_raw`` does) and follows the log it writes."""

from __future__ import annotations

import select
import time

import pytest
from kubernetes import client, config
from kubernetes.stream import portforward

from fakekube.cluster import Timing

ECHO_SERVER = """
import socket, sys, threading

def serve(port):
    listener = socket.socket()
    listener.bind(("0.0.0.0", port))
    listener.listen()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=lambda c=conn: [c.sendall(d) for d in iter(lambda: c.recv(1024), b"")]).start()

for arg in sys.argv[1:]:
    threading.Thread(target=serve, args=(int(arg),), daemon=True).start()
threading.Event().wait()
"""


pytestmark = pytest.mark.slow  # a server and real clients: seconds


@pytest.fixture
def kube_cluster_options() -> dict[str, object]:
    return {"timing": Timing.fast()}


def running(core: client.CoreV1Api, name: str) -> None:
    deadline = time.monotonic() + 10
    while (core.read_namespaced_pod(name, "default").status.phase or "") != "Running":
        assert time.monotonic() < deadline
        time.sleep(0.02)


def read(sock: object, size: int) -> bytes:
    reply = b""
    while len(reply) < size and select.select([sock], [], [], 5)[0]:
        data = sock.recv(1024)  # type: ignore[attr-defined]
        assert data, "unexpected close"
        reply += data
    return reply


def test_port_forward_reaches_the_echo_server_the_command_starts(kube_cluster: object) -> None:
    core = client.CoreV1Api(config.new_client_from_config(config_file=str(kube_cluster.kubeconfig)))  # type: ignore[attr-defined]
    core.create_namespaced_config_map("default", {"metadata": {"name": "echo"}, "data": {"echo.py": ECHO_SERVER}})
    core.create_namespaced_pod("default", {"metadata": {"name": "echo"}, "spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "echo", "image": "python", "command": ["python", "-u", "/opt/echo.py", "1234", "1235"],
                        "volumeMounts": [{"name": "code", "mountPath": "/opt", "readOnly": True}]}],
        "volumes": [{"name": "code", "configMap": {"name": "echo"}}]}})
    running(core, "echo")
    pf = portforward(core.connect_get_namespaced_pod_portforward, "echo", "default", ports="1234,1235,1236")
    for port in (1234, 1235):
        sock = pf.socket(port)
        sock.setblocking(True)
        sock.sendall(f"to {port}".encode())
        assert read(sock, 7) == f"to {port}".encode()
    refused = pf.socket(1236)  # nothing listens there: the kubelet's error on the port's error channel
    with pytest.raises(OSError):
        for _ in range(50):
            refused.sendall(b"x")
            time.sleep(0.01)
    assert "connection refused" in (pf.error(1236) or "")
    pf.close()


def test_logs_follow_what_the_command_writes(kube_cluster: object) -> None:
    core = client.CoreV1Api(config.new_client_from_config(config_file=str(kube_cluster.kubeconfig)))  # type: ignore[attr-defined]
    core.create_namespaced_pod("default", {"metadata": {"name": "count"}, "spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox",
                        "command": ["sh", "-c", "for i in 1 2 3; do echo line $i; sleep 0.1; done; exit 5"]}]}})
    running(core, "count")
    followed = core.read_namespaced_pod_log("count", "default", follow=True, _preload_content=False)
    assert followed.data.decode() == "line 1\nline 2\nline 3\n"  # the follow ends when the command does
    deadline = time.monotonic() + 10
    while (core.read_namespaced_pod("count", "default").status.phase or "") != "Failed":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    state = core.read_namespaced_pod("count", "default").status.container_statuses[0].state
    assert state.terminated.exit_code == 5
