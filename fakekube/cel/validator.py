"""Running a CRD version's ``x-kubernetes-validations`` rules on a custom resource.

After k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (``Validator``), v0.37.2:

- the rules of every schema node with rules run on each non-null value of it, ``self`` being the value
  (``apiVersion``, ``kind`` and ``metadata.name``/``generateName`` added at the root);
- a transition rule (one that uses ``oldSelf``) runs on an update only, where the old value correlates: an
  object's member by name (unless ``x-kubernetes-map-type`` is something else than granular/atomic), a map
  list's item by its keys; ``optionalOldSelf`` makes it run with ``oldSelf`` an optional (empty on create);
- a rule that is false is the field error its ``reason`` names (FieldValueInvalid by default) at the node's
  path (plus ``fieldPath``), its detail the ``messageExpression``'s value, else ``message``, else
  ``failed rule: <rule>``; the value is shown for scalars only;
- an evaluation error is ``<error> evaluating rule: <rule or message>`` (cel-go's error texts), and a runtime
  overload error ``'no such overload': call arguments did not match ...``;
- ratcheting: a failing rule that does not use ``oldSelf``, on a value equal to the old one (or, where the
  value does not correlate, whose nearest correlating ancestor is equal), is a warning, not an error;
- the runtime cost limits (fakekube.cel.budget): each rule's and messageExpression's actual cost is taken from
  the object's budget; an evaluation over the per-call limit, or one the budget cannot pay, is the last error
  and no further rule runs (on this node or any other).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel

from fakekube.cel import budget as celbudget
from fakekube.cel import rules as celrules
from fakekube.cel import types as celtypes
from fakekube.cel.fieldpath import PathError, valid_field_path
from fakekube.errors import FieldError, GoLiteral, duplicate, forbidden, invalid, required
from fakekube.jsonvalues import json_equal
from fakekube.schemavalues import go_float

_NONE: Any = object()  # no correlated old value
_MAX_MESSAGE = 5 * 1024  # celconfig.MaxEvaluatedMessageExpressionSizeBytes


@dataclass
class _Rule:
    source: dict[str, Any]
    compiled: celrules.Compiled
    field_path: str = ""


@dataclass
class Node:
    """The rules of one schema node and the nodes below it that have rules."""

    schema: dict[str, Any]
    root: bool = False
    rules: list[_Rule] = field(default_factory=list)
    properties: dict[str, Node] = field(default_factory=dict)
    items: Node | None = None
    additional: Node | None = None
    track: bool = False  # the root's: whether the rules' runtime cost is counted (fakekube.cel.budget)


class _Estimates:
    """The estimated costs of the rules seen while building, to decide whether to count."""

    def __init__(self) -> None:
        self.largest = self.total = 0
        self.decls: dict[int, Any] = {}

    def add(self, compiled: celrules.Compiled, schema: dict[str, Any], root: bool, cardinality: int | None) -> None:
        largest, total = celbudget.estimated_bounds(compiled, schema, root, cardinality, self.decls)
        self.largest = max(self.largest, largest)
        self.total += total


def build(schema: Any, *, root: bool = True) -> Node | None:
    """The validator tree of a schema, or None when no rule is anywhere in it."""
    estimates = _Estimates()
    node = _build(schema, root, 1, estimates)
    if node is not None:
        node.track = celbudget.must_track(estimates.largest, estimates.total)
    return node


def _build(schema: Any, root: bool, cardinality: int | None, estimates: _Estimates) -> Node | None:
    from fakekube.kinds.crdcost import child_cardinality

    if not isinstance(schema, dict):
        return None
    node = Node(schema, root=root)
    below = child_cardinality(cardinality, schema)
    self_type = celtypes.cel_type(schema)
    if self_type is not None:
        for rule in schema.get("x-kubernetes-validations") or []:
            if not isinstance(rule, dict):
                continue
            compiled = celrules.compile_rule(rule, self_type, schema, root)
            path = ""
            if rule.get("fieldPath"):
                try:
                    path = valid_field_path(str(rule["fieldPath"]), schema)[0]
                except PathError:
                    path = ""
            node.rules.append(_Rule(rule, compiled, path))
            estimates.add(compiled, schema, root, cardinality)
    for name, prop in (schema.get("properties") or {}).items():
        if celtypes.escape(name) is None and celtypes.cel_type(prop) is None:
            continue
        sub = _build(prop, _embedded(prop), below, estimates)
        if sub is not None:
            node.properties[name] = sub
    if isinstance(schema.get("items"), dict):
        node.items = _build(schema["items"], _embedded(schema["items"]), below, estimates)
    if isinstance(schema.get("additionalProperties"), dict):
        extra = schema["additionalProperties"]
        node.additional = _build(extra, _embedded(extra), below, estimates)
    if node.rules or node.properties or node.items or node.additional:
        return node
    return None


def _embedded(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("x-kubernetes-embedded-resource") is True


class Budget:
    """What is left of an object's runtime cost budget; below 0 once a limit stopped the rules."""

    __slots__ = ("remaining",)

    def __init__(self, remaining: int = celbudget.RUNTIME_BUDGET) -> None:
        self.remaining = remaining


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _go_value(value: Any) -> Any:
    # A float64 as field.Error prints it (%v: shortest digits, 2 for 2.0, 1e+06 for a million).
    if isinstance(value, float):
        return GoLiteral(go_float(value))
    return value


def runtime_error(text: str) -> str:
    """cel-cpp's evaluation error in cel-go's words (cel-go common/types/err.go, list.go, map.go)."""
    text = celrules.issues_text(RuntimeError(text))
    if text.startswith("Key not found in map : "):
        key = text.removeprefix("Key not found in map : ")
        return f"no such key: {key[1:-1] if key.startswith(chr(34)) else key}"
    if text.startswith("No matching overloads found"):
        return "no such overload"
    if text.startswith("Index error: index="):
        index = text.removeprefix("Index error: index=").partition(" size=")[0]
        return f"index out of bounds: {index}"
    return {"divide by zero": "division by zero", "modulus by zero": "modulus by zero"}.get(text, text)


def evaluate_program(program: Any, data: dict[str, Any]) -> tuple[Any, str | None]:
    """(value, None), or (None, the evaluation error in cel-go's words)."""
    try:
        result = program.eval(data=data)
    except RuntimeError as exc:
        return None, runtime_error(str(exc))
    if result.type() == cel.Type.ERROR:
        return None, runtime_error(str(result.value()))
    return result.plain_value(), None


def _rule_text(rule: dict[str, Any]) -> str:
    message = str(rule.get("message") or "").strip()
    return message or str(rule.get("rule") or "").strip()


def _message(rule: _Rule, data: dict[str, Any], costs: Budget | None, count: Any) -> tuple[str, str | None]:
    """(the detail of a failed rule, or a budget error that stops the rules); ``count``: the expression's actual
    cost and whether it was cancelled, called when the budget is counted (``costs``; evalMessageExpression)."""
    if rule.compiled.message_program is not None:
        if costs is not None:
            cost, cancelled = count()
            if cost > costs.remaining:
                costs.remaining = -1
                return "", celbudget.MESSAGE_BUDGET_EXHAUSTED
            if cancelled:
                costs.remaining = -1
                return "", celbudget.message_limit_detail(str(rule.source.get("messageExpression") or ""))
            costs.remaining -= cost
        value, err = evaluate_program(rule.compiled.message_program, data)
        # An expression that fails, or gives no one-line string, falls back to the message (upstream logs it).
        if err is None and isinstance(value, str):
            text = value.strip()
            if text and "\n" not in text and len(text) <= _MAX_MESSAGE:
                return text, None
    message = str(rule.source.get("message") or "").strip()
    return message or f"failed rule: {_rule_text(rule.source)}", None


def _field_error(path: str, value: Any, detail: str, reason: Any) -> FieldError:
    if reason == "FieldValueForbidden":
        return forbidden(path, detail)
    if reason == "FieldValueRequired":
        return required(path, detail)
    if reason == "FieldValueDuplicate":
        return duplicate(path, value) if value is not _NONE else FieldError("FieldValueDuplicate", path)
    if value is _NONE:
        return FieldError("FieldValueInvalid", path, detail)
    return invalid(path, value, detail)


def _run_rules(node: Node, path: str, value: Any, old: Any, ratchet: bool, errs: list[FieldError],
               warnings: list[str] | None, costs: Budget | None) -> None:
    kind = node.schema.get("type") or ""
    if costs is not None and costs.remaining <= 0:
        errs.append(invalid(path or "<nil>", kind, celbudget.BUDGET_EXHAUSTED))
        costs.remaining = -1
        return
    self_value = celtypes.to_cel(node.schema, value, root=node.root)
    has_old = old is not _NONE and old is not None
    old_value = celtypes.to_cel(node.schema, old, root=node.root) if has_old else None
    for rule in node.rules:
        compiled = rule.compiled
        if compiled.program is None:
            continue
        if compiled.uses_old_self and not has_old and not compiled.optional_old_self:
            continue
        if costs is not None:
            cost, cancelled = celbudget.rule_cost(compiled, self_value, old_value, has_old)
            if cost > costs.remaining:
                errs.append(invalid(path or "<nil>", kind, celbudget.BUDGET_EXHAUSTED))
                costs.remaining = -1
                return
            costs.remaining -= cost
            if cancelled:
                errs.append(invalid(path or "<nil>", kind, celbudget.call_limit_detail(_rule_text(rule.source))))
                costs.remaining = -1
                return
        result, err = evaluate_program(compiled.program, celrules.activation(compiled, self_value, old_value, has_old))
        if err is None and not isinstance(result, bool):
            err = "no such overload"
        if err is not None:
            if err.startswith("no such overload"):
                detail = (f"'{err}': call arguments did not match a supported operator, function or macro "
                          f"signature for rule: {_rule_text(rule.source)}")
            else:
                detail = f"{err} evaluating rule: {_rule_text(rule.source)}"
            errs.append(invalid(path or "<nil>", kind, detail))
            continue
        if result:
            continue
        where = (_child(path, rule.field_path) if rule.field_path else path) or "<nil>"  # field.Path of nil
        shown = _NONE if kind in ("object", "array") else _go_value(value)
        detail, stop = _message(rule, celrules.message_activation(self_value, old_value, has_old), costs,
                                lambda r=rule: celbudget.message_cost(r.compiled, self_value, old_value, has_old))
        error = invalid(where, kind, stop) if stop is not None else _field_error(
            where, shown, detail, rule.source.get("reason"))
        if not compiled.uses_old_self and ratchet:
            # Ratcheted: the unchanged value keeps passing, with the error as a warning (warning.AddWarning).
            if warnings is not None:
                warnings.append(str(error))
        else:
            errs.append(error)
        if stop is not None:
            return


def _map_list_key(schema: dict[str, Any], item: Any) -> Any:
    keys = schema.get("x-kubernetes-list-map-keys") or []
    if not isinstance(item, dict):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def validate(node: Node | None, path: str, value: Any, old: Any = _NONE, ratchet: bool = False,
             errs: list[FieldError] | None = None, warnings: list[str] | None = None,
             costs: Budget | None = None) -> list[FieldError]:
    """The rule errors for ``value`` (and ``old``, its correlated old value, or ``_NONE``); ``ratchet``: the
    nearest correlating ancestor equals its old value; ``costs``: the object's runtime cost budget, when it is
    counted (fakekube.cel.budget)."""
    errs = [] if errs is None else errs
    if node is None or value is None or costs is not None and costs.remaining < 0:
        return errs
    if old is not _NONE:
        ratchet = json_equal(value, old)
    if node.rules:
        _run_rules(node, path, value, old, ratchet, errs, warnings, costs)
        if costs is not None and costs.remaining < 0:
            return errs
    schema = node.schema
    if isinstance(value, list) and node.items is not None:
        by_key: dict[Any, Any] = {}
        if schema.get("x-kubernetes-list-type") == "map" and isinstance(old, list):
            for item in old:
                by_key.setdefault(_map_list_key(schema, item), item)
        for i, item in enumerate(value):
            was = by_key.get(_map_list_key(schema, item), _NONE) if by_key else _NONE
            validate(node.items, f"{path}[{i}]", item, was, ratchet, errs, warnings, costs)
            if costs is not None and costs.remaining < 0:
                return errs
    elif isinstance(value, dict):
        correlatable = schema.get("x-kubernetes-map-type") in (None, "granular", "atomic")
        old_map = old if correlatable and isinstance(old, dict) else {}
        for key, member in value.items():
            sub = node.properties.get(key) if node.properties else None
            if sub is None and node.additional is not None and not node.properties:
                sub = node.additional
            if sub is None:
                continue
            was = old_map.get(key, _NONE)
            if node.root and key in ("apiVersion", "kind"):
                was, ratchet_here = _NONE, False
            else:
                ratchet_here = ratchet
            validate(sub, _child(path, key) if node.properties else f"{path}[{key}]", member, was,
                     ratchet_here, errs, warnings, costs)
            if costs is not None and costs.remaining < 0:
                return errs
    return errs


def validate_object(node: Node | None, obj: dict[str, Any], old: dict[str, Any] | None,
                    warnings: list[str] | None = None) -> list[FieldError]:
    """Every rule's errors for a custom resource (``old``: the stored object on an update); the errors
    ratcheting lets pass are added to ``warnings``."""
    if node is None:
        return []
    costs = Budget() if node.track else None
    return validate(node, "", obj, old if old is not None else _NONE, False, None, warnings, costs)
