"""What the registry needs about built-in kinds that discovery does not publish.

Each table cites where upstream keeps the fact; everything else about a resource (names, scope, verbs,
subresources) comes from the generated ``api_resources.json``.

- selectable fields: the field labels a kind's field selector accepts besides ``metadata.name`` (and
  ``metadata.namespace`` for namespaced kinds) — kubernetes/kubernetes ``pkg/apis/<group>/<version>/
  conversion.go`` (``AddFieldLabelConversionFunc``) with the values from ``pkg/registry/<group>/<resource>/
  strategy.go`` (``GetAttrs`` / ``ToSelectableFields``);
- name rules: the ``ValidateObjectMeta`` name function of each kind's ``pkg/apis/<group>/validation``;
- the scale subresource: which kinds serve ``/scale`` and where its fields live (``pkg/registry/<group>/
  <resource>/storage/storage.go``, ``scaleFromX``).
"""

from __future__ import annotations

from dataclasses import dataclass

# field label → (JSON path of the value, the value when the field is absent). The zero value is what Go
# renders for an unset field: "" for strings, "0" for counters, "false" for booleans.
SelectableField = tuple[str, str]

_EVENT_FIELDS: dict[str, SelectableField] = {
    # pkg/apis/core/v1/conversion.go AddFieldLabelConversionsForEvent; pkg/registry/core/event/strategy.go
    **{f"involvedObject.{k}": (f"involvedObject.{k}", "") for k in
       ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
    "reason": ("reason", ""),
    "reportingComponent": ("reportingComponent", ""),
    "source": ("source.component", ""),
    "type": ("type", ""),
}

SELECTABLE_FIELDS: dict[tuple[str, str], dict[str, SelectableField]] = {
    # pkg/apis/core/v1/conversion.go addConversionFuncs; pkg/registry/core/pod/strategy.go PodToSelectableFields
    ("", "Pod"): {
        "spec.nodeName": ("spec.nodeName", ""),
        "spec.restartPolicy": ("spec.restartPolicy", ""),
        "spec.schedulerName": ("spec.schedulerName", ""),
        "spec.serviceAccountName": ("spec.serviceAccountName", ""),
        "spec.hostNetwork": ("spec.hostNetwork", "false"),
        "status.phase": ("status.phase", ""),
        "status.podIP": ("status.podIP", ""),
        "status.nominatedNodeName": ("status.nominatedNodeName", ""),
    },
    # pkg/registry/core/node/strategy.go NodeToSelectableFields
    ("", "Node"): {"spec.unschedulable": ("spec.unschedulable", "false")},
    # pkg/registry/core/replicationcontroller/strategy.go ControllerToSelectableFields
    ("", "ReplicationController"): {"status.replicas": ("status.replicas", "0")},
    ("", "Event"): _EVENT_FIELDS,
    # AddFieldLabelConversionsForNamespace / ForSecret / ForService
    ("", "Namespace"): {"status.phase": ("status.phase", "")},
    ("", "Secret"): {"type": ("type", "")},
    ("", "Service"): {"spec.clusterIP": ("spec.clusterIP", ""), "spec.type": ("spec.type", "")},
    # pkg/apis/batch/v1/conversion.go; pkg/registry/batch/job/strategy.go JobToSelectableFields
    ("batch", "Job"): {"status.successful": ("status.succeeded", "0")},
    # pkg/apis/certificates/v1/conversion.go
    ("certificates.k8s.io", "CertificateSigningRequest"): {"spec.signerName": ("spec.signerName", "")},
    ("certificates.k8s.io", "ClusterTrustBundle"): {"spec.signerName": ("spec.signerName", "")},
    ("certificates.k8s.io", "PodCertificateRequest"): {
        "spec.signerName": ("spec.signerName", ""), "spec.podName": ("spec.podName", ""),
        "spec.nodeName": ("spec.nodeName", ""),
    },
    # pkg/apis/resource/v1/conversion.go (ResourceSliceSelectorNodeName, ResourceSliceSelectorDriver)
    ("resource.k8s.io", "ResourceSlice"): {"spec.nodeName": ("spec.nodeName", ""), "spec.driver": ("spec.driver", ""),
                                           "spec.pool.name": ("spec.pool.name", "")},
}

# The kinds above have their own field label conversion function; its error for another label (the 400 of a
# field selector on it), "{label}" the label, "{quoted}" the label as %q, "{version}" the served version.
# The others answer "field label not supported: {label}".
FIELD_LABEL_ERRORS: dict[tuple[str, str], str] = {
    ("batch", "Job"): "field label {quoted} not supported for Job",  # pkg/apis/batch/v1/conversion.go
    # pkg/apis/resource/v1/conversion.go: the GroupVersionKind's String()
    ("resource.k8s.io", "ResourceSlice"): "field label not supported for resource.k8s.io/{version}, Kind=ResourceSlice: {label}",
}

# Kinds whose names follow another rule than a DNS-1123 subdomain (apimachinery NameIsDNSSubdomain):
NAME_RULES: dict[tuple[str, str], str] = {
    ("", "Namespace"): "label",  # core/validation ValidateNamespaceName: NameIsDNSLabel
    ("", "Service"): "dns1035",  # core/validation ValidateServiceName: NameIsDNS1035Label
    # rbac/validation ValidateRBACName: path.IsValidPathSegmentName (system:controller:... names)
    ("rbac.authorization.k8s.io", "Role"): "path_segment",
    ("rbac.authorization.k8s.io", "ClusterRole"): "path_segment",
    ("rbac.authorization.k8s.io", "RoleBinding"): "path_segment",
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): "path_segment",
    # certificates/validation ValidateCertificateRequestName: any name
    ("certificates.k8s.io", "CertificateSigningRequest"): "any",
}


@dataclass(frozen=True, slots=True)
class BuiltinScale:
    """Where ``/scale`` reads and writes replicas, and where the pod selector it reports comes from."""

    spec_replicas_path: str
    status_replicas_path: str
    selector_path: str  # a metav1.LabelSelector, or (map_selector) a plain label map
    map_selector: bool = False


_APPS_SCALE = BuiltinScale(".spec.replicas", ".status.replicas", ".spec.selector")
SCALE: dict[tuple[str, str], BuiltinScale] = {
    # pkg/registry/apps/{deployment,replicaset,statefulset}/storage/storage.go: scaleFrom*
    ("apps", "Deployment"): _APPS_SCALE,
    ("apps", "ReplicaSet"): _APPS_SCALE,
    ("apps", "StatefulSet"): _APPS_SCALE,
    # pkg/registry/core/replicationcontroller/storage/storage.go scaleFromRC: labels.SelectorFromSet
    ("", "ReplicationController"): BuiltinScale(".spec.replicas", ".status.replicas", ".spec.selector", True),
}
