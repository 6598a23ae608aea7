"""Who each actor of the cluster is: the audit actor, field manager, user agent and user of the real component.

The audit log's ``actor`` is the component's own name (``kubelet``, ``default-scheduler``, the controller
names kube-controller-manager gives its clients); ``field_manager`` is what the real component's writes
record in ``managedFields`` — the product of its user agent, as the API server derives it (apiserver
``pkg/endpoints/handlers/rest.go``, ``prefixFromUserAgent``). ``user_agent`` and ``username`` are what a
real audit log shows for the component (kube-controller-manager builds one client per controller with the
controller's name appended to its user agent and, with ``--use-service-account-credentials``, the
controller's service account; cmd/kube-controller-manager ``app/controllermanager.go``, client-go
``rest.AddUserAgent``; the kubelet authenticates as ``system:node:<node>``; the scheduler as
``system:kube-scheduler`` with ``/scheduler`` appended to its user agent). The public audit samples under
shared/audit-samples show these shapes (``kube-scheduler/v1.25.8 ... kubernetes/df8a1b9/scheduler``,
``kube-controller-manager/v1.17.3 ... /tokens-controller``, ``kubelet/v1.32.0 ...``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

VERSION = "v1.32.0"
PLATFORM = "linux/amd64"
GIT_COMMIT = "fakekube"


def user_agent(product: str, suffix: str = "") -> str:
    """client-go's default user agent (``rest.DefaultKubernetesUserAgent``) plus an optional ``/suffix``."""
    agent = f"{product}/{VERSION} ({PLATFORM}) kubernetes/{GIT_COMMIT}"
    return f"{agent}/{suffix}" if suffix else agent


@dataclass(frozen=True, slots=True)
class Identity:
    actor: str  # the audit log's actor
    field_manager: str
    user_agent: str
    username: str
    groups: tuple[str, ...] = ("system:authenticated",)


def controller(name: str) -> Identity:
    """A kube-controller-manager controller running with its own service account credentials."""
    return Identity(name, "kube-controller-manager", user_agent("kube-controller-manager", name),
                    f"system:serviceaccount:kube-system:{name}",
                    ("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"))


def kubelet(node: str) -> Identity:
    return Identity("kubelet", "kubelet", user_agent("kubelet"), f"system:node:{node}",
                    ("system:nodes", "system:authenticated"))


SCHEDULER = Identity("default-scheduler", "kube-scheduler", user_agent("kube-scheduler", "scheduler"),
                     "system:kube-scheduler")
BOOTSTRAP = Identity("kube-apiserver", "kube-apiserver", user_agent("kube-apiserver"), "system:apiserver",
                     ("system:masters",))

# kube-controller-manager's client names (the service accounts of pkg/controller/...'s controllers).
DEPLOYMENT = controller("deployment-controller")
REPLICASET = controller("replicaset-controller")
STATEFULSET = controller("statefulset-controller")
DAEMONSET = controller("daemon-set-controller")
JOB = controller("job-controller")
CRONJOB = controller("cronjob-controller")
ENDPOINTSLICE = controller("endpointslice-controller")
ENDPOINTS = controller("endpoint-controller")
ROOT_CA = controller("root-ca-cert-publisher")
DISRUPTION = controller("disruption-controller")
TTL_AFTER_FINISHED = controller("ttl-after-finished-controller")
# It applies with a field manager of its own (``ApplyOptions{FieldManager: "clusterrole-aggregation-controller"}``).
CLUSTERROLE_AGGREGATION = replace(controller("clusterrole-aggregation-controller"),
                                  field_manager="clusterrole-aggregation-controller")

ALL: dict[str, Identity] = {i.actor: i for i in (
    SCHEDULER, BOOTSTRAP, DEPLOYMENT, REPLICASET, STATEFULSET, DAEMONSET, JOB, CRONJOB, ENDPOINTSLICE, ENDPOINTS,
    ROOT_CA, DISRUPTION, TTL_AFTER_FINISHED, CLUSTERROLE_AGGREGATION,
)}
