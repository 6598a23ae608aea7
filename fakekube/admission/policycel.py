"""A ValidatingAdmissionPolicy's CEL: compiled once per policy version, evaluated per request and binding.

After k8s.io/apiserver ``pkg/admission/plugin/policy/validating/plugin.go`` (compilePolicy),
``validator.go`` (Validate), ``pkg/admission/plugin/cel/compile.go``, ``activation.go`` and
``composition.go`` (v0.37.2). The variables every expression sees: ``object``, ``oldObject``, ``request``,
``namespaceObject``, ``variables`` and, when the policy has a ``paramKind``, ``params``. Texts as upstream's:
a compile error is ``compilation error: compilation failed: <issues>`` (or ``must evaluate to bool but got
string``), a runtime one ``expression '<expr>' resulted in error: <error>``, a variable that fails
``composited variable "<name>" fails to evaluate: <error>``.

Differences (docs/admission.md): ``variables`` is a ``map(string, dyn)`` here, so a misspelt variable is a
runtime "no such key", not a compile error; variables are evaluated in order before the expressions (upstream
evaluates each lazily, on first use: the outcome is the same, a failed variable failing only the expressions
that reach it); there is no cost budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from fakekube.admission import authorizer as authz
from fakekube.cel import formatlib, k8slib, library, rewrites
from fakekube.cel.rules import issues_text
from fakekube.cel.validator import evaluate_program  # errors in cel-go's words

T = cel.Type
_VARIABLE_REF = re.compile(r"\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")
MAX_MESSAGE_BYTES = 5 * 1024  # apiserver pkg/apis/cel/config.go MaxEvaluatedMessageExpressionSizeBytes


@dataclass
class Expression:
    """One compiled expression: its text, its program (None when it did not compile) and the error."""

    text: str
    program: Any = None
    error: str = ""
    uses: tuple[str, ...] = ()  # the variables it names (textually)


@dataclass
class Compiled:
    variables: list[tuple[str, Expression]] = field(default_factory=list)
    match_conditions: list[tuple[str, Expression]] = field(default_factory=list)
    validations: list[tuple[dict[str, Any], Expression, Expression | None]] = field(default_factory=list)
    audit_annotations: list[tuple[str, Expression]] = field(default_factory=list)


@lru_cache(maxsize=16)
def _environment(has_params: bool, with_variables: bool, with_authorizer: bool) -> Any:
    """fakekube.cel.env's base environment (the same libraries and extensions) with the admission variables
    and the authorizer library (compile.go: ``authorizer`` is declared for all but messageExpression)."""
    names: dict[str, Any] = {"object": T.DYN, "oldObject": T.DYN, "request": T.DYN, "namespaceObject": T.DYN}
    if with_variables:
        names["variables"] = T.Map(T.STRING, T.DYN)
    if has_params:
        names["params"] = T.DYN
    if with_authorizer:
        names["authorizer"] = authz.AUTHORIZER
        names["authorizer.requestResource"] = authz.RESOURCE_CHECK
    return cel.NewEnv(variables=names, functions=library.functions() + k8slib.functions() + authz.functions()
                      + formatlib.functions(),
                      extensions=[ext_strings.ExtStrings(2), ext_optional.ExtOptional(), ext_bindings.ExtBindings(),
                                  library.extension(), k8slib.extension()])


def _type_name(t: Any) -> str:
    """A type as cel-go prints it: ``map(string, dyn)``, ``list(int)``, ``null_type``."""
    text = str(t.name())
    text = re.sub(r"\bNULL\b", "null_type", text).replace("<", "(").replace(">", ")")
    return text.lower()


_UNDECLARED = re.compile(r"ERROR: <input>:(\d+):(\d+): undeclared reference to '([A-Za-z_][\w.]*)' "
                         r"\(in container ''\)\n \| ([^\n]*)\n \| \.*\^")


def _undeclared_as_cel_go(text: str) -> str:
    """cel-cpp names an undeclared ``params.x`` whole, at its last dot; cel-go names ``params``, at its start."""
    def fix(m: re.Match[str]) -> str:
        name = m.group(3)
        if "." not in name:
            return m.group(0)
        head = name.split(".", 1)[0]
        column = int(m.group(2)) - len(name.rsplit(".", 1)[0])
        if column < 1:
            return m.group(0)
        return (f"ERROR: <input>:{m.group(1)}:{column}: undeclared reference to '{head}' (in container '')\n"
                f" | {m.group(4)}\n | {'.' * (column - 1)}^")
    return _UNDECLARED.sub(fix, text)


def compile_expression(text: str, has_params: bool, returns: tuple[Any, ...],
                       with_variables: bool = True, with_authorizer: bool = True) -> Expression:
    """Compile ``text``; ``returns``: the result types it may have (upstream ReturnTypes, compile.go: the
    type must be one of them exactly, so a ``dyn`` result — ``object.spec.enabled`` — is refused)."""
    out = Expression(text, uses=tuple(dict.fromkeys(_VARIABLE_REF.findall(text))))
    refused = rewrites.issues(text)
    if refused:
        out.error = "compilation failed: " + refused
        return out
    rewritten = rewrites.rewrite(text)  # macros cel-cpp lacks; optional results
    env = _environment(has_params, with_variables, with_authorizer)
    try:
        program = env.compile(text if rewritten is None else rewritten.text)
    except RuntimeError as exc:
        issues = issues_text(exc)
        if rewritten is not None:
            try:  # a syntax error is reported on the expression as written
                env.compile(text, disable_check=True)
                issues = rewrites.map_errors(issues, rewritten, text)
            except RuntimeError as syntax:
                issues = issues_text(syntax)
        out.error = "compilation failed: " + _undeclared_as_cel_go(issues)
        return out
    result = program.return_type()
    # A variable has its expression's type in cel-go, dyn here: an expression naming one is given the benefit.
    typed_here = not (result == T.DYN and out.uses)
    if returns and typed_here and result not in returns:
        wanted = [_type_name(t) for t in returns]
        got = _type_name(result)
        out.error = (f"must evaluate to {wanted[0]} but got {got}" if len(wanted) == 1
                     else f"must evaluate to one of [{' '.join(wanted)}] but got {got}")
        return out
    out.program = program
    return out


def compile_policy(spec: dict[str, Any]) -> Compiled:
    has_params = spec.get("paramKind") is not None
    out = Compiled()
    for v in spec.get("variables") or ():
        out.variables.append((str(v.get("name") or ""), compile_expression(str(v.get("expression") or ""),
                                                                          has_params, ())))
    for m in spec.get("matchConditions") or ():
        out.match_conditions.append((str(m.get("name") or ""),
                                     compile_expression(str(m.get("expression") or ""), has_params, (T.BOOL,))))
    for v in spec.get("validations") or ():
        message = str(v.get("messageExpression") or "")
        out.validations.append((v, compile_expression(str(v.get("expression") or ""), has_params, (T.BOOL,)),
                                compile_expression(message, has_params, (T.STRING,), with_authorizer=False)
                                if message else None))
    for a in spec.get("auditAnnotations") or ():
        out.audit_annotations.append((str(a.get("key") or ""), compile_expression(
            str(a.get("valueExpression") or ""), has_params, (T.STRING, T.NULL))))
    return out


class Activation:
    """The variables of one evaluation, with the policy's ``variables`` evaluated in order (each failure kept
    as the error an expression naming it reports)."""

    def __init__(self, compiled: Compiled, data: dict[str, Any]) -> None:
        self.data = dict(data)
        values: dict[str, Any] = {}
        self.failed: dict[str, str] = {}
        self.data["variables"] = values
        for name, expr in compiled.variables:
            if expr.error:
                self.failed[name] = f'composited variable "{name}" fails to compile: {expr.error}'
                continue
            value, err = self._run(expr)
            if err is not None:
                self.failed[name] = f'composited variable "{name}" fails to evaluate: {err}'
            else:
                values[name] = value

    def _run(self, expr: Expression) -> tuple[Any, str | None]:
        value, err = evaluate_program(expr.program, self.data)
        return value, (None if err is None else self._failure(err))

    def _failure(self, err: str) -> str:
        # A failed variable is left out of ``variables``: an expression that reaches it (and only such a one,
        # as upstream's lazy evaluation) fails with the variable's own error.
        if err.startswith("no such key: ") and err[len("no such key: "):] in self.failed:
            return self.failed[err[len("no such key: "):]]
        return err

    def evaluate(self, expr: Expression) -> tuple[Any, str | None]:
        """The value, or the error text as upstream's evaluation result words it."""
        if expr.error:
            return None, f"compilation error: {expr.error}"
        value, err = self._run(expr)
        if err is not None:
            return None, f"expression '{expr.text}' resulted in error: {err}"
        return value, None


def message_of(validation: dict[str, Any], expr: Expression, message: Expression | None, act: Activation) -> str:
    """validator.go: the messageExpression's one-line string, else ``message``, else ``failed expression: ...``."""
    text = ""
    if message is not None:
        value, err = act.evaluate(message)
        if err is None and isinstance(value, str):
            text = value.strip()
            if len(text.encode()) > MAX_MESSAGE_BYTES or "\n" in text:
                text = ""
    if not text and validation.get("message"):
        text = str(validation["message"]).strip()
    return text or f"failed expression: {expr.text.strip()}"


def match_conditions(act: Activation, compiled: Any) -> tuple[bool, list[str]]:
    """A policy's matchConditions for one request (matchconditions/matcher.go): (True, []) when one is false — the
    request is not the policy's, whatever the others' errors —, else (False, the evaluation errors)."""
    errs: list[str] = []
    for _, expr in compiled.match_conditions:
        value, err = act.evaluate(expr)
        if err is not None:
            errs.append(err)
        elif value is False:
            return True, []
    return False, errs
