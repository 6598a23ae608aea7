"""The mutating admission plugins every cluster runs whose changes clients notice.

kube-apiserver enables them by default (kubernetes ``pkg/kubeapiserver/options/plugins.go``); each follows its
``plugin/pkg/admission/<name>/admission.go`` (sources and commits in docs/semantics.md):

- ``DefaultTolerationSeconds``: pods tolerate ``node.kubernetes.io/not-ready`` and ``unreachable``
  (NoExecute) for 300 s unless they already tolerate them; on create and update of the pod itself.
- ``ServiceAccount``: a pod without ``serviceAccountName`` gets ``default``; the service account must exist
  (403 otherwise); unless automounting is off, a projected ``kube-api-access-xxxxx`` volume (token, the
  ``kube-root-ca.crt`` ConfigMap, the namespace) is added and mounted read-only at
  ``/var/run/secrets/kubernetes.io/serviceaccount`` in every container and init container that has nothing
  mounted there; image pull secrets come from the service account when the pod names none. Create only.
- ``Priority``: ``spec.priority`` from ``priorityClassName`` (403 for an unknown class), else the global
  default class, else 0; ``preemptionPolicy`` from the class (``PreemptLowerPriority`` without one). The two
  built-in ``system-*`` classes resolve even when the store holds no PriorityClass objects.
- ``DefaultStorageClass`` / ``DefaultIngressClass``: a PVC / Ingress naming no class gets the default one,
  when one is marked (the newest, if several are).
- ``RuntimeClass``: a pod naming a RuntimeClass gets its ``overhead`` (403 when the class does not exist).

- ``StorageObjectInUseProtection``: a created PersistentVolumeClaim, PersistentVolume or VolumeAttributesClass gets
  its protection finalizer (``kubernetes.io/pvc-protection``, ``pv-protection``, ``vac-protection``) unless it has
  it; the protection controllers remove it once nothing uses the object. Create only, not on subresources.
- ``TaintNodesByCondition``: a created Node gets the ``node.kubernetes.io/not-ready:NoSchedule`` taint unless it
  has it; the node lifecycle controller lifts it once the node is Ready.

Both can be turned off (kube-apiserver's ``--disable-admission-plugins``; the simulated cluster does, as it runs
neither the protection controllers nor the node lifecycle controller).

Errors are ``admission.NewForbidden``'s: ``pods "<name or generateName>" is forbidden: <reason>``.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.kinds.checks import mapping, seq, spec_of
from fakekube.kinds.context import WriteContext
from fakekube.namerules import generate_name

NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
DEFAULT_TOLERATION_SECONDS = 300
TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
# pkg/apis/scheduling/types.go: SystemCriticalPriority = 2 * HighestUserDefinablePriority.
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}
DEFAULT_STORAGE_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                                     "storageclass.beta.kubernetes.io/is-default-class")
DEFAULT_INGRESS_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"


def forbidden(resource: str, group: str, obj: dict[str, Any], reason: str) -> errors.Forbidden:
    """``admission.NewForbidden``: the object's name, else its generateName, else ``Unknown``."""
    meta = mapping(obj.get("metadata"))
    name = meta.get("name") or meta.get("generateName") or "Unknown"
    return errors.Forbidden(f'{errors.qualified(resource, group)} "{name}" is forbidden: {reason}',
                            {"name": name, "group": group, "kind": resource})


# ----------------------------------------------------------------------------- DefaultTolerationSeconds

def default_toleration_seconds(pod: dict[str, Any]) -> None:
    spec = spec_of(pod)
    tolerations = spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = []
    not_ready = unreachable = False
    for t in tolerations:
        if not isinstance(t, dict):
            continue
        key, effect = t.get("key") or "", t.get("effect") or ""
        if effect in ("NoExecute", ""):
            not_ready = not_ready or key in (NOT_READY_TAINT, "")
            unreachable = unreachable or key in (UNREACHABLE_TAINT, "")
    added = [{"key": key, "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": DEFAULT_TOLERATION_SECONDS}
             for key, present in ((NOT_READY_TAINT, not_ready), (UNREACHABLE_TAINT, unreachable)) if not present]
    if added:
        spec["tolerations"] = [*tolerations, *added]


# ----------------------------------------------------------------------------- ServiceAccount

def service_account(pod: dict[str, Any], ctx: WriteContext) -> None:
    meta = mapping(pod.get("metadata"))
    spec = spec_of(pod)
    if MIRROR_POD_ANNOTATION in mapping(meta.get("annotations")):
        if spec.get("serviceAccountName"):
            raise forbidden("pods", "", pod, "a mirror pod may not reference service accounts")
        return
    if not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = "default"
        spec["serviceAccount"] = "default"  # the deprecated alias the v1 conversion writes back
    name = spec["serviceAccountName"]
    account = ctx.get("/serviceaccounts", name, ctx.namespace)
    if account is None:
        raise forbidden("pods", "", pod, f"error looking up service account {ctx.namespace}/{name}: "
                                         f'serviceaccount "{name}" not found')
    automount = spec.get("automountServiceAccountToken")
    if automount is None:
        automount = account.get("automountServiceAccountToken")
    if automount is not False:
        _mount_token(spec, ctx)
    if not spec.get("imagePullSecrets") and account.get("imagePullSecrets"):
        spec["imagePullSecrets"] = [dict(s) for s in account["imagePullSecrets"] if isinstance(s, dict)]


def _token_volume_source() -> dict[str, Any]:
    return {"defaultMode": 0o644, "sources": [
        {"serviceAccountToken": {"expirationSeconds": WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
    ]}


def _mount_token(spec: dict[str, Any], ctx: WriteContext) -> None:
    volumes = seq(spec.get("volumes"))
    existing = next((v.get("name") for v in volumes if isinstance(v, dict)
                     and str(v.get("name", "")).startswith(TOKEN_VOLUME_PREFIX)), None)
    name = existing or generate_name(TOKEN_VOLUME_PREFIX, ctx.rng)
    needs_volume = False
    for key in ("initContainers", "containers"):
        for container in seq(spec.get(key)):
            if not isinstance(container, dict):
                continue
            mounts = seq(container.get("volumeMounts"))
            if any(isinstance(m, dict) and m.get("mountPath") == TOKEN_MOUNT_PATH for m in mounts):
                continue
            container["volumeMounts"] = [*mounts, {"name": name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}]
            needs_volume = True
    if needs_volume and existing is None:
        spec["volumes"] = [*volumes, {"name": name, "projected": _token_volume_source()}]


# ----------------------------------------------------------------------------- Priority

def priority(pod: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
    spec = spec_of(pod)
    if old is not None:
        old_spec = mapping(old.get("spec"))
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and old_spec.get(key) is not None:
                spec[key] = old_spec[key]
        return
    class_name = spec.get("priorityClassName")
    if not class_name:
        default = _default_priority_class(ctx)
        if default is not None:
            class_name = spec["priorityClassName"] = default["metadata"]["name"]
            value, policy = default.get("value", 0), default.get("preemptionPolicy")
        else:
            value, policy = 0, "PreemptLowerPriority"
    else:
        found = ctx.get("scheduling.k8s.io/priorityclasses", class_name)
        if found is not None:
            value, policy = found.get("value", 0), found.get("preemptionPolicy")
        elif class_name in SYSTEM_PRIORITY_CLASSES:
            value, policy = SYSTEM_PRIORITY_CLASSES[class_name], "PreemptLowerPriority"
        else:
            raise forbidden("pods", "", pod, f"no PriorityClass with name {class_name} was found")
    if spec.get("priority") is not None and spec["priority"] != value:
        raise forbidden("pods", "", pod, f"the integer value of priority ({spec['priority']}) must not be provided in "
                                         f"pod spec; priority admission controller computed {value} from the given "
                                         "PriorityClass name")
    spec["priority"] = value
    if policy is not None:
        if spec.get("preemptionPolicy") is not None and spec["preemptionPolicy"] != policy:
            raise forbidden("pods", "", pod, f"the string value of PreemptionPolicy ({spec['preemptionPolicy']}) "
                                             "must not be provided in pod spec; priority admission controller "
                                             f"computed {policy} from the given PriorityClass name")
        spec["preemptionPolicy"] = policy


def _default_priority_class(ctx: WriteContext) -> dict[str, Any] | None:
    """The global default class; the lowest value wins if a race left several."""
    defaults = [pc for pc in ctx.list("scheduling.k8s.io/priorityclasses") if pc.get("globalDefault")]
    return min(defaults, key=lambda pc: pc.get("value", 0)) if defaults else None


# ----------------------------------------------------------------------------- RuntimeClass

def runtime_class(pod: dict[str, Any], ctx: WriteContext) -> None:
    spec = spec_of(pod)
    name = spec.get("runtimeClassName")
    if not name:
        return
    found = ctx.get("node.k8s.io/runtimeclasses", name)
    if found is None:
        raise forbidden("pods", "", pod, f'pod rejected: RuntimeClass "{name}" not found')
    overhead = mapping(found.get("overhead")).get("podFixed")
    if overhead:
        if spec.get("overhead") and spec["overhead"] != overhead:
            raise forbidden("pods", "", pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined "
                                             "Overhead")
        spec["overhead"] = dict(overhead)


# ----------------------------------------------------------------------------- default classes

def newest_default(classes: Any, annotations: tuple[str, ...]) -> dict[str, Any] | None:
    """``GetDefaultClass``: among the classes marked default, the newest (ties: the first name)."""
    marked = [c for c in classes
              if any(mapping(mapping(c.get("metadata")).get("annotations")).get(a) == "true" for a in annotations)]
    if not marked:
        return None
    marked.sort(key=lambda c: c["metadata"]["name"])
    return max(marked, key=lambda c: c["metadata"].get("creationTimestamp") or "")


def default_storage_class(pvc: dict[str, Any], ctx: WriteContext) -> None:
    spec = spec_of(pvc)
    if "storageClassName" in spec and spec["storageClassName"] is not None:
        return  # "" is an explicit "no class"
    default = newest_default(ctx.list("storage.k8s.io/storageclasses"), DEFAULT_STORAGE_CLASS_ANNOTATIONS)
    if default is not None:
        spec["storageClassName"] = default["metadata"]["name"]


def default_ingress_class(ingress: dict[str, Any], ctx: WriteContext) -> None:
    spec = spec_of(ingress)
    annotations = mapping(mapping(ingress.get("metadata")).get("annotations"))
    if spec.get("ingressClassName") is not None or "kubernetes.io/ingress.class" in annotations:
        return
    default = newest_default(ctx.list("networking.k8s.io/ingressclasses"), (DEFAULT_INGRESS_CLASS_ANNOTATION,))
    if default is not None:
        spec["ingressClassName"] = default["metadata"]["name"]


# ----------------------------------------------------------------------------- StorageObjectInUseProtection

PROTECTION_PLUGIN = "StorageObjectInUseProtection"
PROTECTION_FINALIZERS = {"PersistentVolumeClaim": "kubernetes.io/pvc-protection",
                         "PersistentVolume": "kubernetes.io/pv-protection",
                         "VolumeAttributesClass": "kubernetes.io/vac-protection"}


def storage_protection(obj: dict[str, Any], kind: str, old: dict[str, Any] | None, ctx: WriteContext) -> None:
    """plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go: the finalizer, appended."""
    if old is not None or ctx.subresource is not None or PROTECTION_PLUGIN in ctx.disabled_admission:
        return
    meta = obj["metadata"]
    finalizer = PROTECTION_FINALIZERS[kind]
    finalizers = meta.get("finalizers")
    finalizers = list(finalizers) if isinstance(finalizers, list) else []
    if finalizer not in finalizers:
        meta["finalizers"] = [*finalizers, finalizer]


# ----------------------------------------------------------------------------- TaintNodesByCondition

TAINT_NODES_PLUGIN = "TaintNodesByCondition"


def taint_new_node(node: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
    """plugin/pkg/admission/nodetaint/admission.go: a new Node is not ready until the node lifecycle controller says
    otherwise."""
    if old is not None or ctx.subresource is not None or TAINT_NODES_PLUGIN in ctx.disabled_admission:
        return
    spec = spec_of(node)
    taints = spec.get("taints")
    taints = list(taints) if isinstance(taints, list) else []
    if not any(isinstance(t, dict) and t.get("key") == NOT_READY_TAINT and t.get("effect") == "NoSchedule"
               for t in taints):
        spec["taints"] = [*taints, {"key": NOT_READY_TAINT, "effect": "NoSchedule"}]
