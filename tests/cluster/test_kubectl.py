"""The real kubectl against `fakekube serve`'s cluster: rollouts, waits and watches finish as on a cluster."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from fakekube.cluster import Timing

pytestmark = [pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed"), pytest.mark.slow]
CLUSTER_TIMING = Timing(job_backoff=0.2, run_duration=0.3)  # the served fixture of conftest.py


DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
"""


def test_deployment_rollout_status_wait_history_and_undo(served):
    store, kubectl = served.store, served.kubectl
    kubectl("apply", "-f", "-", stdin=DEPLOYMENT)
    assert 'deployment "web" successfully rolled out' in kubectl("rollout", "status", "deployment/web",
                                                                   "--timeout=60s")
    assert "condition met" in kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=60s")
    kubectl("set", "image", "deployment/web", "nginx=nginx:1.28")
    assert "successfully rolled out" in kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    history = kubectl("rollout", "history", "deployment/web")
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["1", "2"]
    kubectl("rollout", "undo", "deployment/web")
    assert "successfully rolled out" in kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    live = [p for p in store.objects("pods", "default")
            if p["metadata"].get("labels", {}).get("app") == "web" and not p["metadata"].get("deletionTimestamp")]
    assert [p["spec"]["containers"][0]["image"] for p in live] == ["nginx:1.27"] * 3
    assert len(store.objects("replicasets.apps", "default")) == 2  # the undo reused revision 1's ReplicaSet


def test_statefulset_rollout_status_and_scale(served):
    kubectl = served.kubectl
    kubectl("apply", "-f", "-", stdin="""
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  updateStrategy: {type: RollingUpdate}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: postgres}]}
""")
    out = kubectl("rollout", "status", "statefulset/db", "--timeout=60s")
    assert "partitioned roll out complete" in out or "rolling update complete" in out
    kubectl("scale", "statefulset/db", "--replicas=1")
    kubectl("wait", "--for=jsonpath={.status.replicas}=1", "statefulset/db", "--timeout=60s")
    assert kubectl("get", "pods", "-l", "app=db", "-o", "name").split() == ["pod/db-0"]


def test_jobs_complete_and_fail(served):
    kubectl = served.kubectl
    kubectl("apply", "-f", "-", stdin="""
apiVersion: batch/v1
kind: Job
metadata: {name: pi}
spec:
  completions: 2
  template:
    spec: {restartPolicy: Never, containers: [{name: pi, image: perl}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: broken}
spec:
  backoffLimit: 1
  template:
    metadata: {annotations: {sim.fakekube.io/exit-code: "2"}}
    spec: {restartPolicy: Never, containers: [{name: x, image: busybox}]}
""")
    assert "condition met" in kubectl("wait", "--for=condition=complete", "job/pi", "--timeout=60s")
    assert "condition met" in kubectl("wait", "--for=condition=failed", "job/broken", "--timeout=60s")
    assert kubectl("get", "job", "broken", "-o", "jsonpath={.status.failed}") == "2"


def test_get_pods_watch_shows_the_phases(served):
    kubectl = served.kubectl
    proc = subprocess.Popen(["kubectl", "get", "pods", "-w", "-l", "app=watched", "--no-headers"],
                            env=kubectl.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.5)  # let the watch start before the pod exists
        kubectl("run", "watched", "--image=nginx", "--labels=app=watched", "--restart=Never",
                "--overrides", '{"apiVersion": "v1", "metadata": {"annotations": '
                               '{"sim.fakekube.io/run-seconds": "30"}}}', check=False)
        seen: list[str] = []
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line.split()[2] if len(line.split()) > 2 else line)
            if "Running" in line:
                break
        assert "Running" in seen
        assert seen.index("Running") > 0  # Pending / ContainerCreating came first
    finally:
        proc.kill()
        proc.wait()


def test_kube_system_and_bootstrap_objects(served):
    kubectl = served.kubectl
    kubectl("wait", "--for=condition=Available", "deployment/coredns", "-n", "kube-system", "--timeout=60s")
    pods = kubectl("get", "pods", "-n", "kube-system", "-o", "jsonpath={.items[*].status.phase}")
    assert pods.split() == ["Running"] * 3  # coredns (2 replicas) and metrics-server
    assert "10.96.0.1" in kubectl("get", "service", "kubernetes", "-o", "jsonpath={.spec.clusterIP}")
    assert kubectl("get", "nodes", "-o", "jsonpath={.items[*].metadata.name}").split() == ["node-1", "node-2"]
    ready = kubectl("get", "nodes", "-o", "jsonpath={.items[*].status.conditions[?(@.type=='Ready')].status}")
    assert ready.split() == ["True", "True"]
    assert "system-node-critical" in kubectl("get", "priorityclasses", "-o", "name")
