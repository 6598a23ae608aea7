"""The resource types the cluster's actors use, registered only where the store's registry lacks them.

The registry is to serve every GA built-in resource from data; until it does, a cluster registers the
kinds its actors read and write here (``ensure_kinds``), with the kind's strategy from ``fakekube.kinds``.
Only one rule is added: the workload kinds track ``metadata.generation`` (kubectl's ``rollout status`` waits
for ``status.observedGeneration`` to reach it), as their upstream strategies do
(``pkg/registry/apps/<kind>/strategy.go``, ``pkg/registry/batch/job/strategy.go``). A kind the registry
already serves is never replaced, so this module retires itself as the registry grows.
"""

from __future__ import annotations

from fakekube.apimodel.patch_schemas import builtin_patch_schema, patch_schema
from fakekube.apimodel.versions import kubernetes_version
from fakekube.kinds import strategy_for
from fakekube.patch.schema import PatchSchema, merge_list, obj
from fakekube.resources import Registry, ResourceType, ScaleSpec, path_getter
from fakekube.strategies import StatusStrategy, Strategy


class _WorkloadStrategy(StatusStrategy):
    """A status subresource and a generation that moves with the spec."""

    tracks_generation = True

    def prepare_for_update(self, new: dict, old: dict) -> None:
        super().prepare_for_update(new, old)
        generation = old["metadata"].get("generation")
        if generation is not None:
            new["metadata"]["generation"] = generation + 1 if new.get("spec") != old.get("spec") else generation


def _strategy(group: str, kind: str, has_status: bool, workload: bool = False) -> Strategy:
    strategy = strategy_for(group, kind, has_status=has_status)
    if workload and not strategy.tracks_generation and type(strategy) is StatusStrategy:
        return _WorkloadStrategy()
    return strategy


def _rt(group: str, kind: str, plural: str, *, namespaced: bool = True, status: bool = False,
        workload: bool = False, **options: object) -> ResourceType:
    subresources = set(options.pop("subresources", ()))  # type: ignore[call-overload]
    if status:
        subresources.add("status")
    return ResourceType(group, "v1", kind, plural, namespaced=namespaced,
                        strategy=_strategy(group, kind, status, workload), subresources=frozenset(subresources),
                        **options)  # type: ignore[arg-type]


def cluster_types() -> list[ResourceType]:
    replicas = ScaleSpec(".spec.replicas", ".status.replicas", None)
    return [
        _rt("", "Node", "nodes", namespaced=False, status=True, short_names=("no",),
            selectable_fields={"spec.unschedulable": path_getter("spec.unschedulable")}),
        _rt("", "Endpoints", "endpoints", short_names=("ep",)),
        _rt("apps", "ReplicaSet", "replicasets", status=True, workload=True, short_names=("rs",),
            categories=("all",), subresources=("scale",), scale=replicas),
        _rt("apps", "StatefulSet", "statefulsets", status=True, workload=True, short_names=("sts",),
            categories=("all",), subresources=("scale",), scale=replicas),
        _rt("apps", "DaemonSet", "daemonsets", status=True, workload=True, short_names=("ds",),
            categories=("all",)),
        _rt("apps", "ControllerRevision", "controllerrevisions"),
        _rt("batch", "Job", "jobs", status=True, workload=True, categories=("all",),
            selectable_fields={"status.successful": path_getter("status.succeeded")}),
        _rt("batch", "CronJob", "cronjobs", status=True, workload=True, short_names=("cj",), categories=("all",)),
        _rt("discovery.k8s.io", "EndpointSlice", "endpointslices",
            selectable_fields={"addressType": path_getter("addressType")}),
        _rt("scheduling.k8s.io", "PriorityClass", "priorityclasses", namespaced=False, short_names=("pc",)),
        _rt("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", namespaced=False),
        _rt("rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", namespaced=False),
        _rt("rbac.authorization.k8s.io", "Role", "roles"),
        _rt("rbac.authorization.k8s.io", "RoleBinding", "rolebindings"),
    ]


def ensure_kinds(registry: Registry) -> list[ResourceType]:
    """Register each kind of :func:`cluster_types` the registry does not serve yet; returns those added."""
    served = {(rt.group, rt.kind) for rt in registry}
    added = []
    for rt in cluster_types():
        if (rt.group, rt.kind) in served:
            continue
        rt.patch_schema = builtin_patch_schema(rt.group, rt.kind) or _generic_schema(rt.kind)
        registry.register(rt)
        added.append(rt)
    return added


def _generic_schema(kind: str) -> PatchSchema:
    """Merge metadata every kind shares: ObjectMeta's lists, and status conditions merged by ``type``."""
    object_meta = patch_schema(kubernetes_version(None), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    return obj(kind, metadata=object_meta, status=obj(f"{kind}Status", conditions=merge_list("type", obj("Condition"))))
