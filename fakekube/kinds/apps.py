"""apps/v1 kinds (kubernetes ``pkg/registry/apps/<resource>/strategy.go``, ``pkg/apis/apps/v1/defaults.go``,
``pkg/apis/apps/validation/validation.go``; sources and commits in docs/semantics.md).

Every kind here resets status on create (Deployment ``status: {}``, ReplicaSet ``{replicas: 0}``, StatefulSet
``{replicas: 0, availableReplicas: 0}``, DaemonSet the four counters: the Go fields without ``omitempty``),
keeps the stored status on main writes and the stored spec on ``/status`` writes. Generation moves on spec
changes, for a Deployment also on annotation changes; a Deployment's ``/status`` write cannot change labels.
The selector is immutable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, forbidden, invalid, not_supported, required
from fakekube.kinds.checks import (
    dict_at,
    dns_label,
    go_int_or_string,
    go_label_selector,
    go_struct,
    immutable,
    int_or_percent,
    int_or_percent_value,
    int_or_string_json,
    mapping,
    non_negative,
    percent_at_most_100,
    selector_is_empty,
    seq,
    spec_of,
    validate_label_selector,
)
from fakekube.kinds.podspec import default_pod_template, default_pvc_spec
from fakekube.kinds.workloads import validate_selected_template, validate_template
from fakekube.strategies import BuiltinStrategy, Strategy

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def _selector_immutable(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    selector, old_selector = mapping(new.get("spec")).get("selector"), mapping(old.get("spec")).get("selector")
    return immutable(selector, old_selector, "spec.selector", go_label_selector(selector))


def _rolling_struct(rolling: Any, fields: tuple[str, ...]) -> Any:
    """An internal ``RollingUpdate*`` as ``json.Marshal`` writes it in a bad value (Go field names, declaration
    order): a nil pointer is null, an ``intstr.IntOrString`` the conversion left unset is 0."""
    if not isinstance(rolling, dict):
        return None
    return {name: int_or_string_json(rolling.get(name[0].lower() + name[1:])) for name in fields}


def _strategy_struct(strategy: dict[str, Any], rolling: Any) -> Any:
    """An internal ``*UpdateStrategy`` (``Type``, ``RollingUpdate``) quoted in a bad value."""
    return go_struct(("Type", strategy.get("type") or ""), ("RollingUpdate", rolling))


def _sts_rolling_update(rolling: Any) -> list[FieldError]:
    """``validateRollingUpdateStatefulSet``: partition ≥ 0; maxUnavailable, when set, positive, not 0, ≤ 100%."""
    rolling = mapping(rolling)
    here = "spec.updateStrategy.rollingUpdate"
    errs = non_negative(rolling.get("partition") or 0, f"{here}.partition")
    unavailable = rolling.get("maxUnavailable")
    if unavailable is not None:
        errs += int_or_percent(unavailable, f"{here}.maxUnavailable")
        if int_or_percent_value(unavailable) == 0:
            errs.append(invalid(f"{here}.maxUnavailable", go_int_or_string(unavailable), "cannot be 0"))
        errs += percent_at_most_100(unavailable, f"{here}.maxUnavailable")
    return errs


def _sts_rolling(rolling: Any) -> Any:
    """An internal ``RollingUpdateStatefulSetStrategy``: ``Partition`` an int32 (0 when unset), ``MaxUnavailable``
    a pointer (null when unset)."""
    if not isinstance(rolling, dict):
        return None
    unavailable = rolling.get("maxUnavailable")
    return {"Partition": rolling.get("partition") or 0,
            "MaxUnavailable": None if unavailable is None else int_or_string_json(unavailable)}


class _Workload(BuiltinStrategy):
    generation_fields = ("spec",)

    def validate_spec(self, obj: dict[str, Any]) -> list[FieldError]:
        raise NotImplementedError

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self.validate_spec(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        return self.validate_spec(new) + _selector_immutable(new, old)


# ----------------------------------------------------------------------------------- Deployment

class DeploymentStrategy(_Workload):
    initial_status = {}
    generation_fields = ("spec", "metadata.annotations")
    status_keeps = ("labels",)

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        spec.setdefault("replicas", 1)
        strategy = dict_at(spec, "strategy")
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = dict_at(strategy, "rollingUpdate")
            rolling.setdefault("maxUnavailable", "25%")
            rolling.setdefault("maxSurge", "25%")
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
        default_pod_template(spec.get("template"))

    def validate_spec(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs = non_negative(spec.get("replicas"), "spec.replicas")
        errs += validate_selected_template(spec, "spec", "deployment")
        errs += _deployment_strategy(mapping(spec.get("strategy")), "spec.strategy")
        errs += non_negative(spec.get("minReadySeconds"), "spec.minReadySeconds")
        errs += non_negative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
        deadline = spec.get("progressDeadlineSeconds")
        if deadline is not None:
            errs += non_negative(deadline, "spec.progressDeadlineSeconds")
            if isinstance(deadline, int) and deadline <= (spec.get("minReadySeconds") or 0):
                errs.append(invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
        return errs


def _deployment_strategy(strategy: dict[str, Any], path: str) -> list[FieldError]:
    kind = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind != "RollingUpdate":
        value = _strategy_struct(strategy, _rolling_struct(rolling, ("MaxUnavailable", "MaxSurge")))
        return [not_supported(path, value, ["Recreate", "RollingUpdate"])]
    if not isinstance(rolling, dict):
        return [required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
    here = f"{path}.rollingUpdate"
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errs = int_or_percent(unavailable, f"{here}.maxUnavailable") + int_or_percent(surge, f"{here}.maxSurge")
    if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
        errs.append(invalid(f"{here}.maxUnavailable", go_int_or_string(unavailable),
                            "may not be 0 when `maxSurge` is 0"))
    return errs + percent_at_most_100(unavailable, f"{here}.maxUnavailable")


# ----------------------------------------------------------------------------------- ReplicaSet

class ReplicaSetStrategy(_Workload):
    initial_status = {"replicas": 0}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        spec.setdefault("replicas", 1)
        default_pod_template(spec.get("template"))

    def validate_spec(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs = non_negative(spec.get("replicas"), "spec.replicas")
        errs += non_negative(spec.get("minReadySeconds"), "spec.minReadySeconds")
        # sic: upstream's empty-selector text names deployments for ReplicaSets too
        return errs + validate_selected_template(spec, "spec", "deployment")


# ----------------------------------------------------------------------------------- StatefulSet

_STS_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


class StatefulSetStrategy(_Workload):
    initial_status = {"replicas": 0, "availableReplicas": 0}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if not spec.get("podManagementPolicy"):
            spec["podManagementPolicy"] = "OrderedReady"
        strategy = dict_at(spec, "updateStrategy")
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            if not isinstance(strategy.get("rollingUpdate"), dict):
                strategy["rollingUpdate"] = {}
        rolling = strategy.get("rollingUpdate")
        if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
            if rolling.get("partition") is None:
                rolling["partition"] = 0
            if "MaxUnavailableStatefulSet" in self.features and rolling.get("maxUnavailable") is None:
                rolling["maxUnavailable"] = 1
        retention = dict_at(spec, "persistentVolumeClaimRetentionPolicy")
        retention.setdefault("whenDeleted", "Retain")
        retention.setdefault("whenScaled", "Retain")
        spec.setdefault("replicas", 1)
        spec.setdefault("revisionHistoryLimit", 10)
        default_pod_template(spec.get("template"))
        for claim in seq(spec.get("volumeClaimTemplates")):
            if isinstance(claim, dict):
                default_pvc_spec(claim.get("spec"))
                status = dict_at(claim, "status")
                if not status.get("phase"):
                    status["phase"] = "Pending"

    def validate_spec(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        policy = spec.get("podManagementPolicy")
        if policy not in ("OrderedReady", "Parallel"):
            errs.append(invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
        strategy = mapping(spec.get("updateStrategy"))
        kind = strategy.get("type")
        if not kind:
            errs.append(required("spec.updateStrategy", ""))
        elif kind == "OnDelete":
            if strategy.get("rollingUpdate") is not None:
                rolling = _sts_rolling(strategy["rollingUpdate"])
                errs.append(invalid("spec.updateStrategy.rollingUpdate", go_struct(*rolling.items()),
                                    "only allowed for updateStrategy 'RollingUpdate'"))
        elif kind == "RollingUpdate":
            errs += _sts_rolling_update(strategy.get("rollingUpdate"))
        else:
            errs.append(invalid("spec.updateStrategy",
                                _strategy_struct(strategy, _sts_rolling(strategy.get("rollingUpdate"))),
                                "must be 'RollingUpdate' or 'OnDelete'"))
        retention = spec.get("persistentVolumeClaimRetentionPolicy")
        if isinstance(retention, dict):
            for key in ("whenDeleted", "whenScaled"):
                if retention.get(key) not in ("Retain", "Delete"):
                    errs.append(not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{key}",
                                              retention.get(key) or "", ["Retain", "Delete"]))
        errs += non_negative(spec.get("replicas"), "spec.replicas")
        errs += non_negative(spec.get("minReadySeconds"), "spec.minReadySeconds")
        if isinstance(spec.get("ordinals"), dict):
            errs += non_negative(spec["ordinals"].get("start") or 0, "spec.ordinals.start")
        if spec.get("serviceName"):
            errs += dns_label(spec["serviceName"], "spec.serviceName")
        return errs + validate_selected_template(spec, "spec", "statefulset", deadline_kind="StatefulSet",
                                                 bad_selector="")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        if subresource == "status":
            return []
        errs = self.validate_spec(new)
        spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
        rest = {k: v for k, v in spec.items() if k not in _STS_MUTABLE}
        old_rest = {k: v for k, v in old_spec.items() if k not in _STS_MUTABLE}
        if rest != old_rest:
            errs.append(forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                          "'template', 'updateStrategy', 'revisionHistoryLimit', "
                                          "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                                          "forbidden"))
        return errs


# ----------------------------------------------------------------------------------- DaemonSet

class DaemonSetStrategy(_Workload):
    initial_status = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                      "numberReady": 0}

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        strategy = dict_at(spec, "updateStrategy")
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = dict_at(strategy, "rollingUpdate")
            rolling.setdefault("maxUnavailable", 1)
            rolling.setdefault("maxSurge", 0)
        spec.setdefault("revisionHistoryLimit", 10)
        default_pod_template(spec.get("template"))

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_status_update(new, old)
        # daemonSetStatusStrategy keeps the stored spec, templateGeneration included, which the conversion writes
        # back as the annotation whatever the request's annotations were.
        stored = mapping(old["metadata"].get("annotations")).get(TEMPLATE_GENERATION)
        if stored is not None:
            dict_at(new["metadata"], "annotations")[TEMPLATE_GENERATION] = stored

    def manager_annotations(self, obj: dict[str, Any]) -> dict[str, str] | None:
        # apps/v1 conversion.go Convert_apps_DaemonSet_To_v1_DaemonSet writes the internal templateGeneration (read
        # from the body's annotation, 0 without one) back as the annotation: the field manager sees it even when
        # the body has none, and the request's manager owns it.
        return {TEMPLATE_GENERATION: str(_template_generation(mapping(obj["metadata"].get("annotations"))))}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        # apps/v1 carries the internal spec.templateGeneration in this annotation; a create starts it at 1.
        annotations = dict_at(obj["metadata"], "annotations")
        if _template_generation(annotations) < 1:
            annotations[TEMPLATE_GENERATION] = "1"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        stored = _template_generation(mapping(old["metadata"].get("annotations")))
        if stored:
            changed = mapping(new.get("spec")).get("template") != mapping(old.get("spec")).get("template")
            dict_at(new["metadata"], "annotations")[TEMPLATE_GENERATION] = str(stored + 1 if changed else stored)

    def validate_spec(self, obj: dict[str, Any]) -> list[FieldError]:
        # ValidateDaemonSetSpec: unlike the other workloads a missing selector is not itself an error (it only
        # matches no labels), and one that does not parse is not compared with the labels at all.
        spec = mapping(obj.get("spec"))
        selector = spec.get("selector")
        errs = validate_label_selector(selector, "spec.selector") if selector is not None else []
        after_labels = []
        if selector is not None and selector_is_empty(selector):
            after_labels.append(invalid("spec.selector", go_label_selector(selector),
                                        "empty selector is invalid for daemonset"))
        errs += validate_template(spec, "spec", compare_labels=not errs, after_labels=after_labels,
                                  kind_for_deadline="DaemonSet", deadline_forbidden=True)
        errs += non_negative(spec.get("minReadySeconds"), "spec.minReadySeconds")
        strategy = mapping(spec.get("updateStrategy"))
        kind = strategy.get("type")
        if kind not in ("OnDelete", "RollingUpdate"):
            rolling = _rolling_struct(strategy.get("rollingUpdate"), ("MaxUnavailable", "MaxSurge"))
            errs.append(not_supported("spec.updateStrategy", _strategy_struct(strategy, rolling),
                                      ["RollingUpdate", "OnDelete"]))
        elif kind == "RollingUpdate":
            rolling = mapping(strategy.get("rollingUpdate"))
            here = "spec.updateStrategy.rollingUpdate"
            unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
            errs += int_or_percent(unavailable, f"{here}.maxUnavailable") + int_or_percent(surge, f"{here}.maxSurge")
            errs += percent_at_most_100(unavailable, f"{here}.maxUnavailable")
            errs += percent_at_most_100(surge, f"{here}.maxSurge")
            has_unavailable, has_surge = int_or_percent_value(unavailable) != 0, int_or_percent_value(surge) != 0
            if has_unavailable and has_surge:
                errs.append(invalid(f"{here}.maxSurge", go_int_or_string(surge),
                                    "may not be set when maxUnavailable is non-zero"))
            elif not has_unavailable and not has_surge:
                errs.append(required(f"{here}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
        return errs


def _template_generation(annotations: dict[str, Any]) -> int:
    try:
        return int(annotations.get(TEMPLATE_GENERATION, 0))
    except (TypeError, ValueError):
        return 0


# ----------------------------------------------------------------------------------- ControllerRevision

class ControllerRevisionStrategy(Strategy):
    raw_extension_fields = ("data",)  # immutable, compared as the bytes stored (fakekube.verbs.rawdata)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        # ValidateControllerRevisionCreate: data must be a JSON object (absent or null: "mandatory").
        errs = non_negative(obj.get("revision"), "revision")
        data = obj.get("data")
        if data is None:
            errs.append(required("data", "data is mandatory"))
        elif not isinstance(data, dict):
            errs.append(required("data", "data must be a valid JSON object"))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        errs = non_negative(new.get("revision"), "revision")
        errs.extend(immutable(new.get("data"), old.get("data"), "data"))
        return errs


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Deployment": DeploymentStrategy,
    "ReplicaSet": ReplicaSetStrategy,
    "StatefulSet": StatefulSetStrategy,
    "DaemonSet": DaemonSetStrategy,
    "ControllerRevision": ControllerRevisionStrategy,
}
