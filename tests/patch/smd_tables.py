"""Cases from kubernetes-sigs/structured-merge-diff v4.4.2 (commit ccf7a061f165), restated as data.

``MERGE_CASES`` restates ``typed/merge_test.go`` (lhs, rhs, merged); ``APPLY_CASES`` restates fixture
sequences of ``merge/leaf_test.go``, ``merge/nested_test.go``, ``merge/extract_apply_test.go`` and
``merge/set_test.go`` that run in one API version: operations (apply, force apply, update), then the live
object and each manager's field set. Values and paths are written in this project's notation (JSON
values, FieldsV1 path elements); the schemas are the tests' own schemas as PatchSchema nodes.
"""

from __future__ import annotations

from typing import Any

from fakekube.patch.schema import PatchSchema

SCALAR = PatchSchema("scalar")
# __untyped_atomic_: a scalar, an atomic list or an atomic map.
UNTYPED_ATOMIC = PatchSchema("untyped", map_type="atomic")


def struct(**fields: PatchSchema) -> PatchSchema:
    return PatchSchema("object", fields=fields, strict=True)


def string_set() -> PatchSchema:
    return PatchSchema("list", items=SCALAR, list_type="set")


def string_map() -> PatchSchema:
    return PatchSchema("map", values=SCALAR)


def _recursive_map() -> PatchSchema:
    node = PatchSchema("map")
    node.values = node
    return node


SCHEMAS: dict[str, PatchSchema] = {
    "stringPair": struct(key=SCALAR, value=UNTYPED_ATOMIC),
    "nestedMap": struct(inner=PatchSchema("map", values=UNTYPED_ATOMIC)),
    "nestedStruct": struct(inner=struct(value=UNTYPED_ATOMIC)),
    "nestedList": struct(inner=PatchSchema("list", items=UNTYPED_ATOMIC, list_type="atomic")),
    "myStruct": struct(numeric=SCALAR, string=SCALAR, bool=SCALAR, setStr=string_set(), setBool=string_set(),
                       setNumeric=string_set()),
    "myRoot": struct(
        list=PatchSchema("list", list_type="map", list_map_keys=("key", "id"),
                         items=struct(key=SCALAR, id=SCALAR, value=string_map(), bv=SCALAR, nv=SCALAR)),
        atomicList=PatchSchema("list", items=SCALAR, list_type="atomic"),
    ),
    "leafFields": struct(numeric=SCALAR, string=SCALAR, bool=SCALAR),
    "nested": struct(
        listOfLists=PatchSchema("list", list_type="map", list_map_keys=("name",),
                                items=struct(name=SCALAR, value=string_set())),
        listOfMaps=PatchSchema("list", list_type="map", list_map_keys=("name",),
                               items=struct(name=SCALAR, value=string_map())),
        mapOfLists=PatchSchema("map", values=string_set()),
        mapOfMaps=PatchSchema("map", values=string_map()),
        mapOfMapsRecursive=_recursive_map(),
        struct=struct(name=SCALAR, value=SCALAR),
    ),
    "sets": struct(
        list=string_set(),
        atomicList=PatchSchema("list", items=SCALAR, list_type="atomic"),
        map=string_map(),
        atomicMap=PatchSchema("map", values=SCALAR, map_type="atomic"),
    ),
}

# (schema, lhs, rhs, merged) — typed/merge_test.go mergeCases.
MERGE_CASES: list[tuple[str, Any, Any, Any]] = [
    # simple pair
    ("stringPair", {"key": "foo", "value": {}}, {"key": "foo", "value": 1}, {"key": "foo", "value": 1}),
    ("stringPair", {"key": "foo", "value": 1}, {"key": "foo", "value": {}}, {"key": "foo", "value": {}}),
    ("stringPair", {"key": "foo", "value": None}, {"key": "foo", "value": {}}, {"key": "foo", "value": {}}),
    ("stringPair", {"key": "foo"}, {"value": True}, {"key": "foo", "value": True}),
    # null/empty map, struct, list: empty and null are leaves, and the right-hand side's shape wins
    *[(schema, lhs, rhs, out) for schema, empty in (("nestedMap", {}), ("nestedStruct", {}), ("nestedList", []))
      for lhs, rhs, out in (
          ({}, {"inner": empty}, {"inner": empty}),
          ({}, {"inner": None}, {"inner": None}),
          ({"inner": None}, {"inner": empty}, {"inner": empty}),
          ({"inner": empty}, {"inner": None}, {"inner": None}),
          ({"inner": empty}, {"inner": empty}, {"inner": empty}),
      )],
    # struct grab bag
    ("myStruct", {"numeric": 1}, {"numeric": 3.14159}, {"numeric": 3.14159}),
    ("myStruct", {"numeric": 3.14159}, {"numeric": 1}, {"numeric": 1}),
    ("myStruct", {"string": "aoeu"}, {"bool": True}, {"string": "aoeu", "bool": True}),
    ("myStruct", {"setStr": ["a", "b", "c"]}, {"setStr": ["a", "b"]}, {"setStr": ["a", "b", "c"]}),
    ("myStruct", {"setStr": ["a", "b"]}, {"setStr": ["a", "b", "c"]}, {"setStr": ["a", "b", "c"]}),
    ("myStruct", {"setStr": ["a", "b", "c"]}, {"setStr": []}, {"setStr": ["a", "b", "c"]}),
    ("myStruct", {"setStr": []}, {"setStr": ["a", "b", "c"]}, {"setStr": ["a", "b", "c"]}),
    ("myStruct", {"setStr": ["a", "b"]}, {"setStr": ["b", "a"]}, {"setStr": ["b", "a"]}),
    ("myStruct", {"setStr": ["a", "b", "c"]}, {"setStr": ["d", "e", "f"]}, {"setStr": list("abcdef")}),
    ("myStruct", {"setStr": ["a", "b", "c"]}, {"setStr": ["c", "d", "e", "f"]}, {"setStr": list("abcdef")}),
    ("myStruct", {"setStr": list("abcgf")}, {"setStr": list("cdef")}, {"setStr": list("abcgdef")}),
    ("myStruct", {"setStr": list("abc")}, {"setStr": list("defxyz")}, {"setStr": list("abcdefxyz")}),
    ("myStruct", {"setStr": list("cdef")}, {"setStr": list("ace")}, {"setStr": list("acdef")}),
    ("myStruct", {"setStr": list("abcxyz")}, {"setStr": list("def")}, {"setStr": list("abcxyzdef")}),
    ("myStruct", {"setStr": list("abcxyz")}, {"setStr": list("defxyz")}, {"setStr": list("abcdefxyz")}),
    ("myStruct", {"setStr": list("cagf")}, {"setStr": list("cfag")}, {"setStr": list("cfag")}),
    ("myStruct", {"setStr": list("abcd")}, {"setStr": list("defa")}, {"setStr": list("bcdefa")}),
    ("myStruct", {"setStr": list("cdefghij")}, {"setStr": list("2h3e4kl")}, {"setStr": list("cdfg2hij3e4kl")}),
    ("myStruct", {"setStr": list("abcdefghij")}, {"setStr": list("1b2h3e4kl")},
     {"setStr": list("a1bcdfg2hij3e4kl")}),
    ("myStruct", {"setStr": list("abb")}, {"setStr": ["c"]}, {"setStr": list("abbc")}),
    ("myStruct", {"setStr": list("abb")}, {"setStr": ["b"]}, {"setStr": list("ab")}),
    ("myStruct", {"setStr": list("abb")}, {"setStr": ["a"]}, {"setStr": list("abb")}),
    ("myStruct", {"setStr": list("abcdec")}, {"setStr": list("1b2ed")}, {"setStr": list("a1bc2ecd")}),
    ("myStruct", {"setStr": list("abcdec")}, {"setStr": list("1b2ced")}, {"setStr": list("a1b2ced")}),
    ("myStruct", {"setStr": list("aabb")}, {"setStr": list("bcd")}, {"setStr": list("aabcd")}),
    ("myStruct", {"setStr": list("aabb")}, {"setStr": []}, {"setStr": list("aabb")}),
    ("myStruct", {"setBool": [True]}, {"setBool": [False]}, {"setBool": [True, False]}),
    ("myStruct", {"setNumeric": [1, 2, 3.14159]}, {"setNumeric": [1, 2, 3]}, {"setNumeric": [1, 2, 3.14159, 3]}),
    ("myStruct", {"setStr": list("cagfca")}, {"setStr": list("cfag")}, {"setStr": list("cfag")}),
    ("myStruct", {"setNumeric": [1, 2, 3.14159, 1, 2]}, {"setNumeric": [1, 2, 3]},
     {"setNumeric": [1, 2, 3.14159, 3]}),
    ("myStruct", {"setBool": [True, False, True]}, {"setBool": [False]}, {"setBool": [True, False, True]}),
    ("myStruct", {"setBool": [True, False, True]}, {"setBool": [True]}, {"setBool": [True, False]}),
    # associative list
    ("myRoot", {"list": [{"key": "a", "id": 1, "value": {"a": "a"}}]},
     {"list": [{"key": "a", "id": 1, "value": {"a": "a"}}]},
     {"list": [{"key": "a", "id": 1, "value": {"a": "a"}}]}),
    ("myRoot", {"list": [{"key": "a", "id": 1, "value": {"a": "a"}}]},
     {"list": [{"key": "a", "id": 2, "value": {"a": "a"}}]},
     {"list": [{"key": "a", "id": 1, "value": {"a": "a"}}, {"key": "a", "id": 2, "value": {"a": "a"}}]}),
    ("myRoot", {"list": [{"key": "a", "id": 1}, {"key": "b", "id": 1}]},
     {"list": [{"key": "a", "id": 1}, {"key": "a", "id": 2}]},
     {"list": [{"key": "a", "id": 1}, {"key": "b", "id": 1}, {"key": "a", "id": 2}]}),
    ("myRoot", {"list": [{"key": "b", "id": 2}]},
     {"list": [{"key": "a", "id": 1}, {"key": "b", "id": 2}, {"key": "c", "id": 3}]},
     {"list": [{"key": "a", "id": 1}, {"key": "b", "id": 2}, {"key": "c", "id": 3}]}),
    ("myRoot", {"list": [{"key": "a", "id": 1}, {"key": "b", "id": 2}, {"key": "c", "id": 3}]},
     {"list": [{"key": "c", "id": 3}, {"key": "b", "id": 2}]},
     {"list": [{"key": "a", "id": 1}, {"key": "c", "id": 3}, {"key": "b", "id": 2}]}),
    ("myRoot", {"list": [{"key": "a", "id": 1}, {"key": "b", "id": 2}, {"key": "c", "id": 3}]},
     {"list": [{"key": "c", "id": 3}, {"key": "a", "id": 1}]},
     {"list": [{"key": "b", "id": 2}, {"key": "c", "id": 3}, {"key": "a", "id": 1}]}),
    ("myRoot", {"atomicList": ["a", "a", "a"]}, {"atomicList": None}, {"atomicList": None}),
    ("myRoot", {"atomicList": ["a", "b", "c"]}, {"atomicList": []}, {"atomicList": []}),
    ("myRoot", {"atomicList": ["a", "a", "a"]}, {"atomicList": ["a", "a"]}, {"atomicList": ["a", "a"]}),
    ("myRoot",
     {"list": [{"key": "a", "id": 1, "bv": True}, {"key": "b", "id": 2}, {"key": "a", "id": 1, "bv": False, "nv": 2}]},
     {"list": [{"key": "a", "id": 1, "nv": 3}, {"key": "c", "id": 3}, {"key": "b", "id": 2}]},
     {"list": [{"key": "a", "id": 1, "nv": 3}, {"key": "c", "id": 3}, {"key": "b", "id": 2}]}),
    ("myRoot", {"list": [{"key": "a", "id": 1, "nv": 1}, {"key": "a", "id": 1, "nv": 2}]}, {"list": []},
     {"list": [{"key": "a", "id": 1, "nv": 1}, {"key": "a", "id": 1, "nv": 2}]}),
    ("myRoot", {"list": [{"key": "a", "id": 1, "nv": 1}, {"key": "a", "id": 1, "nv": 2}]}, {},
     {"list": [{"key": "a", "id": 1, "nv": 1}, {"key": "a", "id": 1, "nv": 2}]}),
]


def K(**keys: Any) -> str:  # noqa: N802 - the fixtures' _KBF
    import json
    return "k:" + json.dumps(keys, separators=(",", ":"), sort_keys=True)


def V(value: Any) -> str:  # noqa: N802 - the fixtures' _V
    import json
    return "v:" + json.dumps(value, separators=(",", ":"))


def P(*parts: str) -> tuple[str, ...]:  # noqa: N802 - the fixtures' _P: plain names are fields
    return tuple(p if p[:2] in ("k:", "v:") else "f:" + p for p in parts)


# name → (schema, operations, live object, managed sets or None when the fixture does not check them).
# An operation is (verb, manager, object): verb "apply", "force" (ForceApply) or "update"; an apply that
# must conflict is ("conflict", manager, object, [paths]).
APPLY_CASES: dict[str, tuple[str, list[tuple], Any, dict[str, set] | None]] = {
    # merge/leaf_test.go
    "apply_twice_remove": ("leafFields", [
        ("apply", "default", {"numeric": 1, "string": "string", "bool": False}),
        ("apply", "default", {"string": "new string"}),
    ], {"string": "new string"}, {"default": {P("string")}}),
    "update_apply_omits": ("leafFields", [
        ("apply", "default", {"numeric": 2}),
        ("update", "controller", {"numeric": 1}),
        ("apply", "default", {}),
    ], {"numeric": 1}, {"controller": {P("numeric")}}),
    "update_remove_empty_set": ("leafFields", [
        ("apply", "default", {"string": "string"}),
        ("update", "controller", {"string": "new string"}),
    ], {"string": "new string"}, {"controller": {P("string")}}),
    "apply_remove_empty_set": ("leafFields", [
        ("apply", "default", {"string": "string"}),
        ("apply", "default", {}),
    ], {}, {}),
    "apply_update_apply_with_conflict": ("leafFields", [
        ("apply", "default", {"numeric": 1, "string": "string"}),
        ("update", "controller", {"numeric": 1, "string": "controller string", "bool": True}),
        ("conflict", "default", {"numeric": 2, "string": "user string"}, [P("string")]),
        ("force", "default", {"numeric": 2, "string": "user string"}),
    ], {"numeric": 2, "string": "user string", "bool": True},
        {"default": {P("numeric"), P("string")}, "controller": {P("bool")}}),
    # merge/nested_test.go
    "listOfLists_change_value": ("nested", [
        ("apply", "default", {"listOfLists": [{"name": "a", "value": ["b", "c"]}]}),
        ("apply", "default", {"listOfLists": [{"name": "a", "value": ["a", "c"]}]}),
    ], {"listOfLists": [{"name": "a", "value": ["a", "c"]}]},
        {"default": {P("listOfLists", K(name="a")), P("listOfLists", K(name="a"), "name"),
                     P("listOfLists", K(name="a"), "value", V("a")),
                     P("listOfLists", K(name="a"), "value", V("c"))}}),
    "listOfLists_change_key_and_value": ("nested", [
        ("apply", "default", {"listOfLists": [{"name": "a", "value": ["b", "c"]}]}),
        ("apply", "default", {"listOfLists": [{"name": "b", "value": ["a", "c"]}]}),
    ], {"listOfLists": [{"name": "b", "value": ["a", "c"]}]},
        {"default": {P("listOfLists", K(name="b")), P("listOfLists", K(name="b"), "name"),
                     P("listOfLists", K(name="b"), "value", V("a")),
                     P("listOfLists", K(name="b"), "value", V("c"))}}),
    "listOfMaps_change_value": ("nested", [
        ("apply", "default", {"listOfMaps": [{"name": "a", "value": {"b": "x", "c": "y"}}]}),
        ("apply", "default", {"listOfMaps": [{"name": "a", "value": {"a": "x", "c": "z"}}]}),
    ], {"listOfMaps": [{"name": "a", "value": {"a": "x", "c": "z"}}]},
        {"default": {P("listOfMaps", K(name="a")), P("listOfMaps", K(name="a"), "name"),
                     P("listOfMaps", K(name="a"), "value", "a"), P("listOfMaps", K(name="a"), "value", "c")}}),
    "listOfMaps_change_key_and_value": ("nested", [
        ("apply", "default", {"listOfMaps": [{"name": "a", "value": {"b": "x", "c": "y"}}]}),
        ("apply", "default", {"listOfMaps": [{"name": "b", "value": {"a": "x", "c": "z"}}]}),
    ], {"listOfMaps": [{"name": "b", "value": {"a": "x", "c": "z"}}]},
        {"default": {P("listOfMaps", K(name="b")), P("listOfMaps", K(name="b"), "name"),
                     P("listOfMaps", K(name="b"), "value", "a"), P("listOfMaps", K(name="b"), "value", "c")}}),
    "mapOfLists_change_value": ("nested", [
        ("apply", "default", {"mapOfLists": {"a": ["b", "c"]}}),
        ("apply", "default", {"mapOfLists": {"a": ["a", "c"]}}),
    ], {"mapOfLists": {"a": ["a", "c"]}},
        {"default": {P("mapOfLists", "a"), P("mapOfLists", "a", V("a")), P("mapOfLists", "a", V("c"))}}),
    "mapOfLists_change_key_and_value": ("nested", [
        ("apply", "default", {"mapOfLists": {"a": ["b", "c"]}}),
        ("apply", "default", {"mapOfLists": {"b": ["a", "c"]}}),
    ], {"mapOfLists": {"b": ["a", "c"]}},
        {"default": {P("mapOfLists", "b"), P("mapOfLists", "b", V("a")), P("mapOfLists", "b", V("c"))}}),
    "mapOfMaps_change_value": ("nested", [
        ("apply", "default", {"mapOfMaps": {"a": {"b": "x", "c": "y"}}}),
        ("apply", "default", {"mapOfMaps": {"a": {"a": "x", "c": "z"}}}),
    ], {"mapOfMaps": {"a": {"a": "x", "c": "z"}}},
        {"default": {P("mapOfMaps", "a"), P("mapOfMaps", "a", "a"), P("mapOfMaps", "a", "c")}}),
    "mapOfMaps_change_key_and_value": ("nested", [
        ("apply", "default", {"mapOfMaps": {"a": {"b": "x", "c": "y"}}}),
        ("apply", "default", {"mapOfMaps": {"b": {"a": "x", "c": "z"}}}),
    ], {"mapOfMaps": {"b": {"a": "x", "c": "z"}}},
        {"default": {P("mapOfMaps", "b"), P("mapOfMaps", "b", "a"), P("mapOfMaps", "b", "c")}}),
    "mapOfMapsRecursive_change_middle_key": ("nested", [
        ("apply", "default", {"mapOfMapsRecursive": {"a": {"b": {"c": None}}}}),
        ("apply", "default", {"mapOfMapsRecursive": {"a": {"d": {"c": None}}}}),
    ], {"mapOfMapsRecursive": {"a": {"d": {"c": None}}}},
        {"default": {P("mapOfMapsRecursive", "a"), P("mapOfMapsRecursive", "a", "d"),
                     P("mapOfMapsRecursive", "a", "d", "c")}}),
    "struct_apply_remove_all": ("nested", [
        ("apply", "default", {"struct": {"name": "a", "value": 1}}),
        ("apply", "default", None),
    ], None, {}),
    "struct_apply_remove_dangling": ("nested", [
        ("apply", "default", {"struct": {"name": "a"}}),
        ("apply", "default", {"struct": None}),
    ], {"struct": None}, {"default": {P("struct")}}),
    "struct_apply_update_remove_all": ("nested", [
        ("apply", "default", {"struct": {"name": "a"}}),
        ("update", "controller", {"struct": {"name": "a", "value": 1}}),
        ("apply", "default", None),
    ], {"struct": {"value": 1}}, None),
    "struct_apply_update_dict_dangling": ("nested", [
        ("apply", "default", {"struct": {"name": "a"}}),
        ("update", "controller", {"struct": {"name": "a", "value": 1}}),
        ("apply", "default", {"struct": {}}),
    ], {"struct": {"value": 1}}, None),
    "struct_apply_update_dict_null": ("nested", [
        ("apply", "default", {"struct": {"name": "a"}}),
        ("update", "controller", {"struct": {"name": "a", "value": 1}}),
        ("apply", "default", {"struct": None}),
    ], {"struct": {"value": 1}}, None),
    "struct_apply_update_took_over": ("nested", [
        ("apply", "default", {"struct": {"name": "a"}}),
        ("update", "controller", {"struct": {"name": "b", "value": 1}}),
        ("apply", "default", {"struct": None}),
    ], {"struct": {"name": "b", "value": 1}}, None),
    # merge/extract_apply_test.go (an ExtractApply on a new object is a forced apply)
    "extract_apply_empty_structure_list": ("sets", [
        ("force", "apply-one", {"list": None}),
        ("apply", "apply-two", {"list": ["a", "b"]}),
    ], {"list": ["a", "b"]}, {"apply-one": {P("list")}, "apply-two": {P("list", V("a")), P("list", V("b"))}}),
    "extract_apply_empty_structure_remove_list": ("sets", [
        ("force", "apply-one", {"list": None}),
        ("apply", "apply-two", {"list": ["a", "b"]}),
        ("apply", "apply-two", {"list": ["b"]}),
    ], {"list": ["b"]}, {"apply-one": {P("list")}, "apply-two": {P("list", V("b"))}}),
    "extract_apply_empty_structure_map": ("sets", [
        ("force", "apply-one", {"map": None}),
        ("apply", "apply-two", {"map": {"a": "c", "b": "d"}}),
    ], {"map": {"a": "c", "b": "d"}}, {"apply-one": {P("map")}, "apply-two": {P("map", "a"), P("map", "b")}}),
    "extract_apply_empty_structure_remove_map": ("sets", [
        ("force", "apply-one", {"map": None}),
        ("apply", "apply-two", {"map": {"a": "c", "b": "d"}}),
        ("apply", "apply-two", {"map": {"b": "d"}}),
    ], {"map": {"b": "d"}}, {"apply-one": {P("map")}, "apply-two": {P("map", "b")}}),
}
