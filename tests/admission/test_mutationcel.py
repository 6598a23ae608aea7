"""The patch expressions of a MutatingAdmissionPolicy: the struct-creation rewrite and upstream's compile texts
(each text below is kube-apiserver v1.37.2's, from the differential case map/compile-errors)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.admission import mutationcel

DATA = {"object": {"metadata": {"name": "n"}, "data": {"a": "1"}}, "oldObject": None, "request": {},
        "namespaceObject": None, "variables": {}}


def run(kind: str, text: str) -> Any:
    patch = mutationcel.compile_patch(kind, text, False)
    assert patch.error == ""
    errs: list[str] = []
    value = mutationcel.decode(patch.program.eval(data=DATA).plain_value(), None, errs)
    return value, errs


def test_rewrite_leaves_strings_and_comments_alone() -> None:
    text = "Object{data: {'k': 'Object{x: 1}'}} // JSONPatch{op: 1}"
    out = mutationcel.rewrite(text)
    assert out.text == "__object('Object', {'data': {'k': 'Object{x: 1}'}}) // JSONPatch{op: 1}"
    assert len(out.origin) == len(out.text)


def test_apply_configuration_value() -> None:
    value, errs = run("ApplyConfiguration",
                      "Object{metadata: Object.metadata{labels: {'a': object.metadata.name}}, ?spec: optional.none()}")
    assert value == {"metadata": {"labels": {"a": "n"}}} and errs == []


def test_json_patch_value_and_escape_key() -> None:
    value, _ = run("JSONPatch", "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b~c'), "
                                "value: 'x'}]")
    assert value == [{"op": "add", "path": "/metadata/labels/a~1b~0c", "value": "x"}]


def test_type_names_must_follow_field_paths() -> None:
    _, errs = run("ApplyConfiguration", "Object{spec: Object.spec{items: [Object.spec.items{a: 1}], "
                                        "other: Object.spec.wrong{}}}")
    assert errs == ['unexpected type name "Object.spec.wrong", expected "Object.spec.other", which matches field '
                    "name path from root Object type"]


@pytest.mark.parametrize(("kind", "text", "error"), [
    ("ApplyConfiguration", "Object{metadata: Object.metadata{labels: {'a': nosuch}}}",
     "compilation failed: ERROR: <input>:1:48: undeclared reference to 'nosuch' (in container '')\n"
     " | Object{metadata: Object.metadata{labels: {'a': nosuch}}}\n"
     " | ...............................................^"),
    ("JSONPatch", "[JSONPatch{op: 'add', path: 1}]",
     "compilation failed: ERROR: <input>:1:27: expected type of field 'path' is 'string' but provided type is 'int'\n"
     " | [JSONPatch{op: 'add', path: 1}]\n | ..........................^"),
    ("JSONPatch", "'x'", "must evaluate to list(JSONPatch) but got string"),
    ("JSONPatch", "[]", "must evaluate to list(JSONPatch) but got list(dyn)"),
    ("ApplyConfiguration", "{'a': 1}", "must evaluate to Object but got map(string, int)"),
    ("ApplyConfiguration", "Foo{a: 1}",
     "compilation failed: ERROR: <input>:1:4: undeclared reference to 'Foo' (in container '')\n | Foo{a: 1}\n"
     " | ...^"),
    ("JSONPatch", "[JSONPatch{op: 'add', path: '/x', value: params.y}]",
     "compilation failed: ERROR: <input>:1:42: undeclared reference to 'params' (in container '')\n"
     " | [JSONPatch{op: 'add', path: '/x', value: params.y}]\n"
     " | .........................................^"),
])
def test_compile_errors(kind: str, text: str, error: str) -> None:
    assert mutationcel.compile_patch(kind, text, False).error == error


def test_error_on_a_later_line_keeps_its_own_line() -> None:
    text = "[\n  JSONPatch{\n    op: 'add',\n    path: 3,\n  }\n]"
    assert mutationcel.compile_patch("JSONPatch", text, False).error == (
        "compilation failed: ERROR: <input>:4:9: expected type of field 'path' is 'string' but provided type is "
        "'int'\n |     path: 3,\n | ........^")


@pytest.mark.parametrize(("kind", "text", "error"), [
    ("ApplyConfiguration", "object.spec", "must evaluate to Object but got dyn"),
    ("JSONPatch", "params.patches", "must evaluate to list(JSONPatch) but got dyn"),
    ("ApplyConfiguration", "true ? Object{} : object", "must evaluate to Object but got dyn"),
    ("JSONPatch", "true ? [JSONPatch{op: 'add', path: '/a'}] : []", ""),
    ("JSONPatch", "[JSONPatch{op: 'add', path: '/a'}] + params.more", ""),
])
def test_result_type_must_be_exact(kind: str, text: str, error: str) -> None:
    # kube-apiserver v1.37.2's answers (map/compile-errors)
    assert mutationcel.compile_patch(kind, text, True).error == error


def test_kubernetes_libraries_and_macros_after_the_struct_rewrite() -> None:
    # format, semver, sortBy and the two-variable comprehensions go through fakekube.cel.rewrites after the
    # Object{...} rewrite, their columns kept through both
    value, errs = run("ApplyConfiguration",
                      "Object{metadata: Object.metadata{labels: object.data.transformMap(k, v, "
                      "format.dns1123Label().validate(k).hasValue() ? 'bad' : string(semver(v + '.0', true).major()))}}")
    assert value == {"metadata": {"labels": {"a": "1"}}} and errs == []
    patch = mutationcel.compile_patch("ApplyConfiguration", "Object{spec: [1].all(i, v, v + 'a')}", False)
    assert patch.error.startswith("compilation failed: ERROR: <input>:1:30: found no matching overload for '_+_'")
    patch = mutationcel.compile_patch("ApplyConfiguration", "Object{spec: [1].all(i, i, true)}", False)
    assert patch.error.startswith("compilation failed: ERROR: <input>:1:25: duplicate variable name: i")
