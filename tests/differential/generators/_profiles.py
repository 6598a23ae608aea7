"""What the corpus needs to know about each kind beyond discovery: a minimal object, names that are unique
per case, a change to its spec and to its status that the real server accepts, and whether the server
changes it on its own after a create (then the case waits for that before reading).

The minimal objects are ``_objects.json`` (frozen from tests/builtin_objects.py); the tables here were
checked against the real server (v1.37.2) one by one.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from _kinds import Kind, key, object_kinds

HERE = Path(__file__).resolve().parent
Json = dict[str, Any]

# A merge patch that changes the kind's spec (or its top-level data) and that validation lets through; the
# kinds left out have nothing mutable outside metadata (their spec is immutable or they have none).
SPEC_CHANGES: dict[tuple[str, str], Json] = {
    ("", "ConfigMap"): {"data": {"k": "v2"}},
    ("", "Endpoints"): {"subsets": [{"addresses": [{"ip": "10.0.0.6"}], "ports": [{"port": 80}]}]},
    ("", "Event"): {"message": "changed"},
    ("", "LimitRange"): {"spec": {"limits": [{"type": "Container", "default": {"cpu": "250m"}}]}},
    ("", "Node"): {"spec": {"unschedulable": True}},
    ("", "PersistentVolume"): {"spec": {"capacity": {"storage": "2Gi"}}},
    ("", "Pod"): {"spec": {"activeDeadlineSeconds": 300}},
    ("", "PodTemplate"): {"template": {"metadata": {"labels": {"app": "demo", "v": "2"}}}},
    ("", "ReplicationController"): {"spec": {"replicas": 2}},
    ("", "ResourceQuota"): {"spec": {"hard": {"pods": "20"}}},
    ("", "Secret"): {"data": {"k": "djI="}},
    ("", "ServiceAccount"): {"automountServiceAccountToken": False},
    ("", "Service"): {"spec": {"ports": [{"port": 81, "protocol": "TCP"}]}},
    ("apiregistration.k8s.io", "APIService"): {"spec": {"versionPriority": 20}},
    ("apps", "DaemonSet"): {"spec": {"minReadySeconds": 5}},
    ("apps", "Deployment"): {"spec": {"replicas": 2}},
    ("apps", "ReplicaSet"): {"spec": {"replicas": 2}},
    ("apps", "StatefulSet"): {"spec": {"replicas": 2}},
    ("autoscaling", "HorizontalPodAutoscaler"): {"spec": {"maxReplicas": 4}},
    ("batch", "CronJob"): {"spec": {"schedule": "*/10 * * * *"}},
    ("batch", "Job"): {"spec": {"parallelism": 2}},
    ("coordination.k8s.io", "Lease"): {"spec": {"holderIdentity": "other"}},
    ("discovery.k8s.io", "EndpointSlice"): {"endpoints": [{"addresses": ["10.0.0.6"]}]},
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): {"spec": {"matchingPrecedence": 5001}},
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): {
        "spec": {"limited": {"nominalConcurrencyShares": 6}}},
    ("networking.k8s.io", "Ingress"): {"spec": {"defaultBackend": {"service": {"name": "other",
                                                                               "port": {"number": 80}}}}},
    ("networking.k8s.io", "NetworkPolicy"): {"spec": {"policyTypes": ["Ingress", "Egress"]}},
    ("policy", "PodDisruptionBudget"): {"spec": {"minAvailable": 2}},
    ("rbac.authorization.k8s.io", "ClusterRole"): {"rules": [{"apiGroups": [""], "resources": ["pods"],
                                                              "verbs": ["get"]}]},
    ("rbac.authorization.k8s.io", "Role"): {"rules": [{"apiGroups": [""], "resources": ["pods"],
                                                       "verbs": ["get"]}]},
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): {
        "subjects": [{"kind": "ServiceAccount", "name": "other", "namespace": "default"}]},
    ("rbac.authorization.k8s.io", "RoleBinding"): {
        "subjects": [{"kind": "ServiceAccount", "name": "other", "namespace": "default"}]},
    ("resource.k8s.io", "DeviceClass"): {"spec": {"selectors": [{"cel": {"expression": "false"}}]}},
    ("resource.k8s.io", "DeviceTaintRule"): {"spec": {"taint": {"key": "example.com/broken",
                                                                "effect": "NoExecute"}}},
    ("resource.k8s.io", "ResourceSlice"): {"spec": {"pool": {"name": "node-1", "generation": 2,
                                                             "resourceSliceCount": 1}}},
    ("scheduling.k8s.io", "PriorityClass"): {"description": "changed"},
    ("storage.k8s.io", "CSIStorageCapacity"): {"capacity": "1Gi"},
    ("storage.k8s.io", "StorageClass"): {"allowVolumeExpansion": True},
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): {"spec": {"failurePolicy": "Ignore"}},
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): {"spec": {"failurePolicy": "Ignore"}},
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): {
        "spec": {"validationActions": ["Warn"]}},
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): {"spec": {"policyName": "other"}},
    # Not a change of names: the naming controller would rewrite status.acceptedNames on its own schedule.
    ("apiextensions.k8s.io", "CustomResourceDefinition"): {"spec": {"versions": [{
        "name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "description": "changed", "x-kubernetes-preserve-unknown-fields": True}}}]}},
    ("diff.example.com", "Widget"): {"spec": {"replicas": 2}},
    ("diff.example.com", "Gizmo"): {"spec": {"color": "red"}},
}

_CONDITION = {"type": "Demo", "status": "True", "reason": "Demo", "message": "demo",
              "lastTransitionTime": "2026-01-01T00:00:00Z"}
# A merge patch of the status subresource that the kind's status validation accepts.
STATUS_CHANGES: dict[tuple[str, str], Json] = {
    ("", "Namespace"): {"status": {"conditions": [{"type": "Demo", "status": "True"}]}},
    ("", "Node"): {"status": {"capacity": {"cpu": "4"}}},
    ("", "PersistentVolumeClaim"): {"status": {"phase": "Bound"}},
    ("", "PersistentVolume"): {"status": {"phase": "Available"}},
    ("", "Pod"): {"status": {"message": "demo"}},
    ("", "ReplicationController"): {"status": {"replicas": 1}},
    ("", "ResourceQuota"): {"status": {"hard": {"pods": "10"}, "used": {"pods": "0"}}},
    ("", "Service"): {"status": {"conditions": [_CONDITION]}},
    ("apiregistration.k8s.io", "APIService"): {"status": {"conditions": [
        {"type": "Demo", "status": "True", "reason": "Demo", "message": "demo"}]}},
    ("apps", "DaemonSet"): {"status": {"observedGeneration": 1}},
    ("apps", "Deployment"): {"status": {"observedGeneration": 1}},
    ("apps", "ReplicaSet"): {"status": {"observedGeneration": 1}},
    ("apps", "StatefulSet"): {"status": {"observedGeneration": 1}},
    ("autoscaling", "HorizontalPodAutoscaler"): {"status": {"currentReplicas": 1, "desiredReplicas": 1}},
    ("batch", "CronJob"): {"status": {"lastScheduleTime": "2026-01-01T00:00:00Z"}},
    ("batch", "Job"): {"status": {"ready": 0}},
    ("certificates.k8s.io", "CertificateSigningRequest"): {"status": {"conditions": [
        {"type": "Demo", "status": "True", "reason": "Demo", "message": "demo"}]}},
    ("certificates.k8s.io", "PodCertificateRequest"): {"status": {"conditions": [
        {**_CONDITION, "type": "Failed"}]}},
    ("networking.k8s.io", "Ingress"): {"status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.7"}]}}},
    ("networking.k8s.io", "ServiceCIDR"): {"status": {"conditions": [_CONDITION]}},
    ("policy", "PodDisruptionBudget"): {"status": {"observedGeneration": 1, "disruptionsAllowed": 0,
                                                   "currentHealthy": 0, "desiredHealthy": 1,
                                                   "expectedPods": 0}},
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): {"status": {"conditions": [
        {"type": "Demo", "status": "True", "reason": "Demo", "message": "demo"}]}},
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): {"status": {"conditions": [
        {"type": "Demo", "status": "True", "reason": "Demo", "message": "demo"}]}},
    ("apiextensions.k8s.io", "CustomResourceDefinition"): {"status": {"conditions": [
        {"type": "Demo", "status": "True", "reason": "Demo", "message": "demo"}]}},
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): {"status": {"observedGeneration": 1}},
    ("resource.k8s.io", "DeviceTaintRule"): {"status": {"conditions": [_CONDITION]}},
    ("resource.k8s.io", "ResourceClaim"): {"status": {"devices": []}},
    ("storage.k8s.io", "VolumeAttachment"): {"status": {"attached": True}},
    ("storage.k8s.io", "CSINode"): {"status": {}},
    ("storagemigration.k8s.io", "StorageVersionMigration"): {"status": {"conditions": [_CONDITION]}},
    ("diff.example.com", "Widget"): {"status": {"replicas": 1}},
    ("diff.example.com", "Gizmo"): {"status": {"replicas": 1}},
}

# Kinds the real server changes by itself right after a create (an in-apiserver controller writes their
# status): a case waits for that condition before it reads or writes them, so what it sees is not a race.
SETTLE: dict[tuple[str, str], str] = {
    ("apiextensions.k8s.io", "CustomResourceDefinition"): "Established",  # establishing controller
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): "Dangling",  # APF config controller (no such level)
}

# The kind-specific field selectors the real server supports (the field label conversion functions of
# pkg/apis/{core,batch,certificates,events,resource}/v1/conversion.go in kubernetes v1.37.2, and a CRD's
# selectableFields), each with the value the corpus's minimal object has, so the selection finds it.
SELECTABLE: dict[tuple[str, str], dict[str, str]] = {
    ("", "Pod"): {"spec.nodeName": "", "spec.restartPolicy": "Always", "spec.schedulerName": "default-scheduler",
                  "spec.serviceAccountName": "default", "spec.hostNetwork": "false", "status.phase": "Pending",
                  "status.podIP": "", "status.podIPs": "", "status.nominatedNodeName": "", "spec.host": ""},
    ("", "Node"): {"spec.unschedulable": "false"},
    ("", "ReplicationController"): {"status.replicas": "0"},
    ("", "Event"): {"involvedObject.kind": "Pod", "involvedObject.namespace": "{ns}", "involvedObject.name": "p",
                    "involvedObject.uid": "", "involvedObject.apiVersion": "v1",
                    "involvedObject.resourceVersion": "", "involvedObject.fieldPath": "", "reason": "Started",
                    "reportingComponent": "", "source": "kubelet", "type": "Normal"},
    ("events.k8s.io", "Event"): {"regarding.kind": "Pod", "regarding.namespace": "default", "regarding.name": "p",
                                 "regarding.uid": "", "regarding.apiVersion": "", "regarding.resourceVersion": "",
                                 "regarding.fieldPath": "", "reason": "Started", "reportingController": "demo",
                                 "type": "Normal"},
    ("", "Namespace"): {"status.phase": "Active"},
    ("", "Secret"): {"type": "Opaque"},
    ("", "Service"): {"spec.clusterIP": "None", "spec.type": "ClusterIP"},
    ("batch", "Job"): {"status.successful": "0"},
    ("certificates.k8s.io", "CertificateSigningRequest"): {"spec.signerName": "example.com/demo"},
    ("certificates.k8s.io", "ClusterTrustBundle"): {"spec.signerName": ""},
    ("certificates.k8s.io", "PodCertificateRequest"): {"spec.signerName": "example.com/demo", "spec.podName": "p",
                                                       "spec.nodeName": "node-1"},
    ("resource.k8s.io", "ResourceSlice"): {"spec.nodeName": "node-1", "spec.driver": "demo.example.com",
                                           "spec.pool.name": "node-1"},
    ("diff.example.com", "Widget"): {"spec.color": "blue"},
    ("diff.example.com", "Gizmo"): {"spec.color": "blue"},
}

# The kinds the extra variants of a family run on (every variant on every kind would make the corpus slow to
# record for little more coverage): the representative set, plus a cluster-scoped built-in.
REPRESENTATIVE = {("", "ConfigMap"), ("", "Pod"), ("apps", "Deployment"), ("", "Service"),
                  ("diff.example.com", "Widget"), ("diff.example.com", "Gizmo"),
                  ("rbac.authorization.k8s.io", "ClusterRole")}

# Kinds whose deletion a controller finishes later: the namespace controller, the CRD finalizer, and the
# garbage collector for the kinds whose default propagation is Orphan (core/v1 ReplicationController and
# batch/v1 Job get the orphan finalizer). A read after their DELETE waits for the 404 instead of racing it.
FINISHED_LATER = {("", "Namespace"), ("apiextensions.k8s.io", "CustomResourceDefinition"),
                  ("", "ReplicationController"), ("batch", "Job")}

# Kinds not read after their DELETE: a namespace's deletion can take a minute on a busy server (the namespace
# controller backs off when discovery of some group fails, as it does while other cases' CRDs come and go),
# and until then what a GET sees changes as the controller goes. The DELETE's own answer is compared.
NOT_READ_AFTER_DELETE = {("", "Namespace")}

# Kinds whose status an in-apiserver controller owns (the APIService availability controller, the APF
# configuration controller, the CRD establishing and naming controllers): a client's write to their status
# is answered and then rewritten on the controller's schedule, so status writes are not compared for them.
CONTROLLER_OWNED_STATUS = {("apiregistration.k8s.io", "APIService"), ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
                           ("apiextensions.k8s.io", "CustomResourceDefinition")}

# Kinds whose name must have a form generateName cannot give (<version>.<group>, <plural>.<group>, an IP
# address): the server refuses a generated name with the random name in its message, which no recording can
# reproduce.
NO_GENERATED_NAMES = {("apiregistration.k8s.io", "APIService"), ("apiextensions.k8s.io", "CustomResourceDefinition"),
                      ("networking.k8s.io", "IPAddress")}

# The custom resources of the corpus: two CRDs made in each case's setup (a CRD is cluster-scoped, so each
# case has its own group, {ns}.example.com, and the runner deletes it afterwards).
CR_GROUP = "diff.example.com"  # the table key of the CR kinds; their real group is "{ns}.example.com"
_CR_SCHEMA = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
        "replicas": {"type": "integer", "minimum": 0},
        "color": {"type": "string"},
        "size": {"type": "string"},
    }},
    "status": {"type": "object", "properties": {
        "replicas": {"type": "integer"},
        "selector": {"type": "string"},
        "conditions": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    }},
}}


def crd_body(plural: str, kind: str, scope: str, *, scale: bool) -> Json:
    subresources: Json = {"status": {}}
    if scale:
        subresources["scale"] = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                                 "labelSelectorPath": ".status.selector"}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{{ns}}.example.com"},
            "spec": {"group": "{ns}.example.com", "scope": scope,
                     "names": {"plural": plural, "singular": plural[:-1], "kind": kind, "listKind": f"{kind}List"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": _CR_SCHEMA}, "subresources": subresources,
                                   "selectableFields": [{"jsonPath": ".spec.color"}]}]}}


def crd_setup(crd: Json) -> list[Json]:
    """Create a CRD and wait until its kind is served: Established, and then its storage ready (a read of a
    kind established a moment ago can be answered 429 "storage is (re)initializing")."""
    name = crd["metadata"]["name"]
    group, version = crd["spec"]["group"], crd["spec"]["versions"][0]["name"]
    return [{"method": "POST", "path": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "body": crd},
            {"method": "GET", "path": f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}",
             "wait": {"until": 200, "condition": "Established", "timeout": 30}},
            {"method": "GET", "path": f"/apis/{group}/{version}/{crd['spec']['names']['plural']}",
             "wait": {"until": 200, "timeout": 30}}]


_ALL = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
CR_KINDS = (
    Kind("{ns}.example.com", "v1", "Widget", "widgets", "widget", True, _ALL,
         {"status": ("get", "patch", "update"), "scale": ("get", "patch", "update")}),
    Kind("{ns}.example.com", "v1", "Gizmo", "gizmos", "gizmo", False, _ALL, {"status": ("get", "patch", "update")}),
)


@dataclass(frozen=True)
class Profile:
    kind: Kind
    key: str  # the kind's part of case names
    table_key: tuple[str, str]
    base: Json = field(repr=False)
    setup: tuple[Json, ...] = ()
    custom: bool = False  # a custom resource: no strategic merge patch, no protobuf

    @property
    def spec_change(self) -> Json | None:
        return copy.deepcopy(SPEC_CHANGES.get(self.table_key))

    @property
    def status_change(self) -> Json | None:
        """A status write to compare (None where the kind has no status or a controller owns it)."""
        if not self.kind.has("status") or self.table_key in CONTROLLER_OWNED_STATUS:
            return None
        return copy.deepcopy(STATUS_CHANGES.get(self.table_key))

    @property
    def generate_name_prefix(self) -> str | None:
        """A generateName for the kind: a cluster-scoped kind's does not carry {ns} (the generated name
        would be masked after the namespace is, and then not at all), its random suffix keeps it unique."""
        if self.table_key in NO_GENERATED_NAMES:
            return None
        return "demo-" if self.kind.namespaced else "gen-"

    @property
    def selectable(self) -> dict[str, str]:
        return dict(SELECTABLE.get(self.table_key, {}))

    @property
    def deletion_finishes_later(self) -> bool:
        return self.table_key in FINISHED_LATER

    @property
    def read_after_delete(self) -> bool:
        return self.table_key not in NOT_READ_AFTER_DELETE

    @property
    def representative(self) -> bool:
        return self.table_key in REPRESENTATIVE

    @property
    def settle(self) -> str | None:
        return SETTLE.get(self.table_key)

    def name(self, index: int = 0) -> str:
        """The index-th object name of a case: unique across cases for cluster-scoped kinds."""
        group, kind = self.table_key
        suffix = f"-{index}" if index else ""
        if kind == "APIService":
            return f"v1.{{ns}}{suffix}.example.com"  # <version>.<group>
        if kind == "CustomResourceDefinition":
            return f"gadgets{index or ''}.{{ns}}.example.com"  # <plural>.<group>
        if kind == "IPAddress":
            return f"@address{index}@"  # the address itself, filled in per case (see resolve_addresses)
        if self.kind.namespaced:
            return f"demo{suffix}"
        return f"{{ns}}-{self.kind.singular[:12]}{suffix}"

    def body(self, name: str, labels: dict[str, str] | None = None) -> Json:
        """The minimal object named ``name`` (fields that must agree with the name follow it)."""
        obj = copy.deepcopy(self.base)
        obj["metadata"] = {"name": name}
        if labels:
            obj["metadata"]["labels"] = dict(labels)
        group, kind = self.table_key
        if kind == "APIService":
            obj["spec"]["group"] = name.split(".", 1)[1]
        elif kind == "CustomResourceDefinition":
            plural, obj["spec"]["group"] = name.split(".", 1)
            number = plural[len("gadgets"):]
            obj["spec"]["names"] = {"plural": plural, "singular": f"gadget{number}", "kind": f"Gadget{number}"}
        return obj

    def changed(self, obj: Json, change: Json | None) -> Json:
        return merge(obj, change) if change else obj


_ADDRESS = re.compile(r"@address(\d+)@")


def resolve_addresses(case: str, value: Any) -> Any:
    """IPAddress objects are cluster-scoped and named by their address, so each case needs addresses of its
    own: ``@addressN@`` becomes an IPv4 address of 10.0.0.0/8 drawn from the case name."""
    text = json.dumps(value)
    if "@address" not in text:
        return value

    def one(match: re.Match[str]) -> str:
        digest = hashlib.sha256(f"{case}#{match.group(1)}".encode()).digest()
        return f"10.{digest[0]}.{digest[1]}.{digest[2] % 254 + 1}"

    return json.loads(_ADDRESS.sub(one, text))


def merge(base: Any, patch: Any) -> Any:
    """A JSON merge patch (RFC 7386) applied to a copy of ``base``."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(base) if isinstance(base, dict) else {}
    for name, value in patch.items():
        if value is None:
            out.pop(name, None)
        else:
            out[name] = merge(out.get(name), value)
    return out


@cache
def _objects() -> dict[str, Json]:
    return json.loads((HERE / "_objects.json").read_text())


def _corpus_fixes(kind: Kind, obj: Json) -> Json:
    """Where the corpus's object differs from tests/builtin_objects.py, and why."""
    if (kind.group, kind.kind) == ("", "Event"):
        # A core Event's involvedObject must be in the Event's own namespace, the case's.
        obj["involvedObject"]["namespace"] = "{ns}"
    if (kind.group, kind.kind) == ("", "Pod"):
        # The ServiceAccount admission plugin fills these in on create only (and mounts a token volume); a PUT
        # of the object as the client wrote it would change them, which pod updates may not do.
        obj["spec"].update(serviceAccountName="default", automountServiceAccountToken=False)
    if (kind.group, kind.kind) == ("", "Service"):
        # Headless: a cluster IP is allocated at random by the real server, so a comparison of it would only
        # compare two random choices.
        obj["spec"]["clusterIP"] = "None"
    if (kind.group, kind.kind) == ("discovery.k8s.io", "EndpointSlice"):
        # Go writes an endpoint's conditions struct as {}; endpoints is an atomic list, so a re-apply without it
        # changes the object and moves the applier's time only when the second ticks over — on the real server
        # too (managedfieldsupdater.go): the case would depend on timing.
        for endpoint in obj["endpoints"]:
            endpoint.setdefault("conditions", {})
    if (kind.group, kind.kind) in (("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
                                   ("admissionregistration.k8s.io", "MutatingAdmissionPolicy")):
        # The same for a defaulted field in an atomic list: resourceRules' scope defaults to "*".
        for rule in obj["spec"]["matchConstraints"]["resourceRules"]:
            rule.setdefault("scope", "*")
    return obj


@cache
def profiles() -> tuple[Profile, ...]:
    """Every object kind of the release, then the two custom resource kinds."""
    found = []
    for kind in object_kinds():
        base = _corpus_fixes(kind, copy.deepcopy(_objects()[f"{kind.api_version}/{kind.plural}"]))
        found.append(Profile(kind, key(kind), (kind.group, kind.kind), base))
    for kind, scale in ((CR_KINDS[0], True), (CR_KINDS[1], False)):
        scope = "Namespaced" if kind.namespaced else "Cluster"
        setup = tuple(crd_setup(crd_body(kind.plural, kind.kind, scope, scale=scale)))
        base = {"apiVersion": kind.api_version, "kind": kind.kind, "metadata": {},
                "spec": {"replicas": 1, "color": "blue"}}
        found.append(Profile(kind, f"{kind.singular}.cr", (CR_GROUP, kind.kind), base, setup, custom=True))
    return tuple(found)


def profile(kind_name: str, group: str = "") -> Profile:
    """One profile by kind (and group), for the generators that use a representative set of kinds."""
    for found in profiles():
        if found.table_key == (group, kind_name):
            return found
    raise KeyError((group, kind_name))
