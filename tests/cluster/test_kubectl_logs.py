"""The real kubectl's ``logs`` against a served store with a cluster: the kubelet actor writes each container
instance's log, a test scripts lines (fakekube.pods.logs), ``-f`` ends when the container exits."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time

import pytest

from fakekube.cluster import Timing
from fakekube.pods.logs import pod_logs

pytestmark = [pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed"), pytest.mark.slow]
CLUSTER_TIMING = Timing(crash_after=0.2, restart_backoff=0.3)

TWO = """
apiVersion: v1
kind: Pod
metadata:
  name: two
  annotations: {sim.fakekube.io/logs-b: "from b"}
spec:
  containers: [{name: a, image: busybox}, {name: b, image: busybox}]
"""


def _running(kubectl, name: str) -> None:
    kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=30s")


def test_logs_tail_since_timestamps_container_and_errors(served):
    kubectl = served.kubectl
    remove = pod_logs(served.store).script(["hello", "world"], pod="web")
    try:
        kubectl("run", "web", "--image=nginx:1.27")
        _running(kubectl, "web")
    finally:
        remove()
    assert kubectl("logs", "web") == "[fakekube] container web started (image nginx:1.27)\nhello\nworld\n"
    assert kubectl("logs", "web", "--tail=1") == "world\n"
    assert kubectl("logs", "web", "--since=1h", "--tail=2") == "hello\nworld\n"
    stamp, text = kubectl("logs", "web", "--timestamps", "--tail=1").split(" ", 1)
    assert text == "world\n" and len(stamp) == 30 and stamp[10] == "T" and stamp.endswith("Z")
    assert kubectl("logs", "web", "--limit-bytes=5") == "[fake"
    pod_logs(served.store).write("default", "web", "appended\n")
    assert kubectl("logs", "pod/web", "-c", "web", "--tail=1") == "appended\n"
    out = kubectl("logs", "web", "--previous", check=False)
    assert 'previous terminated container "web" in pod "web" not found' in out
    assert "container zzz is not valid for pod web" in kubectl("logs", "web", "-c", "zzz", check=False)
    assert 'pods "nope" not found' in kubectl("logs", "nope", check=False)

    kubectl("apply", "-f", "-", stdin=TWO)
    _running(kubectl, "two")
    # kubectl itself picks the first container (and says so) when none is named; the server would refuse
    out = kubectl("logs", "two")
    assert 'Defaulted container "a" out of: a, b' in out and "[fakekube] container a started" in out
    assert kubectl("logs", "two", "-c", "b").endswith("from b\n")
    # kubectl reads the containers concurrently: their lines may come in either order
    assert sorted(kubectl("logs", "two", "--all-containers", "--prefix").splitlines()) == [
        "[pod/two/a] [fakekube] container a started (image busybox)",
        "[pod/two/b] [fakekube] container b started (image busybox)", "[pod/two/b] from b"]


def test_logs_follow_ends_when_the_container_exits(served):
    kubectl = served.kubectl
    kubectl("run", "job1", "--image=busybox", "--restart=Never",
            "--annotations=sim.fakekube.io/run-seconds=1.5", "--annotations=sim.fakekube.io/exit-code=3")
    _running(kubectl, "job1")
    feeder = threading.Timer(0.3, lambda: pod_logs(served.store).write("default", "job1", "tick\n"))
    feeder.start()
    started = time.monotonic()
    proc = subprocess.run(["kubectl", "logs", "-f", "job1"], env=kubectl.env, capture_output=True, text=True,
                          timeout=30)
    feeder.join()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("tick\n[fakekube] container job1 exited with code 3\n")
    assert time.monotonic() - started < 10
    # once it has exited the log stays readable, and a follow ends at once
    assert kubectl("logs", "-f", "job1", "--tail=1") == "[fakekube] container job1 exited with code 3\n"


def test_logs_follow_ends_when_the_pod_is_deleted(served):
    kubectl = served.kubectl
    kubectl("run", "doomed", "--image=busybox")
    _running(kubectl, "doomed")
    follower = subprocess.Popen(["kubectl", "logs", "-f", "doomed"], env=kubectl.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.3)
        kubectl("delete", "pod", "doomed", "--wait=false")
        out, _ = follower.communicate(timeout=30)
    finally:
        follower.kill()
    assert out.endswith("[fakekube] container doomed stopped\n")


def test_logs_previous_after_a_crash(served):
    kubectl = served.kubectl
    kubectl("run", "crash", "--image=busybox", "--annotations=sim.fakekube.io/failure=CrashLoopBackOff")
    kubectl.until(lambda out: "CrashLoopBackOff" in out and " 1 " in out, "get", "pod", "crash", "--no-headers")
    previous = kubectl("logs", "crash", "--previous")
    assert previous == ("[fakekube] container crash started (image busybox)\n"
                        "[fakekube] container crash exited with code 1\n")
    kubectl("run", "nopull", "--image=busybox", "--annotations=sim.fakekube.io/failure=ImagePullBackOff")
    kubectl.until(lambda out: "ImagePullBackOff" in out, "get", "pod", "nopull", "--no-headers")
    assert ('container "nopull" in pod "nopull" is waiting to start: trying and failing to pull image'
            in kubectl("logs", "nopull", check=False))
