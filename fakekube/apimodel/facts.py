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
    # pkg/apis/events/v1/conversion.go AddFieldLabelConversionsForEvent: the events.k8s.io names of the core
    # Event's fields (the paths are in the events.k8s.io shape the selector is matched against)
    ("events.k8s.io", "Event"): {
        **{f"regarding.{k}": (f"regarding.{k}", "") for k in
           ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
        "reason": ("reason", ""),
        "reportingController": ("reportingController", ""),
        "type": ("type", ""),
    },
}

# The 400 for a field label a kind does not support is the error of the field-label conversion function its
# API version registers (``AddFieldLabelConversionFunc`` in ``pkg/apis/<group>/<version>/conversion.go``),
# keyed (group, version, kind); ``{label}`` is the label and ``{quoted}`` the label as Go's %q prints it.
# Every other built-in kind falls back to apimachinery ``pkg/runtime/conversion.go``
# ``DefaultMetaV1FieldSelectorConversion``, which also accepts ``metadata.namespace`` on cluster-scoped kinds.
_NOT_SUPPORTED = "field label not supported: {label}"
FIELD_LABEL_ERRORS: dict[tuple[str, str, str], str] = {
    **{("", "v1", kind): _NOT_SUPPORTED
       for kind in ("Pod", "Node", "ReplicationController", "Event", "Namespace", "Secret", "Service")},
    ("events.k8s.io", "v1", "Event"): _NOT_SUPPORTED,
    ("events.k8s.io", "v1beta1", "Event"): _NOT_SUPPORTED,
    **{("certificates.k8s.io", version, kind): _NOT_SUPPORTED
       for version in ("v1", "v1beta1") for kind in ("CertificateSigningRequest", "ClusterTrustBundle", "PodCertificateRequest")},
    **{("certificates.k8s.io", "v1alpha1", kind): _NOT_SUPPORTED for kind in ("ClusterTrustBundle", "PodCertificateRequest")},
    ("batch", "v1", "Job"): "field label {quoted} not supported for Job",
    **{("batch", "v1beta1", kind): f'field label {{quoted}} not supported for "{kind}"'
       for kind in ("Job", "JobTemplate", "CronJob")},
    ("apps", "v1beta1", "StatefulSet"): "field label not supported for appsv1beta1.StatefulSet: {label}",
    ("apps", "v1beta2", "StatefulSet"): "field label not supported for appsv1beta2.StatefulSet: {label}",
    **{("resource.k8s.io", version, "ResourceSlice"):
       f"field label not supported for resource.k8s.io/{version}, Kind=ResourceSlice: {{label}}"
       for version in ("v1", "v1beta1", "v1beta2")},
}
# What a conversion function accepts beyond its kind's field set: Pod's "spec.host" is renamed to
# "spec.nodeName", and "status.podIPs" passes although ToSelectableFields has no such field (so its value is
# always "") — pkg/apis/core/v1/conversion.go, pkg/registry/core/pod/strategy.go.
FIELD_LABEL_ALIASES: dict[tuple[str, str], dict[str, str]] = {("", "Pod"): {"spec.host": "spec.nodeName"}}
ALWAYS_EMPTY_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {("", "Pod"): ("status.podIPs",)}
# Namespaced kinds whose conversion function leaves "metadata.namespace" out (certificates/v1*/conversion.go).
NO_NAMESPACE_FIELD: frozenset[tuple[str, str]] = frozenset({("certificates.k8s.io", "PodCertificateRequest")})
DEFAULT_FIELD_LABEL_ERROR = '{quoted} is not a known field selector: only "metadata.name", "metadata.namespace"'

# Kinds whose names follow another rule than a DNS-1123 subdomain (apimachinery NameIsDNSSubdomain):
NAME_RULES: dict[tuple[str, str], str] = {
    ("", "Namespace"): "label",  # core/validation ValidateNamespaceName: NameIsDNSLabel
    # core/validation ValidateServiceCreate: with RelaxedServiceNameValidation (on by default in v1.37) a
    # Service's name is NameIsDNSLabel, no longer ValidateServiceName's NameIsDNS1035Label (KEP-5311).
    ("", "Service"): "label",
    # core/validation ValidateEventCreate: a core/v1 Event's metadata is not validated (legacyValidateEvent
    # only); events.k8s.io/v1 keeps NameIsDNSSubdomain
    ("", "Event"): "any",
    # rbac/validation ValidateRBACName: path.IsValidPathSegmentName (system:controller:... names)
    ("rbac.authorization.k8s.io", "Role"): "path_segment",
    ("rbac.authorization.k8s.io", "ClusterRole"): "path_segment",
    ("rbac.authorization.k8s.io", "RoleBinding"): "path_segment",
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): "path_segment",
    # certificates/validation ValidateCertificateRequestName: any name
    ("certificates.k8s.io", "CertificateSigningRequest"): "any",
    # kube-aggregator ValidateAPIService: a path segment; that it is version.group is the kind's own check
    ("apiregistration.k8s.io", "APIService"): "path_segment",
    # networking/validation ValidateIPAddressName: IsValidIP (fakekube.ipstrings)
    ("networking.k8s.io", "IPAddress"): "ip",
    # apps/validation ValidateStatefulSetName: NameIsDNSLabel (the pods' names add "-<ordinal>")
    ("apps", "StatefulSet"): "label",
    # policy/validation ValidatePodDisruptionBudget checks no metadata; apiserver rest.ValidateCreate then runs
    # ValidateObjectMetaAccessor with validatePathSegment (content.IsPathSegmentName)
    ("policy", "PodDisruptionBudget"): "path_segment",
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
