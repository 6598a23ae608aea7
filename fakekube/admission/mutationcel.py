"""A MutatingAdmissionPolicy's patch expressions: ``Object{...}`` and ``JSONPatch{...}`` in cel-expr-python.

Upstream (k8s.io/apiserver ``pkg/cel/mutation/typeresolver.go``, ``jsonpatch.go``, ``dynamic/objects.go`` and
``pkg/admission/plugin/policy/mutating/patch/{smd,json_patch}.go``, v0.37.2) declares two struct types to the
cel-go checker: ``JSONPatch`` (``op``, ``path``, ``from`` strings, ``value`` dyn) and ``Object`` with every
``Object.<path>`` below it (each field dyn). cel-cpp's Python binding declares struct types only from protobuf
descriptors, and ``Object.spec.template...`` is an open family of names, so the expression is rewritten
before it is compiled: each struct creation becomes a call building a map, ``Object.spec{replicas: 1}`` →
``__object('Object.spec', {'replicas': 1})`` and ``JSONPatch{op: o, path: p}`` →
``__jsonpatch({'op': __jsonpatch_op(o), 'path': __jsonpatch_path(p)})``. The rewrite reads the tokens of an
expression the parser accepted (so a name chain right before ``{`` is a struct name, as the grammar says);
the text between tokens is kept, and each character of the new text knows the original offset it came from,
so the checker's errors are reported at the original line and column with the original source line.

The text is compiled twice: in a checking environment where the calls return the opaque types ``Object`` and
``JSONPatch`` (so ``must evaluate to Object but got map(string, int)`` and the field type errors come out as
upstream words them), and in an evaluation environment where the same calls return ``dyn`` (cel-expr-python
cannot hand an opaque value back from Python). The maps carry their type name under a key no field name can
be (``@type``): :func:`decode` checks that names match their field path (upstream's
``CheckTypeNamesMatchFieldPathNames``) and removes them. The policy's variables are declared with their
expressions' types as the qualified names ``variables.<name>`` (:func:`environment`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from fakekube.admission import authorizer as authz
from fakekube.admission.policycel import _undeclared_as_cel_go
from fakekube.cel import formatlib, k8slib, library, rewrites
from fakekube.cel.rules import issues_text
from fakekube.cel.sourcemap import tokens

T = cel.Type
TYPE_KEY = "@type"
OBJECT = T.AbstractType("Object")
JSONPATCH = T.AbstractType("JSONPatch")
_STRING_FIELDS = ("op", "path", "from")
_VARIABLE_REF = re.compile(r"\bvariables\s*\.\s*[A-Za-z_]")

@dataclass
class Rewritten:
    text: str
    origin: list[int]  # for each character of ``text``, the offset in the source it stands for
    unknown: tuple[str, int] | None = None  # a struct name upstream does not declare, and its ``{`` offset


def rewrite(source: str) -> Rewritten:
    """The expression with its struct creations turned into the calls above (``source`` must parse)."""
    toks = tokens(source)
    pieces: list[tuple[str, int]] = []  # (text, origin offset for every character of it)
    unknown: tuple[str, int] | None = None
    pos = 0
    # One entry per open bracket: ("(", ...) plain, or a struct's ("struct", type) with the field whose value
    # is being read and needs a closing parenthesis before the next ``,`` or ``}``.
    stack: list[list[Any]] = []
    i = 0

    def emit_gap(upto: int) -> None:
        nonlocal pos
        if upto > pos:
            pieces.extend((ch, pos + k) for k, ch in enumerate(source[pos:upto]))
            pos = upto

    def emit(text: str, origin: int) -> None:
        pieces.extend((ch, origin) for ch in text)

    def skip(upto: int) -> None:
        nonlocal pos
        pos = upto

    def close_field(entry: list[Any], at: int) -> None:
        if entry[2]:
            emit(")", at)
            entry[2] = False

    while i < len(toks):
        kind, text, off = toks[i]
        if kind == "punct" and text == "{" and i > 0 and toks[i - 1][0] == "ident":
            start = i - 1
            while start >= 2 and toks[start - 1][1] == "." and toks[start - 2][0] == "ident":
                start -= 2
            if start >= 1 and toks[start - 1][1] == "." and (start < 2 or toks[start - 2][0] != "ident"):
                start -= 1  # a leading dot: the name is absolute
            name = "".join(t[1] for t in toks[start:i]).lstrip(".")
            emit_gap(toks[start][2])
            if name == "JSONPatch":
                emit("__jsonpatch({", toks[start][2])
                stack.append(["struct", name, False])
                pos = off + 1
            elif name == "Object" or name.startswith("Object."):
                emit(f"__object('{name}', {{", toks[start][2])
                stack.append(["struct", name, False])
                pos = off + 1
            else:
                if unknown is None:
                    unknown = (name, off)
                emit_gap(off + 1)
                stack.append(["plain", "{", False])
            i += 1
            i = _field_name(toks, i, stack, emit_gap, emit, skip)
            continue
        if kind == "punct" and text in "([{":
            stack.append(["plain", text, False])
        elif kind == "punct" and text in ")]}":
            top = stack.pop() if stack else None
            if top is not None and top[0] == "struct":
                emit_gap(off)
                close_field(top, off)
                emit_gap(off + 1)
                emit(")", off)
                i += 1
                continue
        elif kind == "punct" and text == "," and stack and stack[-1][0] == "struct":
            emit_gap(off)
            close_field(stack[-1], off)
            emit_gap(off + 1)
            i = _field_name(toks, i + 1, stack, emit_gap, emit, skip)
            continue
        i += 1
    emit_gap(len(source))
    return Rewritten("".join(p[0] for p in pieces), [p[1] for p in pieces], unknown)


def _field_name(toks: list[tuple[str, str, int]], i: int, stack: list[list[Any]], emit_gap: Any, emit: Any,
                skip: Any) -> int:
    """At a struct's field initialiser (``[?]name: value``) if one starts at token ``i``: its name quoted."""
    entry = stack[-1]
    if entry[0] != "struct":
        return i
    j = i
    if j < len(toks) and toks[j][1] == "?":
        j += 1
    if j + 1 < len(toks) and toks[j][0] == "ident" and toks[j + 1][1] == ":":
        name, off = toks[j][1], toks[j][2]
        colon = toks[j + 1][2]
        emit_gap(off)
        emit(f"'{name}'", off)
        skip(off + len(name))
        emit_gap(colon + 1)  # the gap after the name, the colon
        if entry[1] == "JSONPatch" and name in _STRING_FIELDS:
            emit(f" __jsonpatch_{name}(", colon)
            entry[2] = True
        return j + 2  # the value is read by the main loop
    return i


# -- environments -----------------------------------------------------------------------------------------

def _make_object(name: str, fields: dict[Any, Any]) -> dict[Any, Any]:
    out = dict(fields)
    out[TYPE_KEY] = name
    return out


def _make_patch(fields: dict[Any, Any]) -> dict[Any, Any]:
    return _make_object("JSONPatch", fields)


def _escape_key(key: str) -> str:
    # pkg/cel/library/jsonpatch.go: RFC 6901 escaping of one reference token
    return key.replace("~", "~0").replace("/", "~1")


def _patch_functions(checking: bool) -> list[Any]:
    obj = OBJECT if checking else T.DYN
    patch = JSONPATCH if checking else T.DYN
    out = [cel.FunctionDecl("__object", [cel.Overload("__object_string_map", obj, [T.STRING, T.Map(T.STRING, T.DYN)],
                                                      impl=_make_object)]),
           cel.FunctionDecl("__jsonpatch", [cel.Overload("__jsonpatch_map", patch, [T.Map(T.STRING, T.DYN)],
                                                         impl=_make_patch)]),
           cel.FunctionDecl("jsonpatch.escapeKey", [cel.Overload("string_jsonpatch_escapeKey_string", T.STRING,
                                                                 [T.STRING], impl=_escape_key)])]
    for name in _STRING_FIELDS:
        out.append(cel.FunctionDecl(f"__jsonpatch_{name}", [cel.Overload(f"__jsonpatch_{name}_string", T.STRING,
                                                                         [T.STRING], impl=lambda s: s)]))
    return out


_TYPES: dict[str, Any] = {}
VariableTypes = tuple[tuple[str, str], ...]


def variable_types(types: dict[str, Any]) -> VariableTypes:
    """The policy's variables' types (name to ``cel.Type``), as a key of :func:`environment`."""
    out = []
    for name, t in types.items():
        sig = str(t.name())
        _TYPES.setdefault(sig, t)
        out.append((name, sig))
    return tuple(out)


@lru_cache(maxsize=64)
def environment(has_params: bool, checking: bool, variables: VariableTypes = ()) -> Any:
    """compile.go's environment with the patch types (HasPatchTypes) and the authorizer. ``variables``: each
    variable declared with its expression's type as the qualified name ``variables.<name>`` (cel-go's composited
    environment types them; the ``variables`` map is dyn), which the evaluation's data then holds."""
    names: dict[str, Any] = {"object": T.DYN, "oldObject": T.DYN, "request": T.DYN, "namespaceObject": T.DYN,
                             "variables": T.Map(T.STRING, T.DYN),
                             "authorizer": authz.AUTHORIZER, "authorizer.requestResource": authz.RESOURCE_CHECK}
    for name, sig in variables:
        names[f"variables.{name}"] = _TYPES[sig]
    if has_params:
        names["params"] = T.DYN
    return cel.NewEnv(variables=names, functions=library.functions() + k8slib.functions() + authz.functions()
                      + formatlib.functions() + _patch_functions(checking),
                      extensions=[ext_strings.ExtStrings(2), ext_optional.ExtOptional(), ext_bindings.ExtBindings(),
                                  library.extension(), k8slib.extension()])


# -- errors at the source's positions --------------------------------------------------------------------

_ERROR = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*?)\n \| [^\n]*\n \| [.]*\^", re.DOTALL)
_FIELD_TYPE = re.compile(r"found no matching overload for '__jsonpatch_(op|path|from)' applied to '\((.*)\)'")


def _line_col(source: str, offset: int) -> tuple[int, int, str]:
    line_start = source.rfind("\n", 0, offset) + 1
    line_end = source.find("\n", offset)
    line = source[line_start: line_end if line_end >= 0 else len(source)]
    return source.count("\n", 0, offset) + 1, offset - line_start + 1, line


def _issue(source: str, offset: int, message: str) -> str:
    line, column, text = _line_col(source, offset)
    return f"ERROR: <input>:{line}:{column}: {message}\n | {text}\n | {'.' * (column - 1)}^"


def map_errors(text: str, rewritten: Rewritten, source: str) -> str:
    """The checker's issues on the rewritten text, at the source's positions and in upstream's words."""
    new_lines = rewritten.text.split("\n")

    def fix(m: re.Match[str]) -> str:
        line, column, message = int(m.group(1)), int(m.group(2)), m.group(3)
        offset = sum(len(x) + 1 for x in new_lines[:line - 1]) + column - 1
        offset = min(max(offset, 0), len(rewritten.origin) - 1) if rewritten.origin else 0
        origin = rewritten.origin[offset] if rewritten.origin else 0
        field = _FIELD_TYPE.fullmatch(message)
        if field:
            message = (f"expected type of field '{field.group(1)}' is 'string' but provided type is "
                       f"'{field.group(2)}'")
        return _issue(source, origin, message)

    return _ERROR.sub(fix, text)


def type_name(t: Any) -> str:
    """A type as cel-go prints it: ``map(string, int)``, ``list(JSONPatch)``, ``Object``."""
    text = str(t.name())
    text = re.sub(r"\bNULL\b", "null_type", text).replace("<", "(").replace(">", ")")
    return re.sub(r"\b(LIST|MAP|STRING|INT|UINT|DOUBLE|BOOL|BYTES|DYN|TIMESTAMP|DURATION|TYPE|NULL_TYPE)\b",
                  lambda m: m.group(1).lower(), text).replace("null_TYPE", "null_type")


@dataclass
class Patch:
    """One compiled mutation: ``kind`` ApplyConfiguration or JSONPatch, the program or the compile error."""

    kind: str
    text: str
    program: Any = None
    error: str = ""


def _with_library_rewrites(rewritten: Rewritten) -> Rewritten:
    # then the rewrites every CEL expression goes through (fakekube.cel.rewrites: cel-go macros, optional
    # results of the format library), their origins mapped through this one's
    more = rewrites.rewrite(rewritten.text)
    if more is None:
        return rewritten
    origin = [rewritten.origin[o] if o < len(rewritten.origin) else len(rewritten.origin) for o in more.origin]
    return Rewritten(more.text, origin, rewritten.unknown)


def compile_patch(kind: str, source: str, has_params: bool, variables: VariableTypes = ()) -> Patch:
    out = Patch(kind, source)
    try:
        environment(has_params, True).compile(source, disable_check=True)
    except RuntimeError as exc:
        out.error = "compilation failed: " + issues_text(exc)
        return out
    refused = rewrites.issues(source)
    if refused:
        out.error = "compilation failed: " + refused
        return out
    rewritten = _with_library_rewrites(rewrite(source))
    if rewritten.unknown is not None:
        name, offset = rewritten.unknown
        out.error = "compilation failed: " + _issue(source, offset, f"undeclared reference to '{name}' "
                                                                    "(in container '')")
        return out
    try:
        checked = environment(has_params, True, variables).compile(rewritten.text)
    except RuntimeError as exc:
        out.error = "compilation failed: " + _undeclared_as_cel_go(rewrites.rename(
            map_errors(issues_text(exc), rewritten, source)))
        return out
    wanted = OBJECT if kind == "ApplyConfiguration" else T.List(JSONPATCH)
    result = checked.return_type()
    # compile.go: the type must be exactly the wanted one (``dyn`` is refused). A variable has its expression's
    # type in cel-go, ``dyn`` here: an expression naming one is given the benefit, as fakekube.admission.policycel.
    if result != wanted and not (result == T.DYN and _VARIABLE_REF.search(source)):
        out.error = f"must evaluate to {type_name(wanted)} but got {type_name(result)}"
        return out
    out.program = environment(has_params, False, variables).compile(rewritten.text)
    return out


# -- results ---------------------------------------------------------------------------------------------

class TypeMismatch(Exception):
    """A typed object's name does not follow its field path."""


def decode(value: Any, path: str | None = None, errs: list[str] | None = None) -> Any:
    """The value without its type markers. An object's type name must be its field path from the root object
    (``path``; None at a root); the mismatches go to ``errs`` in upstream's words."""
    if isinstance(value, list):
        return [decode(v, path, errs) for v in value]
    if not isinstance(value, dict):
        return value
    name = value.get(TYPE_KEY)
    if name == "JSONPatch":
        return {k: decode(v, None, errs) for k, v in value.items() if k != TYPE_KEY}
    if isinstance(name, str):
        if path is None:
            path = name
        elif path != name and errs is not None:
            errs.append(f'unexpected type name "{name}", expected "{path}", which matches field name path '
                        "from root Object type")
        return {k: decode(v, f"{path}.{k}", errs) for k, v in value.items() if k != TYPE_KEY}
    return {k: decode(v, path, errs) for k, v in value.items()}


def type_of(value: Any) -> str | None:
    return value.get(TYPE_KEY) if isinstance(value, dict) else None
