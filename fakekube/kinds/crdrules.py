"""A CRD schema's ``x-kubernetes-validations`` rules compiled when the CRD is created or updated.

After k8s.io/apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation.go``
(``ValidateCustomResourceDefinitionOpenAPISchema``, the CEL part), v0.37.2: each node's rules are compiled for
the node's type (fakekube.cel.rules) only when the schema is structural with valid defaults and the node has no
schema error at or below it; a rule that does not compile is an Invalid error on ``...rule`` whose value is the
internal ``ValidationRule`` struct, a bad ``messageExpression`` one on ``...messageExpression``; a transition
rule (``oldSelf``) below an item of a list that is not a map list, or a member of a map whose
``x-kubernetes-map-type`` does not correlate, is refused; ``optionalOldSelf`` without ``oldSelf`` too.
These errors come after every other schema error (``AllErrors``: schema errors, then CEL errors).

The estimated cost limits, per rule and per schema: fakekube.kinds.crdcost.
"""

from __future__ import annotations

from typing import Any

from fakekube.errors import FieldError, GoLiteral, go_json, invalid
from fakekube.kinds import crdcost

_CORRELATABLE_MAPS = (None, "granular", "atomic")


def _struct(rule: dict[str, Any]) -> GoLiteral:
    # apiextensions.ValidationRule, the internal type: no JSON tags, so Go's field names in declaration order.
    return GoLiteral(go_json({
        "Rule": rule.get("rule") or "", "Message": rule.get("message") or "",
        "MessageExpression": rule.get("messageExpression") or "", "Reason": rule.get("reason"),
        "FieldPath": rule.get("fieldPath") or "", "OptionalOldSelf": rule.get("optionalOldSelf"),
    }, sort_keys=False))


def _embedded(s: Any) -> bool:
    return isinstance(s, dict) and s.get("x-kubernetes-embedded-resource") is True


def _has_error_under(path: str, schema_errors: list[FieldError]) -> bool:
    return any(e.field == path or e.field.startswith((path + ".", path + "[")) for e in schema_errors)


def _node(s: Any, path: str, uncorrelatable: str | None, schema_errors: list[FieldError],
          errs: list[FieldError], totals: crdcost.TotalCost, cardinality: int | None, root: bool = False) -> None:
    if not isinstance(s, dict):
        return
    below = crdcost.child_cardinality(cardinality, s)
    # Below a map that is not correlatable (atomic), an old value cannot be matched to the new one.
    below_map = uncorrelatable
    if below_map is None and s.get("x-kubernetes-map-type") not in _CORRELATABLE_MAPS:
        below_map = path
    for name, prop in sorted((s.get("properties") or {}).items()):
        _node(prop, f"{path}.properties[{name}]", below_map, schema_errors, errs, totals, below, _embedded(prop))
    extra = s.get("additionalProperties")
    if isinstance(extra, dict):
        _node(extra, f"{path}.additionalProperties", below_map, schema_errors, errs, totals, below,
              _embedded(extra))
    items = s.get("items")
    if isinstance(items, dict):
        below_list = uncorrelatable
        if below_list is None and s.get("x-kubernetes-list-type") != "map":
            below_list = path
        _node(items, f"{path}.items", below_list, schema_errors, errs, totals, below, _embedded(items))
    rules = s.get("x-kubernetes-validations")
    if not isinstance(rules, list) or not rules or _has_error_under(path, schema_errors):
        return
    from fakekube.cel import rules as celrules  # the CEL runtime loads with the first rule
    from fakekube.cel import types as celtypes

    self_type = celtypes.cel_type(s)
    if self_type is None:
        return
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        where = f"{path}.x-kubernetes-validations[{i}]"
        compiled = celrules.compile_rule(rule, self_type, s, root)
        rule_cost, message_cost = crdcost.rule_cost_errors(compiled, s, root, where, cardinality, totals)
        errs += rule_cost
        if compiled.error:
            errs.append(invalid(f"{where}.rule", _struct(rule), compiled.error))
        if compiled.message_error:
            errs.append(invalid(f"{where}.messageExpression", _struct(rule), compiled.message_error))
        errs += message_cost
        if compiled.program is None:
            continue
        if compiled.uses_old_self:
            if uncorrelatable is not None:
                errs.append(invalid(f"{where}.rule", rule.get("rule") or "", "oldSelf cannot be used on the "
                                    f"uncorrelatable portion of the schema within {uncorrelatable}"))
        elif rule.get("optionalOldSelf") is not None:
            errs.append(invalid(f"{where}.optionalOldSelf", rule["optionalOldSelf"],
                                "may not be set if oldSelf is not used in rule"))


def rule_errors(schema: Any, root: str, schema_errors: list[FieldError],
                suppress_per_expression_cost: bool = False) -> list[FieldError]:
    """The CEL errors of the rules in ``schema`` (an ``openAPIV3Schema`` at ``root``), given the schema's
    other errors, then the error of a total estimated cost over the limit (fakekube.kinds.crdcost).
    ``suppress_per_expression_cost``: an update that leaves this schema unchanged."""
    errs: list[FieldError] = []
    if isinstance(schema, dict) and '"x-kubernetes-validations"' in go_json(schema):
        totals = crdcost.TotalCost(suppress_per_expression=suppress_per_expression_cost)
        _node(schema, root, None, schema_errors, errs, totals, 1, True)
        errs += totals.errors(root)
    return errs
