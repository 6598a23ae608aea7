"""The estimated cost limits of a CRD's ``x-kubernetes-validations`` rules, checked when the CRD is created or
updated.

After k8s.io/apiextensions-apiserver ``pkg/apis/apiextensions/validation/validation.go`` and
``cel_validation.go``, v0.37.2: a rule's cost is its estimated cost (fakekube.cel.cost) times the number of
times its node can appear in one object, the product of the ``maxItems`` and ``maxProperties`` of the lists and
maps above it, or when one of them is unbounded what fits in a 3 MiB request (fakekube.cel.declsize). A rule
over ``StaticEstimatedCostLimit`` (10,000,000) is Forbidden, as is a ``messageExpression`` over it (its cost is
not multiplied); the sum over the schema over ``StaticEstimatedCRDCostLimit`` (100,000,000) is Forbidden on the
``openAPIV3Schema``, after a Forbidden on each of the four most expensive rules that cost at least 1% of that.
On an update, a version whose schema is unchanged is not held to the per-rule limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakekube.errors import FieldError, forbidden

RULE_LIMIT = 10_000_000       # StaticEstimatedCostLimit
CRD_LIMIT = 100_000_000       # StaticEstimatedCRDCostLimit
_MAX = 2**64 - 1
_ADVICE = ("(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, "
           "and strings are declared)")


def cost_message(name: str, cost: int, limit: int) -> str:
    """``getCostErrorMessage``."""
    exceed = float(cost) / float(limit)
    if exceed > 100.0:
        factor = "more than 100x"
    elif exceed < 1.5:
        factor = f"{exceed:f}x"
    else:
        factor = f"{exceed:.1f}x"
    return f"{name} exceeds budget by factor of {factor} {_ADVICE}"


def times(cost: int, cardinality: int) -> int:
    """``multiplyWithOverflowGuard``."""
    if cost == 0:
        return 0
    return min(cost * cardinality, _MAX)


def child_cardinality(parent: int | None, parent_schema: Any) -> int | None:
    """The cardinality of a child of ``parent_schema`` (None: unbounded), ``childContext``."""
    if parent is None or not isinstance(parent_schema, dict):
        return None if parent is None else parent
    kind = parent_schema.get("type")
    bound: int | None = 1
    if kind == "object" and parent_schema.get("additionalProperties") is not None:
        bound = _count(parent_schema.get("maxProperties"))
    elif kind == "array":
        bound = _count(parent_schema.get("maxItems"))
    return None if bound is None else times(parent, bound)


def _count(v: Any) -> int | None:
    return max(v, 0) if isinstance(v, int) and not isinstance(v, bool) else None


@dataclass
class TotalCost:
    """``TotalCost``: the sum over a schema, and its most expensive rules."""

    total: int = 0
    expensive: list[tuple[str, int]] = field(default_factory=list)
    suppress_per_expression: bool = False
    decls: dict[int, Any] = field(default_factory=dict)  # a node's declared type, built once for its rules

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, _MAX)
        if cost < CRD_LIMIT // 100:
            return
        self.expensive.append((path, cost))
        self.expensive.sort(key=lambda pc: -pc[1])  # stable, as Go's insertion sort of so few
        del self.expensive[4:]

    def errors(self, root: str) -> list[FieldError]:
        if self.total <= CRD_LIMIT:
            return []
        errs = [forbidden(path, "contributed to estimated rule cost total exceeding cost limit for entire "
                                "OpenAPIv3 schema") for path, _ in self.expensive]
        errs.append(forbidden(root, cost_message("x-kubernetes-validations estimated rule cost total for entire "
                                                 "OpenAPIv3 schema", self.total, CRD_LIMIT)))
        return errs


def estimated(program: Any, schema: dict[str, Any], root: bool, optional_old_self: bool,
              decls: dict[int, Any] | None = None) -> tuple[int, int]:
    """A compiled rule's (or messageExpression's) estimated largest cost at a node of ``schema``, and the
    node's unbounded cardinality (``maxCardinality``). ``decls``: declared types already built, by node."""
    from fakekube.cel import checked, cost, declsize

    decls = {} if decls is None else decls
    if id(schema) not in decls:
        decls[id(schema)] = (schema, declsize.decl(schema, root))
    node = decls[id(schema)][1]
    if node is None:
        return 0, 0
    tree = checked.of(program)
    expr = tree.expr
    if optional_old_self and expr.kind == "comprehension" and expr.accu_var == "oldSelf":
        expr = expr.result  # fakekube.cel.rules binds oldSelf around the rule; cel-go declares it
    found = cost.estimate(tree, declsize.SchemaModel(node, optional_old_self), root=expr)
    return found.max, declsize.max_cardinality(node)


def rule_cost_errors(compiled: Any, schema: dict[str, Any], root: bool, where: str, cardinality: int | None,
                     totals: TotalCost) -> tuple[list[FieldError], list[FieldError]]:
    """The cost errors of one compiled rule (on ``...rule``, then on ``...messageExpression``)."""
    rule_errs: list[FieldError] = []
    message_errs: list[FieldError] = []
    if compiled.program is None:
        totals.observe(f"{where}.rule", 0)
        return rule_errs, message_errs
    try:
        max_cost, unbounded = estimated(compiled.program, schema, root, compiled.optional_old_self, totals.decls)
    except (ValueError, IndexError, KeyError, RecursionError):  # a tree the decoder cannot read: never a 500
        max_cost, unbounded = 0, 0
    expression_cost = times(max_cost, cardinality if cardinality is not None else unbounded)
    if not totals.suppress_per_expression and expression_cost > RULE_LIMIT:
        rule_errs.append(forbidden(f"{where}.rule", cost_message("estimated rule cost", expression_cost,
                                                                  RULE_LIMIT)))
    totals.observe(f"{where}.rule", expression_cost)
    if compiled.message_program is not None and not compiled.message_error:
        try:
            message_cost, _ = estimated(compiled.message_program, schema, root, False, totals.decls)
        except (ValueError, IndexError, KeyError, RecursionError):
            message_cost = 0
        if not totals.suppress_per_expression and message_cost > RULE_LIMIT:
            message_errs.append(forbidden(f"{where}.messageExpression", cost_message(
                "estimated messageExpression cost", message_cost, RULE_LIMIT)))
        totals.observe(f"{where}.messageExpression", message_cost)
    return rule_errs, message_errs
