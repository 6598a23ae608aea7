"""Match conditions in CEL (k8s.io/apiserver ``pkg/admission/plugin/webhook/matchconditions/matcher.go``,
``pkg/admission/plugin/cel/filter.go``, v0.37.2), on fakekube.cel's environment with ``object``, ``oldObject``
and ``request`` declared as ``dyn``. ``authorizer`` is not declared (fakekube has no authorizer a CEL value can
ask): a condition that uses it fails to compile."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from fakekube.cel.env import environment
from fakekube.cel.validator import evaluate_program


@lru_cache(maxsize=512)
def _program(expression: str) -> tuple[Any, str | None]:
    env = environment({"object": cel.Type.DYN, "oldObject": cel.Type.DYN, "request": cel.Type.DYN})
    try:
        return env.compile(expression), None
    except RuntimeError as exc:
        return None, f"compilation failed: {exc}"


def evaluate(expression: str, data: dict[str, Any]) -> tuple[Any, str | None]:
    """(value, None), or (None, the problem)."""
    program, problem = _program(expression)
    if program is None:
        return None, problem
    return evaluate_program(program, data)  # (only false excludes: another value matches, as in cel-go's filter)
