"""Fake nodes: what a kubelet registers (Node, its status, its Lease in kube-node-lease).

Shapes follow kubelet ``pkg/kubelet/kubelet_node_status.go`` (``initialNode``: the well-known labels, the
``volumes.kubernetes.io/controller-managed-attach-detach`` and ``node.alpha.kubernetes.io/ttl`` annotations),
``pkg/kubelet/nodestatus/setters.go`` (capacity and allocatable, addresses, node info, daemon endpoints, the
MemoryPressure / DiskPressure / PIDPressure / Ready conditions with their reasons and messages) and
``pkg/kubelet/nodelease`` / component-helpers ``apimachinery/lease`` (a Lease named after the node, holder the
node, 40 s duration, owned by the Node, renewed every quarter of its duration).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .identity import VERSION

Obj = dict[str, Any]
LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40


@dataclass(frozen=True)
class NodeConfig:
    """One fake node: name, capacity, labels and taints; ``index`` picks its pod CIDR and address."""

    name: str
    index: int = 0
    cpu: str = "8"
    memory: str = "32Gi"
    pods: int = 110
    ephemeral_storage: str = "100Gi"
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Obj, ...] = ()

    @property
    def pod_cidr(self) -> str:
        return f"10.244.{self.index}.0/24"

    @property
    def internal_ip(self) -> str:
        return f"172.18.0.{self.index + 2}"

    def pod_ip(self, n: int) -> str:
        """The ``n``-th address the node's IPAM hands out (host-local style: .2 upward, .1 is the gateway)."""
        return f"10.244.{self.index}.{2 + (n % 253)}"


def default_nodes(count: int) -> list[NodeConfig]:
    """``count`` nodes named like a kind cluster's workers: ``node-1`` … ``node-N``."""
    return [NodeConfig(f"node-{i + 1}", index=i) for i in range(count)]


def node_object(node: NodeConfig) -> Obj:
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": node.name,
        "kubernetes.io/os": "linux",
        **node.labels,
    }
    spec: Obj = {"podCIDR": node.pod_cidr, "podCIDRs": [node.pod_cidr], "providerID": f"fakekube://{node.name}"}
    if node.taints:
        spec["taints"] = [dict(t) for t in node.taints]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node.name, "labels": labels,
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": spec,
    }


def _resources(node: NodeConfig) -> Obj:
    return {"cpu": node.cpu, "ephemeral-storage": node.ephemeral_storage, "hugepages-1Gi": "0",
            "hugepages-2Mi": "0", "memory": node.memory, "pods": str(node.pods)}


def node_status(node: NodeConfig, now: str, ready_since: str) -> Obj:
    def cond(kind: str, status: str, reason: str, message: str, since: str) -> Obj:
        return {"type": kind, "status": status, "lastHeartbeatTime": now, "lastTransitionTime": since,
                "reason": reason, "message": message}

    system_uuid = str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{node.name}.fakekube"))
    return {
        "capacity": _resources(node),
        "allocatable": _resources(node),
        "conditions": [
            cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available",
                 ready_since),
            cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", ready_since),
            cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available",
                 ready_since),
            cond("Ready", "True", "KubeletReady", "kubelet is posting ready status", ready_since),
        ],
        "addresses": [{"type": "InternalIP", "address": node.internal_ip}, {"type": "Hostname", "address": node.name}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "architecture": "amd64", "bootID": system_uuid, "containerRuntimeVersion": "containerd://1.7.24",
            "kernelVersion": "6.1.0-fakekube", "kubeProxyVersion": VERSION, "kubeletVersion": VERSION,
            "machineID": system_uuid.replace("-", ""), "operatingSystem": "linux",
            "osImage": "fakekube (a simulated node)", "systemUUID": system_uuid,
        },
    }


def micro_time(moment: datetime) -> str:
    """metav1.MicroTime's JSON form (RFC 3339 with microseconds, UTC)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def lease_object(node: NodeConfig, node_uid: str, renew: str) -> Obj:
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": node.name, "namespace": LEASE_NAMESPACE,
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node.name, "uid": node_uid}]},
        "spec": {"holderIdentity": node.name, "leaseDurationSeconds": LEASE_DURATION_SECONDS, "renewTime": renew},
    }
