"""The runtime cost limits of a CRD's rules: when to count, and what one rule's evaluation costs.

k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (v0.37.2) gives each object a budget of
``RuntimeCELCostBudget`` (10,000,000, k8s.io/apiserver ``pkg/apis/cel/config.go``) that every rule's and
``messageExpression``'s actual cost is taken from, and each evaluation a limit of ``PerCallLimit`` (1,000,000)
at which cel-go cancels it. fakekube.cel.validator does the bookkeeping; the actual cost comes from
fakekube.cel.runtimecost.

Counting is not free (it walks each rule in Python), so it is done only where it can matter: when the CRD is
read, each rule's estimated largest cost (fakekube.kinds.crdcost, the figure the CRD was admitted with) times the
number of times its node can occur says whether any evaluation could reach the per-call limit, or all of them
together the budget. A schema where neither can happen (nearly every one: the estimated limits a CRD must pass are
the same figures) is validated without counting. cel-go's estimator does not quite bound its runtime: it charges
an equality (``x == 1``) and a field or index of a computed value one less than the runtime does; as each such
step costs at least 1 in the estimate, the runtime stays under twice the estimate, and half the limits are the
gate.
"""

from __future__ import annotations

from typing import Any

from fakekube.cel import checked, runtimecost
from fakekube.cel.celvalues import NONE, Opt

RUNTIME_BUDGET = 10_000_000   # celconfig.RuntimeCELCostBudget
PER_CALL_LIMIT = runtimecost.PER_CALL_LIMIT
_MARGIN = 2

BUDGET_EXHAUSTED = "validation failed due to running out of cost budget, no further validation rules will be run"
MESSAGE_BUDGET_EXHAUSTED = ("messageExpression evaluation failed due to running out of cost budget, no further "
                            "validation rules will be run")
CANCELLED = "operation cancelled: actual cost limit exceeded"


def call_limit_detail(rule_text: str) -> str:
    return f"'{CANCELLED}': no further validation rules will be run due to call cost exceeds limit for rule: {rule_text}"


def message_limit_detail(expression: str) -> str:
    from fakekube.gotext import go_quote

    return ("no further validation rules will be run due to call cost exceeds limit for messageExpression: "
            f"{go_quote(expression)}")


def estimated_bounds(compiled: Any, schema: dict[str, Any], root: bool, cardinality: int | None,
                     decls: dict[int, Any]) -> tuple[int, int]:
    """(the largest estimated cost of one evaluation of the rule or its messageExpression, their estimated cost
    over all the node's occurrences in one object)."""
    from fakekube.kinds import crdcost

    largest = total = 0
    for program, optional in ((compiled.program, compiled.optional_old_self), (compiled.message_program, False)):
        if program is None:
            continue
        try:
            cost, unbounded = crdcost.estimated(program, schema, root, optional, decls)
        except (ValueError, IndexError, KeyError, RecursionError):  # a tree the decoder cannot read: count it
            return runtimecost.MAX_COST, runtimecost.MAX_COST
        largest = max(largest, cost)
        total += crdcost.times(cost, cardinality if cardinality is not None else unbounded)
    return largest, total


def must_track(largest: int, total: int) -> bool:
    """Whether rules of these estimated costs (the largest evaluation, the sum over an object) can reach either
    runtime limit."""
    return largest * _MARGIN > PER_CALL_LIMIT or total * _MARGIN > RUNTIME_BUDGET


def _guarded(count: Any) -> tuple[int, bool]:
    # A tree the counter cannot walk (or a recursion too deep for Python) must not fail the request: the rule
    # runs uncounted, as before this counter existed.
    try:
        return count()
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return 0, False


def rule_cost(compiled: Any, self_value: Any, old_value: Any, has_old: bool) -> tuple[int, bool]:
    """(the actual cost, whether cel-go cancels it at the per-call limit) of one evaluation of a rule."""
    return _guarded(lambda: _rule_cost(compiled, self_value, old_value, has_old))


def _rule_cost(compiled: Any, self_value: Any, old_value: Any, has_old: bool) -> tuple[int, bool]:
    tree = checked.of(compiled.program)
    root = None
    variables: dict[str, Any] = {"self": self_value}
    if compiled.optional_old_self:
        # fakekube.cel.rules binds oldSelf around the rule (cel.bind); cel-go declares it: the rule alone is run.
        expr = tree.expr
        if expr.kind == "comprehension" and expr.accu_var == "oldSelf":
            root = expr.result
        variables["oldSelf"] = Opt(True, old_value) if has_old else NONE
    elif has_old:
        variables["oldSelf"] = old_value
    return runtimecost.actual_cost(tree, variables, root=root)


def message_cost(compiled: Any, self_value: Any, old_value: Any, has_old: bool) -> tuple[int, bool]:
    """(the actual cost, whether it is cancelled) of one evaluation of a rule's messageExpression."""
    variables = {"self": self_value, "oldSelf": old_value} if has_old else {"self": self_value}
    return _guarded(lambda: runtimecost.actual_cost(checked.of(compiled.message_program), variables))
