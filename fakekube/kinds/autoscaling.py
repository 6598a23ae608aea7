"""autoscaling HorizontalPodAutoscaler, served as v1 and v2 (kubernetes ``pkg/registry/autoscaling/
horizontalpodautoscaler/strategy.go``, ``pkg/apis/autoscaling/{v1,v2}/defaults.go``, ``pkg/apis/autoscaling/
validation/validation.go``; sources and commits in docs/semantics.md).

Generation from 1.37 (HPAGeneration, on by default: 1 on create, + 1 when the spec changes); status reset on create (v2 ``{desiredReplicas: 0, currentMetrics: null}``, v1 ``{currentReplicas: 0,
desiredReplicas: 0}``, the fields without omitempty). Defaults: ``minReplicas: 1``; in v2 a CPU utilisation
target of 80 % when no metric is given, and — only when ``behavior`` is given — the upstream scaling rules
filled into every part it leaves out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, invalid, required
from fakekube.kinds.checks import mapping
from fakekube.quantity import canonicalize
from fakekube.strategies import BuiltinStrategy, Strategy, bump_generation_if

DEFAULT_CPU_UTILIZATION = 80
METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
SCALE_UP_RULES = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
    {"type": "Pods", "value": 4, "periodSeconds": 15},
    {"type": "Percent", "value": 100, "periodSeconds": 15},
]}
SCALE_DOWN_RULES = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def _rules(given: Any, default: dict[str, Any]) -> dict[str, Any]:
    """``GenerateHPAScale{Up,Down}Rules``: the default rules, with every field the request set kept."""
    rules = {k: ([dict(p) for p in v] if isinstance(v, list) else v) for k, v in default.items()}
    if isinstance(given, dict):
        for key in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
            if given.get(key) is not None:
                rules[key] = given[key]
    return rules


def _canonical_targets(metrics: Any) -> None:
    for metric in metrics if isinstance(metrics, list) else []:
        for source in mapping(metric).values():
            target = source.get("target") if isinstance(source, dict) else None
            for key in ("value", "averageValue"):
                if isinstance(target, dict) and key in target:
                    target[key] = canonicalize(target[key])


def _api_version_problem(api_version: Any) -> str:
    """``ValidateAPIVersion`` on create: a parseable group/version naming a group (schema.ParseGroupVersion)."""
    text = api_version if isinstance(api_version, str) else ""
    if text.count("/") > 1:
        return f"unexpected GroupVersion string: {text}"
    if "/" not in text or not text.split("/")[0]:
        return "apiVersion must specify API group"
    return ""


class HorizontalPodAutoscalerStrategy(BuiltinStrategy):
    # v2 HorizontalPodAutoscalerStatus: desiredReplicas and currentMetrics have no omitempty.
    initial_status = {"desiredReplicas": 0, "currentMetrics": None}

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        if spec.get("minReplicas") is None:
            spec["minReplicas"] = 1
        if obj.get("apiVersion") == "autoscaling/v1":
            # The conversion to the internal type gives a v1 HPA without a CPU target and without other metrics
            # (kept in an annotation) the default CPU metric, which reads back as the target (observed on
            # kube-apiserver v1.37.2; pkg/apis/autoscaling/v1/conversion.go).
            annotations = mapping(mapping(obj.get("metadata")).get("annotations"))
            if spec.get("targetCPUUtilizationPercentage") is None and METRICS_ANNOTATION not in annotations:
                spec["targetCPUUtilizationPercentage"] = DEFAULT_CPU_UTILIZATION
            return
        if not spec.get("metrics"):
            spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
        _canonical_targets(spec["metrics"])
        behavior = spec.get("behavior")
        if isinstance(behavior, dict):
            behavior["scaleUp"] = _rules(behavior.get("scaleUp"), SCALE_UP_RULES)
            behavior["scaleDown"] = _rules(behavior.get("scaleDown"), SCALE_DOWN_RULES)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        if "HPAGeneration" in self.features:
            obj["metadata"]["generation"] = 1
        if obj.get("apiVersion") == "autoscaling/v1":
            obj["status"] = {"currentReplicas": 0, "desiredReplicas": 0}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # validateHorizontalPodAutoscalerSpec's own checks, then (v1.37 beta declarative validation of
        # api/autoscaling/v2/types.go, which replaces the handwritten errors it covers) the minimum and
        # required tags of minReplicas and maxReplicas, reported last.
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        minimum, maximum = spec.get("minReplicas"), spec.get("maxReplicas")
        maximum_value = maximum if isinstance(maximum, int) else 0
        if isinstance(minimum, int) and maximum_value < minimum:
            errs.append(invalid("spec.maxReplicas", maximum_value, "must be greater than or equal to `minReplicas`"))
        ref = mapping(spec.get("scaleTargetRef"))
        for key in ("kind", "name"):
            if not ref.get(key):
                errs.append(required(f"spec.scaleTargetRef.{key}", ""))
        problem = _api_version_problem(ref.get("apiVersion"))
        if problem:
            errs.append(invalid("spec.scaleTargetRef.apiVersion", ref.get("apiVersion") or "", problem))
        if isinstance(minimum, int) and minimum < 1:
            errs.append(invalid("spec.minReplicas", minimum, "must be greater than or equal to 1"))
        if not maximum_value:
            errs.append(required("spec.maxReplicas", ""))
        elif maximum_value < 0:
            errs.append(invalid("spec.maxReplicas", maximum_value, "must be greater than or equal to 1"))
        return errs

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if "HPAGeneration" in self.features:
            bump_generation_if(new, old, new.get("spec") != old.get("spec"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self.validate(new)


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "HorizontalPodAutoscaler": HorizontalPodAutoscalerStrategy,
}
