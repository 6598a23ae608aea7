"""Compiling ``x-kubernetes-validations`` rules, with the errors the real server reports.

After k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/compilation.go`` (``compileRule``), v0.37.2:
a rule that does not parse or type-check is ``compilation failed: <issues>`` (cel-go's issue text, which
cel-cpp's parser and checker word the same way), one whose type is not bool ``cel expression must evaluate to
a bool``; a ``messageExpression`` likewise with the ``messageExpression`` prefixes. A rule uses ``oldSelf``
when it does not compile without it (so it is a transition rule, evaluated on updates only).

``optionalOldSelf``: ``oldSelf`` is ``optional(T)``. cel-expr-python cannot bind a variable of an optional type,
so the rule is compiled as ``cel.bind(oldSelf, <optional of the old value>, <rule>)`` with the rule on a line of
its own, which keeps its columns; the line numbers of its errors are put back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cel_expr_python import cel

from fakekube.cel import fields, macros, overloaderrors, rewrites
from fakekube.cel import types as celtypes
from fakekube.cel.env import environment

T = cel.Type
SELF, OLD_SELF = "self", "oldSelf"
_OLD_VALUE, _HAS_OLD = "__fakekube_old", "__fakekube_has_old"
_OPTIONAL_PREFIX = f"cel.bind({OLD_SELF}, {_HAS_OLD} ? optional.of({_OLD_VALUE}) : optional.none(),\n"
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")
_ERROR_LINE = re.compile(r"^ERROR: <input>:(\d+):", re.MULTILINE)


class _Issues(Exception):
    """Compile errors already in cel-go's words."""


def issues_text(exc: Exception) -> str:
    """cel-expr-python's error text without absl's status code around it."""
    if isinstance(exc, _Issues):
        return str(exc)
    text = _STATUS_SUFFIX.sub("", str(exc))
    return overloaderrors.as_cel_go(_STATUS_PREFIX.sub("", text, count=1))


@dataclass
class Compiled:
    """One rule's compilation: its program (None for an empty rule or an error), what went wrong, and how to
    evaluate it."""

    program: Any = None
    error: str = ""
    message_program: Any = None
    message_error: str = ""
    uses_old_self: bool = False
    optional_old_self: bool = False


_CROSS_NUMERIC = re.compile(r"^ERROR: <input>:\d+:\d+: found no matching overload for '_(?:<|<=|>|>=)_' applied "
                            r"to '\((?:int|uint|double), (?:int|uint|double)\)'$")


def _compile(expression: str, variables: dict[str, Any]) -> Any:
    env = environment(variables)
    refused = rewrites.issues(expression)
    if refused:
        raise _Issues(refused)
    rewritten = rewrites.rewrite(expression)  # macros cel-cpp lacks; optional results
    source = expression if rewritten is None else rewritten.text
    try:
        return env.compile(source)
    except RuntimeError as exc:
        # The base environment has cel.CrossTypeNumericComparisons(true) (k8s.io/apiserver pkg/cel/environment
        # base.go): 1 < 1.5 type-checks. cel-cpp's runtime compares across numeric types but its checker has
        # no such overloads, so an expression whose only errors are those is taken unchecked.
        text = issues_text(exc)
        if rewritten is not None:
            try:  # a syntax error is reported on the source as written
                env.compile(expression, disable_check=True)
            except RuntimeError as syntax:
                raise _Issues(issues_text(syntax)) from None
            text = rewrites.map_errors(text, rewritten, expression)
        blocks = _blocks(text)
        kept = [b for b in blocks if not _CROSS_NUMERIC.match(b.split("\n", 1)[0])]
        if blocks and not kept:
            return env.compile(source, disable_check=True)
        if blocks and len(kept) < len(blocks):
            raise _Issues("\n".join(kept)) from None
        if rewritten is not None:
            raise _Issues(text) from None
        raise


def _blocks(text: str) -> list[str]:
    """cel-go's issues, one ``ERROR: <input>:L:C: ...`` block (with its source line and caret) each."""
    starts = [m.start() for m in _BLOCK.finditer(text)]
    return [text[at:starts[k + 1] if k + 1 < len(starts) else len(text)].rstrip("\n")
            for k, at in enumerate(starts)]


def _compile_optional(rule: str, self_type: Any) -> Any:
    try:
        return _compile(_OPTIONAL_PREFIX + rule + "\n)", {SELF: self_type, _OLD_VALUE: self_type, _HAS_OLD: T.BOOL})
    except (RuntimeError, _Issues) as exc:
        text = _ERROR_LINE.sub(lambda m: f"ERROR: <input>:{int(m.group(1)) - 1}:", issues_text(exc))
        raise _Issues(text) from None


def _uses_old_self(expression: str, self_type: Any) -> bool:
    try:
        _compile(expression, {SELF: self_type})
    except (RuntimeError, _Issues):
        return True
    return False


def _accepts(result: Any, wanted: Any) -> bool:
    # A member of an object is ``dyn`` here (fakekube.cel.types), where cel-go knows its type: a dyn result
    # is checked when the rule runs.
    return result == wanted or result == T.DYN


_BLOCK = re.compile(r"^ERROR: <input>:(\d+):(\d+): ", re.MULTILINE)


def _merge(compiler_text: str, found: list[tuple[int, int, str]]) -> str:
    """The compiler's errors and the field checks' (fakekube.cel.fields) in cel-go's order: by position."""
    blocks: list[tuple[int, int, str]] = []
    for block in _blocks(compiler_text):
        m = _BLOCK.match(block)
        assert m is not None
        blocks.append((int(m.group(1)), int(m.group(2)), block))
    if not blocks and compiler_text:
        return compiler_text
    seen = {(b[0], b[1]) for b in blocks}
    blocks += [f for f in found if (f[0], f[1]) not in seen]
    return "\n".join(b[2] for b in sorted(blocks, key=lambda b: (b[0], b[1])))


def _typed_check(text: str, variables: dict[str, Any], schema: dict[str, Any], root: bool,
                 optional: bool) -> Any:
    """The result type of ``text`` with its field chains typed (fakekube.cel.fields.typed_rewrite), or None
    when that cannot tell; raise ``_Issues`` with the type errors cel-go's checker reports and a
    ``map(string, dyn)`` object hides."""
    names = (SELF,) if optional else (SELF, OLD_SELF)
    rewritten, members = fields.typed_rewrite(text, schema, root=root, variables=names)
    if not members:
        return None
    declared = dict(variables)
    for name, member in members.items():
        member_type = celtypes.cel_type(member)
        if member_type is None:
            return None
        declared[name] = member_type
    if optional:
        declared.pop(OLD_SELF, None)
        rewritten = _OPTIONAL_PREFIX + rewritten + "\n)"
        declared.update({_OLD_VALUE: variables[SELF], _HAS_OLD: T.BOOL})
    try:
        return _compile(rewritten, declared).return_type()
    except (RuntimeError, _Issues) as exc:
        message = issues_text(exc)
    if optional:
        message = _ERROR_LINE.sub(lambda m: f"ERROR: <input>:{int(m.group(1)) - 1}:", message)
        rewritten = rewritten[len(_OPTIONAL_PREFIX):-2]
    if any(name in message.replace(f" | {line}\n", "") for name in members for line in rewritten.split("\n")):
        return None  # an error about the stand-in variables themselves: not one the real checker gives
    for new_line, old_line in zip(rewritten.split("\n"), text.split("\n"), strict=True):
        if new_line != old_line:
            message = message.replace(f"\n | {new_line}\n", f"\n | {old_line}\n")
    raise _Issues(_RANGE_ISSUE.sub(lambda m: _range_at(m, text), message))


_RANGE_ISSUE = re.compile(r"ERROR: <input>:(\d+):(\d+): (expression of type '[^']*' cannot be range of a "
                          r"comprehension[^\n]*)\n \| ([^\n]*)\n \| [.]*\^")


def _range_at(m: re.Match[str], text: str) -> str:
    # A field chain typed by the typed check is one identifier there: cel-go puts a selection's range at its
    # last dot, found in the rule as written.
    line, column = int(m.group(1)), int(m.group(2))
    line_start = sum(len(x) + 1 for x in text.split("\n")[:line - 1])
    at = macros.range_position(text, line_start + column - 1) - line_start + 1
    return f"ERROR: <input>:{line}:{at}: {m.group(3)}\n | {m.group(4)}\n | {'.' * (at - 1)}^"


def _checked(text: str, variables: dict[str, Any], schema: dict[str, Any] | None, root: bool,
             optional: bool = False, wanted: Any = None) -> Any:
    """Compile ``text``; raise ``_Issues`` with every error, the field checks' included. ``wanted``: the
    result type the expression must have; the result type the typed check found is returned with the
    program when it is not that."""
    names = (SELF,) if optional else (SELF, OLD_SELF)
    found = fields.check(text, schema, root=root, variables=names) if schema is not None else []
    try:
        program = _compile_optional(text, variables[SELF]) if optional else _compile(text, variables)
    except (RuntimeError, _Issues) as exc:
        message = issues_text(exc)
        if "Syntax error" in message:
            raise _Issues(message) from None
        raise _Issues(_merge(message, found)) from None
    if found:
        raise _Issues(_merge("", found))
    if schema is not None:
        typed = _typed_check(text, variables, schema, root, optional)
        if wanted is not None and typed is not None and typed not in (wanted, T.DYN):
            return program, typed
    return program, None


def compile_rule(rule: dict[str, Any], self_type: Any, schema: dict[str, Any] | None = None,
                 root: bool = False) -> Compiled:
    """Compile one validation rule for a schema node whose values have CEL type ``self_type``; with the
    node's ``schema`` (``root``: a resource root), field selections are checked against it."""
    out = Compiled(optional_old_self=rule.get("optionalOldSelf") is True)
    text = str(rule.get("rule") or "")
    if not text.strip():
        return out
    both = {SELF: self_type, OLD_SELF: self_type}
    try:
        program, typed = _checked(text, both, schema, root, out.optional_old_self, T.BOOL)
    except _Issues as exc:
        out.error = "compilation failed: " + str(exc)
        return out
    if typed is not None or not _accepts(program.return_type(), T.BOOL):
        out.error = "cel expression must evaluate to a bool"
        return out
    out.uses_old_self = _uses_old_self(text, self_type)
    out.program = program
    expression = str(rule.get("messageExpression") or "")
    if expression:
        try:
            message, typed = _checked(expression, both, schema, root, wanted=T.STRING)
        except _Issues as exc:
            out.message_error = "messageExpression compilation failed: " + str(exc)
            return out
        if typed is not None or not _accepts(message.return_type(), T.STRING):
            out.message_error = "messageExpression must evaluate to a string"
            return out
        out.message_program = message
    return out


def activation(compiled: Compiled, value: Any, old: Any, has_old: bool) -> dict[str, Any]:
    """The variables a compiled rule is evaluated with."""
    if compiled.optional_old_self:
        data = {SELF: value, _HAS_OLD: has_old}
        if has_old:
            data[_OLD_VALUE] = old
        return data
    return {SELF: value, OLD_SELF: old} if has_old else {SELF: value}


def message_activation(value: Any, old: Any, has_old: bool) -> dict[str, Any]:
    return {SELF: value, OLD_SELF: old} if has_old else {SELF: value}
