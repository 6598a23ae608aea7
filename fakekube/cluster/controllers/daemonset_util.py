"""What the DaemonSet controller decides per node (kubernetes ``pkg/controller/daemon/util/daemonset_util.go``,
``daemon_controller.go`` ``NodeShouldRunDaemonPod``, ``podsShouldBeOnNode``'s ordering).

- ``daemon_pod_template``: the pod a DaemonSet runs on one node — its template with the automatic
  tolerations (``AddOrUpdateDaemonPodTolerations``), every required node-affinity term pinned to the node by
  a ``matchFields`` ``metadata.name In [node]`` requirement (``ReplaceDaemonSetPodNodeNameNodeAffinity``; the
  scheduler then binds it there), and the ``controller-revision-hash`` / ``pod-template-generation`` labels.
- ``should_run``: (should run, should continue running) on a node: the template's ``nodeName``,
  ``nodeSelector`` and required node affinity must match; an untolerated NoSchedule or NoExecute taint stops a
  new pod, and only an untolerated NoExecute taint evicts a running one.
"""

from __future__ import annotations

from typing import Any

from fakekube.jsonvalues import json_copy

from ..scheduler import node_fits_selectors, tolerates

Obj = dict[str, Any]
REVISION_LABEL = "controller-revision-hash"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"


def _exists(key: str, effect: str) -> Obj:
    return {"key": key, "operator": "Exists", "effect": effect}


# In upstream's order; the network-unavailable one only for host-network pods.
AUTOMATIC_TOLERATIONS = (
    _exists("node.kubernetes.io/not-ready", "NoExecute"),
    _exists("node.kubernetes.io/unreachable", "NoExecute"),
    _exists("node.kubernetes.io/disk-pressure", "NoSchedule"),
    _exists("node.kubernetes.io/memory-pressure", "NoSchedule"),
    _exists("node.kubernetes.io/pid-pressure", "NoSchedule"),
    _exists("node.kubernetes.io/unschedulable", "NoSchedule"),
)
NETWORK_UNAVAILABLE = _exists("node.kubernetes.io/network-unavailable", "NoSchedule")


def _add_toleration(tolerations: list[Obj], toleration: Obj) -> None:
    """``v1helper.AddOrUpdateTolerationInPodSpec``: a toleration with the same key, effect, operator and value
    is replaced (its ``tolerationSeconds`` dropped); any other is kept and the new one appended."""
    def same(existing: Obj) -> bool:
        return all((existing.get(k) or "") == (toleration.get(k) or "") for k in ("key", "effect", "value")) and \
            (existing.get("operator") or "Equal") == toleration["operator"]

    for i, existing in enumerate(tolerations):
        if same(existing):
            tolerations[i] = dict(toleration)
            return
    tolerations.append(dict(toleration))


def template_generation(ds: Obj) -> str | None:
    """The DaemonSet strategy's ``deprecated.daemonset.template.generation`` annotation, when the store set it."""
    return (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)


def with_node_affinity(spec: Obj, node: str) -> None:
    requirement = {"key": "metadata.name", "operator": "In", "values": [node]}
    affinity = spec.setdefault("affinity", {}) or {}
    spec["affinity"] = affinity
    node_affinity = affinity.setdefault("nodeAffinity", {}) or {}
    affinity["nodeAffinity"] = node_affinity
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    terms = [dict(t) for t in required.get("nodeSelectorTerms") or ()] or [{}]
    for term in terms:
        term["matchFields"] = [dict(requirement)]
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}


def daemon_pod_template(ds: Obj, hash_: str, node: str | None = None) -> Obj:
    """The pod template a DaemonSet's pod on ``node`` is made from (``NewPod`` / ``CreatePodTemplate``)."""
    template = json_copy((ds.get("spec") or {}).get("template") or {})
    spec = template.setdefault("spec", {})
    tolerations = list(spec.get("tolerations") or [])
    extra = AUTOMATIC_TOLERATIONS + ((NETWORK_UNAVAILABLE,) if spec.get("hostNetwork") else ())
    for toleration in extra:
        _add_toleration(tolerations, toleration)
    spec["tolerations"] = tolerations
    labels = template.setdefault("metadata", {}).setdefault("labels", {})
    generation = template_generation(ds)
    if generation is not None:
        labels[TEMPLATE_GENERATION_LABEL] = generation
    if hash_:
        labels[REVISION_LABEL] = hash_
    if node is not None:
        with_node_affinity(spec, node)
    return template


def should_run(ds: Obj, node: Obj) -> tuple[bool, bool]:
    """``NodeShouldRunDaemonPod``: (a pod should be created there, an existing one may keep running)."""
    template = daemon_pod_template(ds, "")
    node_name = (template.get("spec") or {}).get("nodeName")
    if node_name and node_name != node["metadata"]["name"]:
        return False, False
    if not node_fits_selectors(template, node):
        return False, False
    untolerated = [t for t in (node.get("spec") or {}).get("taints") or ()
                   if t.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(template, t)]
    if untolerated:
        return False, not any(t.get("effect") == "NoExecute" for t in untolerated)
    return True, True


def target_node(pod: Obj) -> str | None:
    """``GetTargetNodeName``: the pod's node, or the node its ``metadata.name`` affinity pins it to."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or ():
        for field in term.get("matchFields") or ():
            if field.get("key") == "metadata.name" and field.get("operator") == "In" and \
                    len(field.get("values") or ()) == 1:
                return str(field["values"][0])
    return None


def creation_order(pod: Obj) -> tuple[bool, str, str]:
    """``podByCreationTimestampAndPhase``: scheduled pods first, then the oldest, then by name."""
    return (not (pod.get("spec") or {}).get("nodeName"), pod["metadata"].get("creationTimestamp") or "",
            pod["metadata"]["name"])


def is_updated(pod: Obj, hash_: str, generation: str | None) -> bool:
    """``IsPodUpdated``: the pod carries the current revision's hash (or template generation)."""
    labels = pod["metadata"].get("labels") or {}
    return bool(hash_ and labels.get(REVISION_LABEL) == hash_) or \
        (generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == generation)
