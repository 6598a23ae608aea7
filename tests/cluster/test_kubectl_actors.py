"""The real kubectl against the newer actors: DaemonSet rollouts, Service endpoints, drain with a
PodDisruptionBudget, and CronJobs (on a store clock moved forward so a per-minute schedule fires in seconds)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta

import pytest

from fakekube.cluster import Timing

pytestmark = [pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed"), pytest.mark.slow]


class MovableClock:
    """Wall time plus an offset that only grows: a test jumps to just before a minute boundary."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def jump_to_second(self, second: float) -> None:
        now = self.now()
        ahead = (second - (now.second + now.microsecond / 1e6)) % 60
        self.offset += timedelta(seconds=ahead)


CLUSTER_TIMING = Timing(job_backoff=0.2, run_duration=0.3)  # the served fixture of conftest.py
STORE_CLOCK = MovableClock


DAEMONSET = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "agent:1"}]}
"""


def test_rollout_status_daemonset(served):
    store, kubectl = served.store, served.kubectl
    kubectl("apply", "-f", "-", stdin=DAEMONSET)
    out = kubectl("rollout", "status", "daemonset/agent", "--timeout=60s")
    assert 'daemon set "agent" successfully rolled out' in out
    kubectl("set", "image", "daemonset/agent", "agent=agent:2")
    assert "successfully rolled out" in kubectl("rollout", "status", "daemonset/agent", "--timeout=60s")
    pods = [p for p in store.objects("pods", "default") if p["metadata"]["labels"].get("app") == "agent"
            and not p["metadata"].get("deletionTimestamp")]
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["node-1", "node-2"]
    assert {p["spec"]["containers"][0]["image"] for p in pods} == {"agent:2"}
    history = kubectl("rollout", "history", "daemonset/agent")
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["1", "2"]


def test_get_endpoints_shows_pod_ips_once_ready(served):
    kubectl = served.kubectl
    kubectl("apply", "-f", "-", stdin="""
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx
        ports: [{name: http, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /, port: http}, initialDelaySeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
""")
    kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=60s")
    pod_ips = sorted(kubectl("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].status.podIP}").split())
    assert len(pod_ips) == 2
    deprecated = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"

    def ips(out: str) -> list[str]:  # kubectl prints the route's deprecation warning (as for a real v1.37 server)
        return sorted(out.replace(deprecated, "").split())

    shown = kubectl.until(lambda out: ips(out) == pod_ips and deprecated in out,
                          "get", "endpoints", "web", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
    assert ips(shown) == pod_ips
    table = kubectl("get", "endpoints", "web")
    assert all(f"{ip}:8080" in table for ip in pod_ips)
    slices = json.loads(kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", "json"))
    [slc] = slices["items"]
    assert sorted(a for ep in slc["endpoints"] for a in ep["addresses"]) == pod_ips
    assert slc["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert all(ep["conditions"] == {"ready": True, "serving": True, "terminating": False} for ep in slc["endpoints"])


def test_drain_waits_for_the_disruption_budget(served):
    store, kubectl = served.store, served.kubectl
    kubectl("cordon", "node-2")
    kubectl("apply", "-f", "-", stdin="""
apiVersion: apps/v1
kind: Deployment
metadata: {name: guarded}
spec:
  replicas: 2
  selector: {matchLabels: {app: guarded}}
  template:
    metadata: {labels: {app: guarded}}
    spec: {terminationGracePeriodSeconds: 2, containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: guarded}}
""")
    kubectl("wait", "--for=condition=Available", "deployment/guarded", "--timeout=60s")
    kubectl.until(lambda out: out == "1", "get", "pdb", "guarded", "-o", "jsonpath={.status.disruptionsAllowed}")
    nodes = kubectl("get", "pods", "-l", "app=guarded", "-o", "jsonpath={.items[*].spec.nodeName}").split()
    assert nodes == ["node-1", "node-1"]
    kubectl("uncordon", "node-2")
    try:
        out = kubectl("drain", "node-1", "--ignore-daemonsets", "--pod-selector=app=guarded", "--timeout=90s",
                      timeout=120)
    finally:
        kubectl("uncordon", "node-1")
    assert "node/node-1 drained" in out
    # The second eviction found the budget spent and kubectl retried it, as against a real cluster.
    assert "Cannot evict pod as it would violate the pod's disruption budget." in out
    assert "will retry after 5s" in out
    live = [p for p in store.objects("pods", "default") if p["metadata"]["labels"].get("app") == "guarded"
            and not p["metadata"].get("deletionTimestamp")]
    assert [p["spec"].get("nodeName") for p in live] == ["node-2", "node-2"]
    evictions = [e for e in store.audit if e.subresource == "eviction"]
    assert {e.code for e in evictions} == {201, 429}


def test_cronjob_fires_and_create_job_from_cronjob(served):
    store, kubectl, clock = served.store, served.kubectl, served.clock
    clock.jump_to_second(57.5)  # the store's clock: the next minute starts in 2.5 s
    kubectl("create", "cronjob", "tick", "--image=busybox", "--schedule=* * * * *", "--", "date")
    kubectl("create", "job", "manual", "--from=cronjob/tick")
    manual = json.loads(kubectl("get", "job", "manual", "-o", "json"))
    assert manual["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    assert manual["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    assert "condition met" in kubectl("wait", "--for=condition=complete", "job/manual", "--timeout=60s")
    scheduled = kubectl.until(bool, "get", "cronjob", "tick", "-o", "jsonpath={.status.lastScheduleTime}",
                              timeout=30)
    when = datetime.fromisoformat(scheduled.replace("Z", "+00:00"))
    assert when.second == 0
    job = f"tick-{int(when.timestamp()) // 60}"
    assert "condition met" in kubectl("wait", "--for=condition=complete", f"job/{job}", "--timeout=60s")
    kubectl.until(bool, "get", "cronjob", "tick", "-o", "jsonpath={.status.lastSuccessfulTime}", timeout=30)
    created = next(e for e in store.audit if e.resource == "jobs" and e.verb == "create" and e.name == job)
    assert created.actor == "cronjob-controller"
