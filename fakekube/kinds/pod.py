"""core/v1 Pod: kubernetes ``pkg/registry/core/pod/strategy.go`` and ``storage/storage.go``.

Create: defaults (``SetObjectDefaults_Pod``), the admission plugins of ``fakekube.kinds.admission``,
``status: {phase: Pending, qosClass}``, generation 1, a ``PodScheduled=False/SchedulingGated`` condition when
the pod has scheduling gates, ``ValidatePodCreate``. Main writes keep the stored status, bump generation on spec
changes and may change only what ``ValidatePodUpdate`` allows. ``/status`` writes keep the spec and the
ownerReferences from the stored pod (labels, annotations and finalizers sent with them persist) and a status
without ``qosClass`` or ``observedGeneration`` keeps the stored ones. DELETE is graceful and answers the pod.
"""

from __future__ import annotations

from typing import Any

from fakekube import quantity
from fakekube.errors import FieldError
from fakekube.jsonvalues import encode_json
from fakekube.kinds import admission
from fakekube.kinds.checks import mapping, seq
from fakekube.kinds.context import WriteContext
from fakekube.kinds.podspec import default_pod
from fakekube.kinds.podvalidation import validate_pod_create, validate_pod_update
from fakekube.strategies import BuiltinStrategy


class PodStrategy(BuiltinStrategy):
    initial_status = {}
    generation_fields = ("spec",)
    status_keeps = ("ownerReferences",)
    graceful_delete = True
    returns_deleted_object = True
    defaulted_fields = ("spec",)  # default_pod reads and writes the spec alone
    # The update hooks below change the spec's and status's own keys and the metadata (one level under the
    # top), and default_update leaves alone what the new pod shares with the stored one.
    patch_shares_stored = True
    # Main writes keep the stored status (prepare_for_update); default_pod, the update's admission (priority,
    # tolerationSeconds), validate_pod_update and the ObjectMeta checks read the spec and metadata alone.
    main_update_ignores_status = True

    def default(self, obj: dict[str, Any]) -> None:
        default_pod(obj)

    def default_update(self, obj: dict[str, Any], old: dict[str, Any]) -> None:
        default_pod(obj, old)

    def admit(self, obj: dict[str, Any], old: dict[str, Any] | None, ctx: WriteContext) -> None:
        if ctx.subresource is not None:
            return
        if old is None and "ServiceAccount" not in ctx.disabled_admission:
            admission.service_account(obj, ctx)
        admission.priority(obj, old, ctx)
        admission.default_toleration_seconds(obj)
        if old is None:
            admission.runtime_class(obj, ctx)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = mapping(obj.get("spec"))
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(spec)}
        if spec.get("schedulingGates"):
            obj["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                                            "message": "Scheduling is blocked due to non-empty scheduling gates",
                                            "lastProbeTime": None, "lastTransitionTime": None}]

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_status_update(new, old)
        status = new.get("status")
        old_status = mapping(old.get("status"))
        if isinstance(status, dict):
            for key in ("qosClass", "observedGeneration"):
                if not status.get(key) and key in old_status:
                    status[key] = old_status[key]

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_pod_create(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        return validate_pod_update(new, old)

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """``CheckGracefulDelete``: the request's period, else the pod's; 0 when unscheduled or finished."""
        spec = mapping(obj.get("spec"))
        phase = mapping(obj.get("status")).get("phase")
        if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
            return 0
        if requested is not None:
            return max(requested, 0)
        grace = spec.get("terminationGracePeriodSeconds", 30)
        if not isinstance(grace, int):
            return 30
        return 1 if grace < 0 else grace


def _quantities(resources: dict[str, Any], key: str) -> dict[str, Any]:
    values = resources.get(key)
    if not isinstance(values, dict):
        return {}
    out = {}
    for name, text in values.items():
        try:
            out[name] = quantity.value_of(text)
        except quantity.QuantityError:
            out[name] = text
    return out


# The class of each list of containers' resources seen, by its JSON: a workload's pods repeat their template's.
_QOS_BY_RESOURCES: dict[bytes, str] = {}
_MAX_REMEMBERED = 4096


def qos_class(spec: dict[str, Any]) -> str:
    """``qos.GetPodQOS``: Guaranteed when every container sets equal cpu and memory requests and limits,
    BestEffort when none sets any, Burstable otherwise (only cpu and memory count)."""
    containers = [c for key in ("containers", "initContainers") for c in seq(spec.get(key))
                  if isinstance(c, dict)]
    key = encode_json([c.get("resources") for c in containers])
    known = _QOS_BY_RESOURCES.get(key) if key is not None else None
    if known is None:
        known = _qos_class(containers)
        if key is not None:
            if len(_QOS_BY_RESOURCES) >= _MAX_REMEMBERED:
                _QOS_BY_RESOURCES.clear()
            _QOS_BY_RESOURCES[key] = known
    return known


def _qos_class(containers: list[dict[str, Any]]) -> str:
    requests_set = limits_set = False
    guaranteed = bool(containers)
    for container in containers:
        resources = mapping(container.get("resources"))
        requests = {k: v for k, v in _quantities(resources, "requests").items() if k in ("cpu", "memory")}
        limits = {k: v for k, v in _quantities(resources, "limits").items() if k in ("cpu", "memory")}
        requests_set = requests_set or any(v != 0 for v in requests.values())
        limits_set = limits_set or any(v != 0 for v in limits.values())
        for name in ("cpu", "memory"):
            if name not in limits or requests.get(name, limits[name]) != limits[name]:
                guaranteed = False
    if guaranteed and limits_set:
        return "Guaranteed"
    return "Burstable" if requests_set or limits_set else "BestEffort"
