"""The kubelet's view of a pod's containers, and the pod status it generates from that view.

Follows kubelet ``pkg/kubelet/kubelet_pods.go`` (``generateAPIPodStatus``, ``getPhase``,
``convertToAPIContainerStatuses``) and ``pkg/kubelet/status/generate.go`` (``GeneratePodReadyCondition``,
``GenerateContainersReadyCondition``, ``GeneratePodInitializedCondition``,
``GeneratePodReadyToStartContainersCondition``): conditions in the kubelet's order (PodReadyToStartContainers,
Initialized, Ready, ContainersReady) followed by the conditions the kubelet does not own (PodScheduled, kept
from the API object), each condition's ``lastTransitionTime`` kept while its status does not change,
container statuses sorted by name, and the phase computed from the containers' states and the restart
policy (a pod that is terminal — deleted and stopped — is Succeeded when every container exited 0, else
Failed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")


def normalize_image(image: str) -> str:
    """The image reference the container runtime reports (containerd's normalised name)."""
    name, tag = image, "latest"
    if "@" in image:
        return image if "/" in image.split("@")[0] else f"docker.io/library/{image}"
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = image.rsplit(":", 1)
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = f"docker.io/library/{name}"
    elif "." not in first and ":" not in first and first != "localhost":
        name = f"docker.io/{name}"
    return f"{name}:{tag}"


def image_id(image: str) -> str:
    reference = normalize_image(image)
    digest = hashlib.sha256(reference.encode()).hexdigest()
    return f"{reference.rsplit(':', 1)[0]}@sha256:{digest}"


@dataclass
class ContainerRun:
    """One container as the runtime sees it."""

    name: str
    image: str
    state: str = "waiting"  # waiting | running | terminated
    reason: str = "ContainerCreating"  # waiting reason, or terminated reason
    message: str = ""
    started_at: str | None = None
    finished_at: str | None = None
    exit_code: int = 0
    ready: bool = False
    restart_count: int = 0
    last_state: Obj = field(default_factory=dict)
    container_id: str | None = None

    def start(self, now: str, container_id: str) -> None:
        self.state, self.reason, self.message = "running", "", ""
        self.started_at, self.finished_at = now, None
        self.container_id = container_id
        self.ready = False

    def stop(self, now: str, exit_code: int, reason: str | None = None) -> None:
        self.state = "terminated"
        self.exit_code = exit_code
        self.reason = reason or ("Completed" if exit_code == 0 else "Error")
        self.finished_at = now
        self.ready = False

    def wait(self, reason: str, message: str = "") -> None:
        """Waiting again (a back-off): the last termination moves to ``lastState``."""
        if self.state == "terminated":
            self.last_state = {"terminated": self._terminated()}
        self.state, self.reason, self.message = "waiting", reason, message
        self.ready = False

    def _terminated(self) -> Obj:
        out: Obj = {"exitCode": self.exit_code, "reason": self.reason, "startedAt": self.started_at,
                    "finishedAt": self.finished_at}
        if self.container_id:
            out["containerID"] = self.container_id
        return out

    def status(self) -> Obj:
        if self.state == "running":
            state: Obj = {"running": {"startedAt": self.started_at}}
        elif self.state == "terminated":
            state = {"terminated": self._terminated()}
        else:
            waiting: Obj = {"reason": self.reason}
            if self.message:
                waiting["message"] = self.message
            state = {"waiting": waiting}
        out: Obj = {"name": self.name, "state": state, "lastState": self.last_state, "ready": self.ready,
                    "restartCount": self.restart_count, "image": normalize_image(self.image),
                    "imageID": image_id(self.image) if self.container_id else ""}
        if self.container_id:
            out["containerID"] = self.container_id
        out["started"] = self.state == "running"
        return out


@dataclass
class PodRun:
    """The kubelet's state of one pod: its sandbox, addresses and containers."""

    uid: str
    host_ip: str
    containers: list[ContainerRun]
    init_containers: list[ContainerRun] = field(default_factory=list)
    start_time: str | None = None
    sandbox_ready: bool = False
    pod_ip: str | None = None
    terminal: bool = False  # deleted and stopped: the phase must be terminal


def _condition(kind: str, status: bool, reason: str = "", message: str = "") -> Obj:
    cond: Obj = {"type": kind, "status": "True" if status else "False", "lastProbeTime": None}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    return cond


def phase_of(run: PodRun, restart_policy: str) -> str:
    """``getPhase`` for the containers' states."""
    if any(c.state != "terminated" or c.exit_code != 0 for c in run.init_containers):
        init_failed = any(c.state == "terminated" and c.exit_code != 0 for c in run.init_containers)
        if init_failed and (restart_policy == "Never" or run.terminal):
            return "Failed"
        return "Failed" if run.terminal else "Pending"
    waiting = running = stopped = succeeded = 0
    for c in run.containers:
        if c.state == "running":
            running += 1
        elif c.state == "terminated":
            stopped += 1
            succeeded += c.exit_code == 0
        elif c.last_state:
            stopped += 1  # waiting to restart after having run
            succeeded += (c.last_state.get("terminated") or {}).get("exitCode") == 0
        else:
            waiting += 1
    if waiting:
        return "Failed" if run.terminal else "Pending"
    if running:
        return "Failed" if run.terminal else "Running"
    if restart_policy == "Always" and not run.terminal:
        return "Running"
    if stopped and succeeded == stopped:
        return "Succeeded"
    if restart_policy == "Never" or run.terminal:
        return "Failed"
    return "Running"  # OnFailure: the failed ones restart


def generate_status(pod: Obj, run: PodRun, now: str) -> Obj:
    """The status the kubelet would send for ``pod`` (its current API object) given ``run``."""
    spec = pod.get("spec") or {}
    old = pod.get("status") or {}
    restart_policy = spec.get("restartPolicy") or "Always"
    phase = phase_of(run, restart_policy)
    terminal = phase in ("Succeeded", "Failed")
    initialized = all(c.state == "terminated" and c.exit_code == 0 for c in run.init_containers)
    not_ready = sorted(c.name for c in run.containers if not c.ready)
    not_init = [c.name for c in run.init_containers if not (c.state == "terminated" and c.exit_code == 0)]
    conditions = [_condition("PodReadyToStartContainers", run.sandbox_ready)]
    if terminal:
        done = "PodCompleted" if phase == "Succeeded" else "PodFailed"
        conditions.append(_condition("Initialized", True, "PodCompleted") if initialized
                          else _condition("Initialized", False, "ContainersNotInitialized",
                                          f"containers with incomplete status: [{' '.join(not_init)}]"))
        conditions.append(_condition("Ready", False, done))
        conditions.append(_condition("ContainersReady", False, done))
    else:
        conditions.append(_condition("Initialized", True) if initialized
                          else _condition("Initialized", False, "ContainersNotInitialized",
                                          f"containers with incomplete status: [{' '.join(not_init)}]"))
        unready = f"containers with unready status: [{' '.join(not_ready)}]"
        ready = not not_ready and initialized
        conditions.append(_condition("Ready", True) if ready else
                          _condition("Ready", False, "ContainersNotReady", unready))
        conditions.append(_condition("ContainersReady", True) if ready else
                          _condition("ContainersReady", False, "ContainersNotReady", unready))
    previous = {c.get("type"): c for c in old.get("conditions") or ()}
    for cond in conditions:
        before = previous.get(cond["type"])
        keep = before is not None and before.get("status") == cond["status"] and before.get("lastTransitionTime")
        cond["lastTransitionTime"] = before["lastTransitionTime"] if keep else now
    conditions.extend(c for c in old.get("conditions") or () if c.get("type") not in KUBELET_CONDITIONS)
    status: Obj = {"phase": phase, "conditions": conditions, "hostIP": run.host_ip,
                   "hostIPs": [{"ip": run.host_ip}]}
    if run.pod_ip:
        status["podIP"] = run.pod_ip
        status["podIPs"] = [{"ip": run.pod_ip}]
    if run.start_time:
        status["startTime"] = run.start_time
    if run.init_containers:
        status["initContainerStatuses"] = [c.status() for c in run.init_containers]
    status["containerStatuses"] = sorted((c.status() for c in run.containers), key=lambda s: s["name"])
    if "qosClass" in old:
        status["qosClass"] = old["qosClass"]
    return status
