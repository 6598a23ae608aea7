"""admissionregistration.k8s.io/v1 kinds (kubernetes ``pkg/apis/admissionregistration/v1/defaults.go``,
``pkg/registry/admissionregistration/<resource>/strategy.go``; sources and commits in docs/semantics.md).

Webhooks default to ``failurePolicy: Fail``, ``matchPolicy: Equivalent``, empty namespace and object selectors,
``timeoutSeconds: 10`` (mutating ones also ``reinvocationPolicy: Never``), rules to ``scope: "*"`` and service
references to port 443; policies' and bindings' match resources as webhooks', their resource rules (and
exclusions) to ``scope: "*"``. Generation moves when the webhooks (or a policy's spec) change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError
from fakekube.kinds.checks import mapping, seq
from fakekube.kinds.policyvalidation import (
    validate_mutating_binding,
    validate_mutating_policy,
    validate_validating_binding,
    validate_validating_policy,
)
from fakekube.kinds.webhookvalidation import validate_webhooks
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy


def _default_rules(rules: Any) -> None:
    """SetDefaults_Rule: ``scope: "*"``."""
    for rule in seq(rules):
        if isinstance(rule, dict) and rule.get("scope") is None:
            rule["scope"] = "*"


def _default_match(match: Any) -> None:
    """SetDefaults_MatchResources, and SetDefaults_Rule on its resource rules and exclusions."""
    if not isinstance(match, dict):
        return
    match.setdefault("matchPolicy", "Equivalent")
    if match.get("namespaceSelector") is None:
        match["namespaceSelector"] = {}
    if match.get("objectSelector") is None:
        match["objectSelector"] = {}
    _default_rules(match.get("resourceRules"))
    _default_rules(match.get("excludeResourceRules"))


def _spec(obj: dict[str, Any]) -> Any:
    """The spec to default: a non-pointer struct, so an absent one is defaulted too (failurePolicy Fail)."""
    if obj.get("spec") is None:
        obj["spec"] = {}
    return obj["spec"]


def _default_webhook(hook: dict[str, Any], *, mutating: bool) -> None:
    hook.setdefault("failurePolicy", "Fail")
    _default_match(hook)
    hook.setdefault("timeoutSeconds", 10)
    if mutating:
        hook.setdefault("reinvocationPolicy", "Never")
    _default_rules(hook.get("rules"))
    service = mapping(hook.get("clientConfig")).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443


class _WebhookConfigurationStrategy(BuiltinStrategy):
    generation_fields = ("webhooks",)
    # validatingwebhookconfiguration/strategy.go and mutatingwebhookconfiguration/strategy.go PrepareForUpdate
    raw_deep_equal_fields = ("webhooks",)
    allow_unconditional_update = False
    mutating = False

    def default(self, obj: dict[str, Any]) -> None:
        for hook in seq(obj.get("webhooks")):
            if isinstance(hook, dict):
                _default_webhook(hook, mutating=self.mutating)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_webhooks(obj, None, mutating=self.mutating)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return validate_webhooks(new, old, mutating=self.mutating)


class ValidatingWebhookConfigurationStrategy(_WebhookConfigurationStrategy):
    pass


class MutatingWebhookConfigurationStrategy(_WebhookConfigurationStrategy):
    mutating = True


class _Validated(BuiltinStrategy):
    """A kind whose create and update run the same checks of the object (``validate``), status writes none."""

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        return [] if subresource == "status" else self.validate(new)


class ValidatingAdmissionPolicyStrategy(_Validated):
    initial_status = {}
    generation_fields = ("spec",)
    status_keeps = RESET_META_FOR_STATUS
    allow_unconditional_update = False

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_validating_policy(obj)

    def default(self, obj: dict[str, Any]) -> None:
        spec = _spec(obj)
        if isinstance(spec, dict):
            spec.setdefault("failurePolicy", "Fail")
            _default_match(spec.get("matchConstraints"))


class _PolicyWithoutStatus(_Validated):
    generation_fields = ("spec",)
    allow_unconditional_update = False

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            _default_match(spec.get("matchResources") or spec.get("matchConstraints"))


class ValidatingAdmissionPolicyBindingStrategy(_PolicyWithoutStatus):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_validating_binding(obj)


class MutatingAdmissionPolicyBindingStrategy(_PolicyWithoutStatus):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_mutating_binding(obj)


class MutatingAdmissionPolicyStrategy(_PolicyWithoutStatus):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_mutating_policy(obj)

    def default(self, obj: dict[str, Any]) -> None:
        super().default(obj)
        spec = _spec(obj)
        if isinstance(spec, dict):
            spec.setdefault("failurePolicy", "Fail")


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "ValidatingWebhookConfiguration": ValidatingWebhookConfigurationStrategy,
    "MutatingWebhookConfiguration": MutatingWebhookConfigurationStrategy,
    "ValidatingAdmissionPolicy": ValidatingAdmissionPolicyStrategy,
    "ValidatingAdmissionPolicyBinding": ValidatingAdmissionPolicyBindingStrategy,
    "MutatingAdmissionPolicy": MutatingAdmissionPolicyStrategy,
    "MutatingAdmissionPolicyBinding": MutatingAdmissionPolicyBindingStrategy,
}
