"""The MutatingAdmissionPolicy dispatcher: the policies' mutations of a write's object, before validation.

After k8s.io/apiserver ``pkg/admission/plugin/policy/mutating/{dispatcher,compilation,reinvocationcontext}.go``
and ``patch/{smd,json_patch}.go``, with the matching, params and bindings of ``generic/policy_dispatcher.go``
that ValidatingAdmissionPolicy shares (fakekube.admission.policy), v0.37.2. For each policy (by name) whose
``matchConstraints`` match, each binding whose ``matchResources`` match and each param: the matchConditions,
then each mutation in order on the object as the previous one left it, the object defaulted after each.

- ``JSONPatch``: the expression's list of ``JSONPatch`` is applied as evanphx/json-patch v4 does; a failed
  ``test`` leaves the object as it was.
- ``ApplyConfiguration``: the ``Object`` is merged into the object as server-side apply merges (structured-
  merge-diff ``Merge``), after a check that it sets no atomic list, map or struct (``may not mutate atomic
  arrays, maps or structs: <paths>``).

An error (a matchCondition, an evaluation, a patch that does not apply) is the binding's: ``policy 'p' with
binding 'b' denied request: <error>``, reason Invalid, code 403, unless the policy's ``failurePolicy`` is
``Ignore``. ``reinvocationPolicy: IfNeeded`` policies run again (once) when a later mutation — another
policy's or a webhook's — changed the object after them (:class:`Reinvocation`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakekube import errors
from fakekube.admission import authorizer as authz
from fakekube.admission import mutationcel, policycel
from fakekube.admission.attributes import Attributes
from fakekube.admission.matching import matches
from fakekube.admission.policy import (
    EXCLUDED,
    ConfigError,
    PolicyView,
    RequestLookups,
    _activation,
    _aggregate,
    _collect_params,
    _gvk_text,
    _name,
    bindings_by_policy,
)
from fakekube.patch import evanphx, typed
from fakekube.patch.schema import PatchSchema
from fakekube.patch.typed_validate import validate as typed_errors


@dataclass
class _Compiled:
    variables: list[tuple[str, policycel.Expression]] = field(default_factory=list)
    match_conditions: list[tuple[str, policycel.Expression]] = field(default_factory=list)
    patches: list[mutationcel.Patch] = field(default_factory=list)


_CACHE: dict[tuple[str, str], _Compiled] = {}


def compile_policy(spec: dict[str, Any]) -> _Compiled:
    """compilation.go compilePolicy: variables and matchConditions as a ValidatingAdmissionPolicy's, the
    mutations with the patch types."""
    has_params = spec.get("paramKind") is not None
    base = policycel.compile_policy({"paramKind": spec.get("paramKind"), "variables": spec.get("variables"),
                                     "matchConditions": spec.get("matchConditions")})
    out = _Compiled(base.variables, base.match_conditions)
    types = variable_types(base)
    for m in spec.get("mutations") or ():
        kind = str(m.get("patchType") or "")
        source = (m.get("jsonPatch") if kind == "JSONPatch" else m.get("applyConfiguration")) or {}
        out.patches.append(mutationcel.compile_patch(kind, str(source.get("expression") or ""), has_params, types))
    return out


def variable_types(compiled: policycel.Compiled) -> mutationcel.VariableTypes:
    """The type of each variable that compiled (the mutations see them typed, as in cel-go)."""
    return mutationcel.variable_types({name: expr.program.return_type() for name, expr in compiled.variables
                                       if expr.program is not None})


def _compiled(policy: dict[str, Any]) -> _Compiled:
    meta = policy.get("metadata") or {}
    key = (str(meta.get("uid") or meta.get("name")), str(meta.get("resourceVersion") or ""))
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 512:
            _CACHE.clear()
        found = _CACHE[key] = compile_policy(policy.get("spec") or {})
    return found


_MISSING_VARIABLE = re.compile(r'No value with name "variables\.([A-Za-z_][A-Za-z0-9_]*)"')


class MutationError(Exception):
    """One mutation failed; its text is the refusal's."""


@dataclass
class Reinvocation:
    """reinvocationcontext.go: which invocations ran with IfNeeded, which must run again, the last output."""

    previously: set[tuple[str, str, str]] = field(default_factory=set)
    again: set[tuple[str, str, str]] = field(default_factory=set)
    last_output: Any = None
    changed: bool = False  # the policies changed the object (the admission chain then runs again)

    def require_again(self) -> None:
        self.again |= self.previously
        self.previously = set()


@dataclass
class Target:
    """What the dispatcher needs of the kind: its merge schema and its defaulting."""

    schema: PatchSchema | None
    default: Callable[[dict[str, Any]], None] | None


def admit(view: PolicyView, a: Attributes, target: Target, state: Reinvocation, reinvoke: bool = False) -> None:
    """Run the MutatingAdmissionPolicies on ``a.obj`` (changed in place); raise the refusal."""
    with authz.authorizing(view.authorizer()):
        _admit(view, a, target, state, reinvoke)


def _admit(view: PolicyView, a: Attributes, target: Target, state: Reinvocation,  # noqa: PLR0912, PLR0915
           reinvoke: bool) -> None:
    if (a.group, a.resource) in EXCLUDED:
        return
    bindings = bindings_by_policy(view)
    if not bindings:
        return
    if reinvoke and state.last_output != a.obj:
        state.require_again()
    failures: list[tuple[dict[str, Any], str, str]] = []  # policy, message, reason
    lookups = RequestLookups(view, a)
    ns_labels, equivalents = lookups.ns_labels, lookups.equivalents

    try:
        for policy in sorted(view.policies(), key=_name):
            name = _name(policy)
            if name not in bindings:
                continue
            spec = policy.get("spec") or {}
            matched = matches(spec.get("matchConstraints"), a, ns_labels, equivalents)
            if matched is None:
                continue
            namespaced: bool | None = None
            param_kind = spec.get("paramKind")
            if param_kind is not None:
                namespaced = view.param_kind(str(param_kind.get("apiVersion") or ""),
                                             str(param_kind.get("kind") or ""))
                if namespaced is None:
                    text = _gvk_text(str(param_kind.get("apiVersion") or ""), str(param_kind.get("kind") or ""))
                    failures.append((policy, f"policy {json.dumps(name)} denied request: failed to configure "
                                             f"policy: failed to find resource referenced by paramKind: '{text}'",
                                     "Forbidden"))
                    continue
            compiled = _compiled(policy)
            for binding in sorted(bindings[name], key=_name):
                bname = _name(binding)
                bspec = binding.get("spec") or {}
                if bspec.get("matchResources") is not None and matches(bspec["matchResources"], a, ns_labels,
                                                                       equivalents) is None:
                    continue
                prefix = f"policy '{name}' with binding '{bname}' denied request: "
                try:
                    params = _collect_params(view, spec, binding, a.namespace, namespaced)
                except ConfigError as exc:
                    failures.append((policy, f"{prefix}failed to configure binding: {exc}", "Forbidden"))
                    continue
                for param in params:
                    pmeta = (param or {}).get("metadata") or {}
                    key = (name, bname, f"{pmeta.get('namespace') or ''}/{pmeta.get('name') or ''}")
                    errs = _invoke(view, a, target, state, reinvoke, compiled, matched, param if param_kind
                                   is not None else None, param_kind is not None, key,
                                   spec.get("reinvocationPolicy") == "IfNeeded")
                    failures.extend((policy, prefix + err, "Invalid") for err in errs)
    finally:
        state.last_output = _copy(a.obj)
    failures = [f for f in failures if (f[0].get("spec") or {}).get("failurePolicy") != "Ignore"]
    if failures:
        raise _refusal(a, failures)


def _invoke(view: PolicyView, a: Attributes, target: Target, state: Reinvocation, reinvoke: bool,  # noqa: PLR0913
            compiled: _Compiled, matched: Any, param: Any, has_params: bool, key: tuple[str, str, str],
            if_needed: bool) -> list[str]:
    """One policy, binding and param: the errors' texts (a failed mutation does not stop the next ones)."""
    def activation() -> policycel.Activation:
        data = _activation(a, matched, view.namespace(a.namespace) if a.namespace else None, view)
        if has_params:
            data["params"] = param
        return policycel.Activation(compiled, data)  # type: ignore[arg-type]

    act = activation()
    if compiled.match_conditions:
        excluded, errs = policycel.match_conditions(act, compiled)
        if excluded:
            return []
        if errs:
            return [_aggregate(errs)]
    if reinvoke and key not in state.again:
        return []
    before = _copy(a.obj)
    failed: list[str] = []
    for patch in compiled.patches:
        if a.obj is None:
            continue
        try:
            _apply(patch, act, a, target)
        except MutationError as exc:
            failed.append(str(exc))
            continue
        act = activation()  # the next mutation sees the object as this one left it
    if a.obj != before:
        state.require_again()
        state.changed = True
    if if_needed:
        state.previously.add(key)
    return failed


def _apply(patch: mutationcel.Patch, act: policycel.Activation, a: Attributes, target: Target) -> None:
    if patch.error:
        raise MutationError(patch.error)
    for name, value in act.data["variables"].items():  # the typed qualified names (mutationcel.environment)
        act.data[f"variables.{name}"] = value
    value, err = act.evaluate(policycel.Expression(patch.text, patch.program))
    if err is not None:
        missing = _MISSING_VARIABLE.search(err)
        if missing and missing.group(1) in act.failed:
            err = f"expression '{patch.text}' resulted in error: {act.failed[missing.group(1)]}"
        raise MutationError(err)
    obj = a.obj
    assert obj is not None
    errs: list[str] = []
    if patch.kind == "JSONPatch":
        if not isinstance(value, list):
            raise MutationError("type mismatch: JSONPatchType.expression should evaluate to array")
        ops = []
        for item in value:
            if mutationcel.type_of(item) != "JSONPatch":
                raise MutationError("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch")
            op = mutationcel.decode(item, None, errs)
            if errs:
                raise MutationError("type mismatch: " + "\n".join(errs))
            ops.append({k: op[k] for k in ("op", "path", "from", "value") if k in op and (k != "from" or op[k])})
            ops[-1].setdefault("op", "")
            ops[-1].setdefault("path", "")
        try:
            patched = evanphx.apply(obj, ops, json.dumps(ops))
        except errors.ApiError as exc:
            text = evanphx.failure_text(exc)
            if text.endswith(": test failed"):
                return  # jsonpatch.ErrTestFailed: the object as it was
            raise MutationError(f"JSON Patch: {text}") from None
        new = patched
    else:
        if mutationcel.type_of(value) is None:
            raise MutationError(f"unsupported return type from ApplyConfiguration expression: {type(value)}")
        config = mutationcel.decode(value, None, errs)
        if errs:
            raise MutationError("type mismatch: " + "\n".join(errs))
        config["apiVersion"], config["kind"] = obj.get("apiVersion"), obj.get("kind")
        new = _merge(obj, config, target.schema)
    if not isinstance(new, dict):
        raise MutationError("JSON Patch: the patched object is not an object")
    if target.default is not None:
        target.default(new)
    replace(obj, new)


def _merge(obj: dict[str, Any], config: dict[str, Any], schema: PatchSchema | None) -> dict[str, Any]:
    """smd.go ApplyStructuredMergeDiff."""
    if schema is None:
        raise MutationError("error applying patch: type converter must not be nil")
    problems = typed_errors(config, schema)
    if problems:
        raise MutationError("error applying patch: failed to convert patch object to typed object: "
                            + _smd_errors(problems))
    atomics = _atomics(config, schema, "")
    if atomics:
        raise MutationError("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps "
                            "or structs: " + ", ".join(atomics))
    merged = typed.merge(obj, config, schema)
    return merged if isinstance(merged, dict) else obj


def _smd_errors(problems: list[str]) -> str:
    # structured-merge-diff ValidationErrors.Error(): one as it is, several as an indented list
    if len(problems) == 1:
        return problems[0]
    return "errors:\n" + "\n".join("  " + p for p in problems)


def _atomics(value: Any, schema: PatchSchema | None, path: str) -> list[str]:
    """smd.go findAtomics: where the configuration sets an atomic map, struct or list."""
    if schema is None:
        return []
    out: list[str] = []
    if isinstance(value, dict) and schema.kind in ("map", "object"):
        if schema.map_type == "atomic":
            out.append(path)
        for key, item in value.items():
            if schema.kind == "object" and key in schema.fields:
                out.extend(_atomics(item, schema.fields[key], f"{path}.{key}"))
    elif isinstance(value, list) and schema.kind == "list":
        if schema.ssa_list_type == "atomic":
            out.append(path)
        for i, item in enumerate(value):
            out.extend(_atomics(item, schema.item(), f"{path}[{i}]"))
    return out


def replace(target: dict[str, Any], new: dict[str, Any]) -> None:
    """In place, the metadata dict too: the write holds references to both."""
    meta, new_meta = target.get("metadata"), new.get("metadata")
    target.clear()
    target.update(new)
    if isinstance(meta, dict) and isinstance(new_meta, dict):
        if meta is not new_meta:
            meta.clear()
            meta.update(new_meta)
        target["metadata"] = meta


def _copy(obj: Any) -> Any:
    return json.loads(json.dumps(obj)) if obj is not None else None


def _refusal(a: Attributes, failures: list[tuple[dict[str, Any], str, str]]) -> errors.ApiError:
    """generic/policy_dispatcher.go: admission.NewForbidden, the first error's message and reason, every error a
    cause."""
    name = a.object_name()
    message, reason = failures[0][1], failures[0][2]
    return errors.ApiError(403, reason, message, {"name": name, "group": a.group, "kind": a.resource,
                                                  "causes": [{"message": f[1]} for f in failures]})
