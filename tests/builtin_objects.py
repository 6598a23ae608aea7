"""Test data: a minimal valid object of every GA built-in kind of an emulated Kubernetes version.

Each object is built from its kind's OpenAPI definition — every required field, recursively, with a plain
value of its type — and then completed from ``HAND``, which holds what the schema cannot say but the real
server's validation wants (a selector that matches the template's labels, a port, a name that is an IP...).
The names are fixed per kind (``OBJECT_NAMES``) where validation constrains them.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

from fakekube.apimodel.definitions import definitions
from fakekube.apimodel.table import ApiResource, resources_in
from fakekube.apimodel.versions import kubernetes_version

_POD_SPEC = {"containers": [{"name": "app", "image": "nginx:1.27"}], "restartPolicy": "Always"}
_TEMPLATE = {"metadata": {"labels": {"app": "demo"}}, "spec": _POD_SPEC}
_JOB_TEMPLATE = {"metadata": {"labels": {"app": "demo"}},
                 "spec": {**_POD_SPEC, "restartPolicy": "Never"}}
_SELECTOR = {"matchLabels": {"app": "demo"}}
# A real self-signed Ed25519 CA certificate and a real Ed25519 PKCS#10 request (fixed key bytes, so the data
# never changes): the real server parses both (ClusterTrustBundle, CertificateSigningRequest, PodCertificateRequest).
_CERT = ('-----BEGIN CERTIFICATE-----\n'
         'MIHlMIGYoAMCAQICAQEwBQYDK2VwMBIxEDAOBgNVBAMMB2RlbW8tY2EwHhcNMjYw\n'
         'MTAxMDAwMDAwWhcNMzYwMTAxMDAwMDAwWjASMRAwDgYDVQQDDAdkZW1vLWNhMCow\n'
         'BQYDK2VwAyEAA6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbijEzARMA8G\n'
         'A1UdEwEB/wQFMAMBAf8wBQYDK2VwA0EAX2sPy1yMUSx/T1TM1e1jfrgC2sMf7QhF\n'
         'mT9IHgi6mDvUOpRRYtDSPnItDxuQj5U1bnGjxgVZRKkQkQrxPiE6BQ==\n'
         '-----END CERTIFICATE-----\n')
_CSR_PEM = ('-----BEGIN CERTIFICATE REQUEST-----\n'
            'MIGOMEICAQAwDzENMAsGA1UEAwwEZGVtbzAqMAUGAytlcAMhAAOhB7/zzhC+HXDd\n'
            'GOdLwJln5NYwm6UNXx3chmQSVTG4oAAwBQYDK2VwA0EA2l2XUclRvG0tN9g2u3hk\n'
            'I7FVj359hDXUpAwSPq2/qxVFvN3GFLUTG5xES3PQf7hg+q6gRHbJgOxCT5pa+QIv\n'
            'Cg==\n'
            '-----END CERTIFICATE REQUEST-----\n')
_CSR = base64.b64encode(_CSR_PEM.encode()).decode()
CSR_REQUEST = _CSR  # a CSR's spec.request: a real PKCS#10 request in PEM, base64-encoded
_CSR_DER = 'MIGOMEICAQAwDzENMAsGA1UEAwwEZGVtbzAqMAUGAytlcAMhAAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4oAAwBQYDK2VwA0EA2l2XUclRvG0tN9g2u3hkI7FVj359hDXUpAwSPq2/qxVFvN3GFLUTG5xES3PQf7hg+q6gRHbJgOxCT5pa+QIvCg=='  # the same request in DER, as PodCertificateRequest wants it
_RULE = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
_SUBJECTS = [{"kind": "ServiceAccount", "name": "default", "namespace": "default"}]
_WEBHOOK_CRD = {
    "group": "demo.example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
    "versions": [{"name": "v1", "served": True, "storage": True,
                  "schema": {"openAPIV3Schema": {"type": "object",
                                                 "x-kubernetes-preserve-unknown-fields": True}}}],
}

# (group, kind) → fields merged over the schema's required ones.
HAND: dict[tuple[str, str], dict[str, Any]] = {
    ("", "Endpoints"): {"subsets": [{"addresses": [{"ip": "10.0.0.5"}], "ports": [{"port": 80}]}]},
    ("", "Event"): {"involvedObject": {"kind": "Pod", "name": "p", "namespace": "default", "apiVersion": "v1"},
                    "reason": "Started", "message": "started", "type": "Normal",
                    "source": {"component": "kubelet"}},
    ("", "LimitRange"): {"spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}},
    ("", "PersistentVolume"): {"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                        "hostPath": {"path": "/data"}}},
    ("", "PersistentVolumeClaim"): {"spec": {"accessModes": ["ReadWriteOnce"],
                                             "resources": {"requests": {"storage": "1Gi"}}}},
    ("", "Pod"): {"spec": _POD_SPEC},
    ("", "PodTemplate"): {"template": _TEMPLATE},
    ("", "ReplicationController"): {"spec": {"replicas": 1, "selector": {"app": "demo"}, "template": _TEMPLATE}},
    ("", "ResourceQuota"): {"spec": {"hard": {"pods": "10"}}},
    ("", "Secret"): {"type": "Opaque", "data": {"k": base64.b64encode(b"v").decode()}},
    ("", "Service"): {"spec": {"selector": {"app": "demo"}, "ports": [{"port": 80, "protocol": "TCP"}]}},
    ("", "ConfigMap"): {"data": {"k": "v"}},
    ("apiregistration.k8s.io", "APIService"): {"spec": {"group": "demo.example.com", "version": "v1",
                                                        "groupPriorityMinimum": 1000, "versionPriority": 15}},
    ("apps", "ControllerRevision"): {"revision": 1, "data": {"spec": {}}},
    ("apps", "DaemonSet"): {"spec": {"selector": _SELECTOR, "template": _TEMPLATE}},
    ("apps", "Deployment"): {"spec": {"replicas": 1, "selector": _SELECTOR, "template": _TEMPLATE}},
    ("apps", "ReplicaSet"): {"spec": {"replicas": 1, "selector": _SELECTOR, "template": _TEMPLATE}},
    ("apps", "StatefulSet"): {"spec": {"replicas": 1, "serviceName": "demo", "selector": _SELECTOR,
                                       "template": _TEMPLATE}},
    ("autoscaling", "HorizontalPodAutoscaler"): {"spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "demo"},
        "minReplicas": 1, "maxReplicas": 3}},
    ("batch", "CronJob"): {"spec": {"schedule": "*/5 * * * *",
                                    "jobTemplate": {"spec": {"template": _JOB_TEMPLATE}}}},
    ("batch", "Job"): {"spec": {"template": _JOB_TEMPLATE}},
    ("certificates.k8s.io", "CertificateSigningRequest"): {"spec": {
        "request": _CSR, "signerName": "example.com/demo", "usages": ["client auth"]}},
    # No signerName: with one, the name must start with the signer's name ("example.com:demo:").
    ("certificates.k8s.io", "ClusterTrustBundle"): {"spec": {"trustBundle": _CERT}},
    ("coordination.k8s.io", "Lease"): {"spec": {"holderIdentity": "demo", "leaseDurationSeconds": 15}},
    ("discovery.k8s.io", "EndpointSlice"): {"addressType": "IPv4",
                                            "endpoints": [{"addresses": ["10.0.0.5"]}],
                                            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]},
    ("events.k8s.io", "Event"): {"eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "demo",
                                 "reportingInstance": "demo-1", "action": "Started", "reason": "Started",
                                 "type": "Normal", "regarding": {"kind": "Pod", "name": "p", "namespace": "default"}},
    ("networking.k8s.io", "Ingress"): {"spec": {"defaultBackend": {"service": {"name": "demo",
                                                                               "port": {"number": 80}}}}},
    ("networking.k8s.io", "IngressClass"): {"spec": {"controller": "example.com/ingress"}},
    ("networking.k8s.io", "IPAddress"): {"spec": {"parentRef": {"group": "", "resource": "services",
                                                                "namespace": "default", "name": "demo"}}},
    ("networking.k8s.io", "NetworkPolicy"): {"spec": {"podSelector": {}, "policyTypes": ["Ingress"]}},
    ("networking.k8s.io", "ServiceCIDR"): {"spec": {"cidrs": ["10.100.0.0/16"]}},
    ("node.k8s.io", "RuntimeClass"): {"handler": "runc"},
    ("policy", "PodDisruptionBudget"): {"spec": {"minAvailable": 1, "selector": _SELECTOR}},
    ("rbac.authorization.k8s.io", "ClusterRole"): {"rules": [_RULE]},
    ("rbac.authorization.k8s.io", "Role"): {"rules": [_RULE]},
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): {
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": _SUBJECTS},
    ("rbac.authorization.k8s.io", "RoleBinding"): {
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        "subjects": _SUBJECTS},
    ("scheduling.k8s.io", "PriorityClass"): {"value": 1000, "description": "demo"},
    ("storage.k8s.io", "CSIDriver"): {"spec": {"attachRequired": False}},
    ("storage.k8s.io", "CSINode"): {"spec": {"drivers": [{"name": "demo.csi.example.com", "nodeID": "node-1"}]}},
    ("storage.k8s.io", "CSIStorageCapacity"): {"storageClassName": "standard"},
    ("storage.k8s.io", "StorageClass"): {"provisioner": "example.com/demo", "reclaimPolicy": "Delete"},
    ("storage.k8s.io", "VolumeAttachment"): {"spec": {"attacher": "demo.csi.example.com", "nodeName": "node-1",
                                                      "source": {"persistentVolumeName": "pv-1"}}},
    ("storage.k8s.io", "VolumeAttributesClass"): {"driverName": "demo.csi.example.com",
                                                  "parameters": {"iops": "1000"}},
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): {"spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                "operations": ["CREATE"], "resources": ["deployments"]}]},
        "validations": [{"expression": "object.spec.replicas <= 5"}]}},
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): {"spec": {
        "policyName": "demo", "validationActions": ["Deny"]}},
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): {"spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                "operations": ["CREATE"], "resources": ["deployments"]}]},
        "reinvocationPolicy": "Never",
        "mutations": [{"patchType": "ApplyConfiguration",
                       "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"}}]}},
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): {"spec": {"policyName": "demo"}},
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): {"webhooks": []},
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): {"webhooks": []},
    ("apiextensions.k8s.io", "CustomResourceDefinition"): {"spec": _WEBHOOK_CRD},
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): {"spec": {
        "priorityLevelConfiguration": {"name": "demo"}, "matchingPrecedence": 5000,
        "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:authenticated"}}],
                   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                                      "namespaces": ["*"]}]}]}},
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): {"spec": {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 5,
                                       "limitResponse": {"type": "Reject"}}}},
    ("resource.k8s.io", "DeviceClass"): {"spec": {"selectors": [{"cel": {"expression": "true"}}]}},
    ("resource.k8s.io", "DeviceTaintRule"): {"spec": {"taint": {"key": "example.com/broken", "effect": "NoSchedule"}}},
    ("resource.k8s.io", "ResourceClaim"): {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "demo"}}]}}},
    ("resource.k8s.io", "ResourceClaimTemplate"): {"spec": {"spec": {"devices": {"requests": [
        {"name": "gpu", "exactly": {"deviceClassName": "demo"}}]}}}},
    ("resource.k8s.io", "ResourceSlice"): {"spec": {"driver": "demo.example.com", "nodeName": "node-1",
                                                    "pool": {"name": "node-1", "generation": 1,
                                                             "resourceSliceCount": 1}}},
    ("storagemigration.k8s.io", "StorageVersionMigration"): {"spec": {"resource": {"group": "apps",
                                                                                   "resource": "deployments"}}},
    ("certificates.k8s.io", "PodCertificateRequest"): {"spec": {
        "signerName": "example.com/demo", "podName": "p", "podUID": "00000000-0000-0000-0000-000000000001",
        "serviceAccountName": "default", "serviceAccountUID": "00000000-0000-0000-0000-000000000002",
        "nodeName": "node-1", "nodeUID": "00000000-0000-0000-0000-000000000003", "maxExpirationSeconds": 86400,
        "stubPKCS10Request": _CSR_DER}},
}

# Kinds whose name validation wants a particular form.
OBJECT_NAMES: dict[tuple[str, str], str] = {
    ("apiregistration.k8s.io", "APIService"): "v1.demo.example.com",  # <version>.<group>
    ("apiextensions.k8s.io", "CustomResourceDefinition"): "gadgets.demo.example.com",  # <plural>.<group>
    ("networking.k8s.io", "IPAddress"): "10.100.0.10",  # the address itself
    ("networking.k8s.io", "ServiceCIDR"): "demo-cidr",
}

# Resources that only answer create (reviews) or only read (componentstatuses): no round trip.
CREATE_ONLY = {"bindings", "tokenreviews", "selfsubjectreviews", "localsubjectaccessreviews",
               "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"}


def _value(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> Any:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        schema = defs[ref.rsplit("/", 1)[-1]]
    if "oneOf" in schema:  # IntOrString, Quantity
        return "1"
    types = schema.get("type")
    types = [types] if isinstance(types, str) else [t for t in types or () if t != "null"]
    if "enum" in schema:
        return schema["enum"][0]
    if "object" in types or "properties" in schema:
        return _required(schema, defs, depth + 1)
    if "array" in types:
        return [_value(schema.get("items") or {}, defs, depth + 1)] if depth < 8 else []
    if "integer" in types or "number" in types:
        return 1
    if "boolean" in types:
        return False
    if schema.get("format") == "byte":
        return base64.b64encode(b"demo").decode()
    if schema.get("format") == "date-time":
        return "2026-01-01T00:00:00Z"
    return "demo"


def _required(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    props = schema.get("properties") or {}
    return {name: _value(props[name], defs, depth) for name in schema.get("required") or () if name in props
            and name not in ("apiVersion", "kind", "metadata")}


def _merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = _merge(base.get(key), value) if key in base else copy.deepcopy(value)
        return out
    return copy.deepcopy(extra)


def minimal_object(resource: ApiResource, kubernetes: str | None = None) -> dict[str, Any]:
    """A minimal valid ``resource`` object (with apiVersion, kind and a name) for Kubernetes ``kubernetes``."""
    defs = definitions(kubernetes_version(kubernetes)).defs
    key = (resource.group, resource.kind)
    body = _merge(_required(defs[resource.definition], defs), HAND.get(key, {}))
    if key not in HAND and ("spec" in body or "spec" in (defs[resource.definition].get("properties") or {})):
        body.setdefault("spec", {})
    api_version = f"{resource.group}/{resource.version}" if resource.group else resource.version
    name = OBJECT_NAMES.get(key, f"demo-{resource.singular}")
    return {"apiVersion": api_version, "kind": resource.kind, "metadata": {"name": name}, **body}


def round_trip_resources(kubernetes: str | None = None) -> list[ApiResource]:
    """Every resource of the version that is created, read, written and deleted like any object."""
    version = str(kubernetes_version(kubernetes))
    return [r for r in resources_in(version) if r.plural not in CREATE_ONLY and "create" in r.verbs]
