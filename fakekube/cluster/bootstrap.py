"""The objects every cluster has before anyone applies anything.

- ``default/kubernetes``: the Service (ClusterIP ``10.96.0.1``, port 443 → 6443), its Endpoints and its
  EndpointSlice, written by kube-apiserver's own reconcilers (kubernetes ``pkg/controlplane/controller/
  kubernetesservice``, ``pkg/controlplane/reconcilers``);
- the priority classes ``system-cluster-critical`` and ``system-node-critical`` (``pkg/apis/scheduling``
  ``SystemPriorityClasses``, created by the apiserver's ``scheduling/bootstrap-system-priority-classes``
  post-start hook);
- kube-system's DNS as kubeadm installs it: the ``coredns`` ServiceAccount, ConfigMap and Deployment (two
  replicas, so a cluster with the controllers on has running kube-system pods) and the ``kube-dns`` Service
  (ClusterIP ``10.96.0.10``), from kubeadm ``cmd/kubeadm/app/phases/addons/dns/manifests.go``.

- with kubelets, metrics-server as its ``manifests/base`` install it: the APIService ``v1beta1.metrics.k8s.io``
  (so the front serves metrics.k8s.io from the usage model: fakekube.pods.usage, fakekube.server.metrics), the
  ``system:aggregated-metrics-reader`` ClusterRole and, with the Deployment controllers, its ServiceAccount,
  Service and one-replica Deployment in kube-system;
- the RBAC bootstrap policy (``fakekube.cluster.rbac``: cluster-admin, admin, edit, view, the ``system:*``
  roles and bindings, kube-system's and kube-public's roles).

Each object is created only if absent, by ``kube-apiserver`` (or ``kubeadm`` for the add-on), so re-running
the bootstrap, or a store that already has them, changes nothing.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.pods.usage import metrics_apiservice

from .identity import BOOTSTRAP
from .rbac import bootstrap_rbac

Obj = dict[str, Any]
KUBERNETES_SERVICE_IP = "10.96.0.1"
DNS_SERVICE_IP = "10.96.0.10"
APISERVER_ADDRESS = "172.18.0.1"
APISERVER_PORT = 6443
COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.11.3"


def kubernetes_service() -> list[tuple[str, Obj]]:
    labels = {"component": "apiserver", "provider": "kubernetes"}
    return [
        ("services", {"metadata": {"name": "kubernetes", "namespace": "default", "labels": labels},
                      "spec": {"type": "ClusterIP", "clusterIP": KUBERNETES_SERVICE_IP,
                               "clusterIPs": [KUBERNETES_SERVICE_IP], "sessionAffinity": "None",
                               "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                               "internalTrafficPolicy": "Cluster",
                               "ports": [{"name": "https", "port": 443, "protocol": "TCP",
                                          "targetPort": APISERVER_PORT}]}}),
        ("endpoints", {"metadata": {"name": "kubernetes", "namespace": "default",
                                    "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
                       "subsets": [{"addresses": [{"ip": APISERVER_ADDRESS}],
                                    "ports": [{"name": "https", "port": APISERVER_PORT, "protocol": "TCP"}]}]}),
        ("endpointslices.discovery.k8s.io", {
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "kubernetes", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": "kubernetes"}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [APISERVER_ADDRESS], "conditions": {"ready": True}}],
            "ports": [{"name": "https", "port": APISERVER_PORT, "protocol": "TCP"}]}),
    ]


def priority_classes() -> list[tuple[str, Obj]]:
    def pc(name: str, value: int, description: str) -> tuple[str, Obj]:
        return ("priorityclasses.scheduling.k8s.io", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "globalDefault": False, "description": description,
            "preemptionPolicy": "PreemptLowerPriority"})

    return [
        pc("system-cluster-critical", 2000000000,
           "Used for system critical pods that must run in the cluster, but can be moved to another node if "
           "necessary."),
        pc("system-node-critical", 2000001000,
           "Used for system critical pods that must not be moved from their current node."),
    ]


def coredns() -> list[tuple[str, Obj]]:
    labels = {"k8s-app": "kube-dns"}
    corefile = (".:53 {\n    errors\n    health {\n       lameduck 5s\n    }\n    ready\n"
                "    kubernetes cluster.local in-addr.arpa ip6.arpa {\n       pods insecure\n"
                "       fallthrough in-addr.arpa ip6.arpa\n       ttl 30\n    }\n"
                "    prometheus :9153\n    forward . /etc/resolv.conf {\n       max_concurrent 1000\n    }\n"
                "    cache 30\n    loop\n    reload\n    loadbalance\n}\n")
    container = {
        "name": "coredns", "image": COREDNS_IMAGE, "imagePullPolicy": "IfNotPresent",
        "args": ["-conf", "/etc/coredns/Corefile"],
        "resources": {"limits": {"memory": "170Mi"}, "requests": {"cpu": "100m", "memory": "70Mi"}},
        "ports": [{"containerPort": 53, "name": "dns", "protocol": "UDP"},
                  {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
                  {"containerPort": 9153, "name": "metrics", "protocol": "TCP"}],
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8181, "scheme": "HTTP"}},
        "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": True}],
    }
    return [
        ("serviceaccounts", {"metadata": {"name": "coredns", "namespace": "kube-system"}}),
        ("configmaps", {"metadata": {"name": "coredns", "namespace": "kube-system"}, "data": {"Corefile": corefile}}),
        ("services", {"metadata": {"name": "kube-dns", "namespace": "kube-system",
                                   "labels": {**labels, "kubernetes.io/cluster-service": "true",
                                              "kubernetes.io/name": "CoreDNS"},
                                   "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}},
                      "spec": {"type": "ClusterIP", "clusterIP": DNS_SERVICE_IP, "clusterIPs": [DNS_SERVICE_IP],
                               "selector": labels, "sessionAffinity": "None", "ipFamilies": ["IPv4"],
                               "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster",
                               "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                                         {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                                         {"name": "metrics", "port": 9153, "protocol": "TCP",
                                          "targetPort": 9153}]}}),
        ("deployments.apps", {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "coredns", "namespace": "kube-system", "labels": labels},
            "spec": {
                "replicas": 2, "selector": {"matchLabels": labels},
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "25%"}},
                "template": {"metadata": {"labels": labels}, "spec": {
                    "priorityClassName": "system-cluster-critical", "serviceAccountName": "coredns",
                    "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                                    {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
                    "nodeSelector": {"kubernetes.io/os": "linux"}, "dnsPolicy": "Default",
                    "containers": [container],
                    "volumes": [{"name": "config-volume", "configMap": {
                        "name": "coredns", "items": [{"key": "Corefile", "path": "Corefile"}]}}],
                }},
            },
        }),
    ]


METRICS_SERVER_IMAGE = "registry.k8s.io/metrics-server/metrics-server:v0.8.0"


def metrics_server(workload: bool) -> list[tuple[str, Obj]]:
    """metrics-server as its manifests install it (kubernetes-sigs/metrics-server ``manifests/base``): the
    APIService, the ClusterRole that lets view/edit/admin read metrics, and (``workload``: when Deployments run)
    its ServiceAccount, Service and Deployment — a pod like any other; the metrics themselves come from the usage
    model (fakekube.pods.usage)."""
    labels = {"k8s-app": "metrics-server"}
    objects: list[tuple[str, Obj]] = [
        ("apiservices", metrics_apiservice()),
        ("clusterroles", {"metadata": {"name": "system:aggregated-metrics-reader", "labels": {
            **labels, **{f"rbac.authorization.k8s.io/aggregate-to-{r}": "true" for r in ("view", "edit", "admin")}}},
            "rules": [{"apiGroups": ["metrics.k8s.io"], "resources": ["pods", "nodes"],
                       "verbs": ["get", "list", "watch"]}]}),
    ]
    if not workload:
        return objects
    container = {
        "name": "metrics-server", "image": METRICS_SERVER_IMAGE, "imagePullPolicy": "IfNotPresent",
        "args": ["--cert-dir=/tmp", "--secure-port=10250",
                 "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
                 "--kubelet-use-node-status-port", "--metric-resolution=15s"],
        "resources": {"requests": {"cpu": "100m", "memory": "200Mi"}},
        "ports": [{"name": "https", "containerPort": 10250, "protocol": "TCP"}],
        "volumeMounts": [{"name": "tmp-dir", "mountPath": "/tmp"}],
    }
    return objects + [
        ("serviceaccounts", {"metadata": {"name": "metrics-server", "namespace": "kube-system", "labels": labels}}),
        ("services", {"metadata": {"name": "metrics-server", "namespace": "kube-system", "labels": labels},
                      "spec": {"selector": labels, "ports": [{"name": "https", "port": 443, "protocol": "TCP",
                                                               "targetPort": "https", "appProtocol": "https"}]}}),
        ("deployments.apps", {
            "metadata": {"name": "metrics-server", "namespace": "kube-system", "labels": labels},
            "spec": {"selector": {"matchLabels": labels}, "strategy": {"rollingUpdate": {"maxUnavailable": 0}},
                     "template": {"metadata": {"labels": labels}, "spec": {
                         "serviceAccountName": "metrics-server", "priorityClassName": "system-cluster-critical",
                         "volumes": [{"name": "tmp-dir", "emptyDir": {}}], "containers": [container],
                         "nodeSelector": {"kubernetes.io/os": "linux"}}}}}),
    ]


def bootstrap(store: Any, *, ca_pem: str | None = None, dns: bool = True, rbac: bool = True,
              metrics: bool = False) -> list[Obj]:
    """Create the bootstrap objects that are missing; returns those created."""
    del ca_pem  # the root CA ConfigMaps are the root-ca-cert-publisher's
    created = bootstrap_rbac(store, actor=BOOTSTRAP.actor) if rbac else []
    plan = [*kubernetes_service(), *priority_classes()]
    if dns:
        plan += [(resource, obj) for resource, obj in coredns()]
    if metrics:
        plan += metrics_server(workload=dns)
    for resource, obj in plan:
        actor = "kubeadm" if obj["metadata"].get("namespace") == "kube-system" else BOOTSTRAP.actor
        try:
            rt = store.resolve(resource)
        except errors.NotFound:
            continue  # a kind this store does not serve
        # A Service whose clusterIP is taken is a 422 before it is a 409 (the allocator runs before the store
        # looks for the name); kubeadm tolerates both (cmd/kubeadm/app/phases/addons/dns/dns.go).
        tolerated = (errors.AlreadyExists, errors.Invalid) if rt.plural == "services" else (errors.AlreadyExists,)
        with contextlib.suppress(*tolerated):
            created.append(store.create(rt, obj, obj["metadata"].get("namespace"), actor=actor,
                                        field_manager=actor))
    return created
