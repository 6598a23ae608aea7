"""CRD structural schemas: validation messages and paths, pruning, defaulting (apiextensions-apiserver)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from fakekube.errors import FieldError
from fakekube.schema import StructuralSchema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["image"],
            "properties": {
                "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 10, "default": 1},
                "image": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "ratio": {"type": "number", "exclusiveMinimum": True, "minimum": 0, "multipleOf": 0.5},
                "port": {"x-kubernetes-int-or-string": True},
                "enabled": {"type": "boolean"},
                "maybe": {"type": "string", "nullable": True},
                "when": {"type": "string", "format": "date-time"},
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": 3,
                    "uniqueItems": True,
                },
                "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "items": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {"name": {"type": "string"}, "size": {"type": "integer", "default": 5}},
                    },
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 2},
                "closed": {"type": "object", "minProperties": 1, "properties": {"a": {"type": "string"}}},
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "free": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"typed": {"type": "object", "properties": {"x": {"type": "string"}}}},
                },
            },
        },
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
    },
}


@pytest.fixture(scope="module")
def schema() -> StructuralSchema:
    return StructuralSchema(SCHEMA)


def obj(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "x.io/v1",
        "kind": "W",
        "metadata": {"name": "w"},
        "spec": {"image": "nginx", **spec},
    }


def causes(errors: list[FieldError]) -> list[tuple[str, str, str]]:
    return [(e.type, e.field, e.body) for e in errors]


def test_valid_object(schema: StructuralSchema) -> None:
    assert schema.validate(obj(replicas=3, tags=["a"], items=[{"name": "x"}], port="http", maybe=None)) == []
    assert schema.validate(obj(port=80, ratio=1.5, when="2024-01-01T00:00:00Z", replicas=2.0)) == []


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"replicas": "string"},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.replicas",
                    'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
                )
            ],
        ),
        (
            # Observed on kube-apiserver v1.37.2: an int32 field given a fraction names its format and Go's
            # type, and fails the integer range check too.
            {"replicas": 1.5},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.replicas",
                    'Invalid value: "float64": spec.replicas in body must be of type int32: "float64"',
                ),
                (
                    "FieldValueInvalid",
                    "<nil>",
                    'Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
                ),
            ],
        ),
        (
            {"replicas": None},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.replicas",
                    'Invalid value: "null": spec.replicas in body must be of type integer: "null"',
                )
            ],
        ),
        (
            {"replicas": 11},
            [
                (
                    "FieldValueInvalid",
                    "spec.replicas",
                    "Invalid value: 11: spec.replicas in body should be less than or equal to 10",
                )
            ],
        ),
        (
            {"replicas": -1},
            [
                (
                    "FieldValueInvalid",
                    "spec.replicas",
                    "Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
                )
            ],
        ),
        (
            {"replicas": 2**31},
            [
                (
                    "FieldValueInvalid",
                    "<nil>",
                    'Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
                ),
                (
                    "FieldValueInvalid",
                    "spec.replicas",
                    "Invalid value: 2147483648: spec.replicas in body should be less than or equal to 10",
                ),
            ],
        ),
        (
            # integer data takes multipleOf as an int64, 0.5 truncated to 0 (kube-openapi validate/values.go
            # MultipleOfNativeType; observed on kube-apiserver v1.37.2)
            {"ratio": 0},
            [
                (
                    "FieldValueInvalid",
                    "spec.ratio",
                    "Invalid value: 0: factor MultipleOf declared for spec.ratio must be positive: 0",
                ),
                (
                    "FieldValueInvalid",
                    "spec.ratio",
                    "Invalid value: 0: spec.ratio in body should be greater than 0",
                ),
            ],
        ),
        (
            {"ratio": 3},
            [
                (
                    "FieldValueInvalid",
                    "spec.ratio",
                    "Invalid value: 3: factor MultipleOf declared for spec.ratio must be positive: 0",
                )
            ],
        ),
        (
            {"ratio": 0.7},
            [
                (
                    "FieldValueInvalid",
                    "spec.ratio",
                    "Invalid value: 0.7: spec.ratio in body should be a multiple of 0.5",
                )
            ],
        ),
        (
            {"image": ""},
            [
                (
                    "FieldValueInvalid",
                    "spec.image",
                    'Invalid value: "": spec.image in body should be at least 1 chars long',
                )
            ],
        ),
        (
            {"image": "x" * 21},
            [("FieldValueTooLong", "spec.image", "Too long: may not be more than 20 bytes")],
        ),
        (
            {"image": "Nginx"},
            [
                (
                    "FieldValueInvalid",
                    "spec.image",
                    "Invalid value: \"Nginx\": spec.image in body should match '^[a-z]+$'",
                )
            ],
        ),
        (
            {"mode": "x"},
            [("FieldValueNotSupported", "spec.mode", 'Unsupported value: "x": supported values: "a", "b"')],
        ),
        (
            {"port": 1.5},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.port",
                    'Invalid value: "number": spec.port in body must be of type integer,string: "number"',
                )
            ],
        ),
        (
            {"enabled": "yes"},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.enabled",
                    'Invalid value: "string": spec.enabled in body must be of type boolean: "string"',
                )
            ],
        ),
        (
            {"when": "yesterday"},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.when",
                    'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
                )
            ],
        ),
        (
            {"tags": []},
            [
                (
                    "FieldValueInvalid",
                    "spec.tags",
                    "Invalid value: 0: spec.tags in body should have at least 1 items",
                )
            ],
        ),
        (
            {"tags": ["a", "b", "c", "d"]},
            [("FieldValueTooMany", "spec.tags", "Too many: 4: must have at most 3 items")],
        ),
        (
            {"tags": ["a", "a"]},
            [
                (
                    "FieldValueInvalid",
                    "spec.tags",
                    'Invalid value: "": spec.tags in body shouldn\'t contain duplicates',
                )
            ],
        ),
        (
            {"tags": ["a", 1]},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.tags[1]",
                    'Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"',
                )
            ],
        ),
        (
            {"items": [{"name": "a"}, {}]},
            [("FieldValueRequired", "spec.items[1].name", "Required value")],
        ),
        (
            {"items": [{"name": "a"}, {"name": "a"}]},
            [("FieldValueDuplicate", "spec.items[1]", 'Duplicate value: {"name":"a"}')],
        ),
        (
            {"set": ["x", "y", "x"]},
            [("FieldValueDuplicate", "spec.set[2]", 'Duplicate value: "x"')],
        ),
        (
            {"labels": {"a": "1", "b": 2}},
            [
                (
                    "FieldValueTypeInvalid",
                    "spec.labels.b",
                    'Invalid value: "integer": spec.labels.b in body must be of type string: "integer"',
                )
            ],
        ),
        (
            {"labels": {"a": "1", "b": "2", "c": "3"}},
            [("FieldValueTooMany", "spec.labels", "Too many: 3: must have at most 2 items")],
        ),
        (
            {"closed": {}},
            [
                (
                    "FieldValueInvalid",
                    "spec.closed",
                    "Invalid value: 0: spec.closed in body should have at least 1 properties",
                )
            ],
        ),
        (
            {"template": {"metadata": {}}},
            [
                ("FieldValueRequired", "spec.template.apiVersion", "Required value"),
                ("FieldValueRequired", "spec.template.kind", "Required value"),
            ],
        ),
    ],
)
def test_validation_errors(schema: StructuralSchema, spec: dict, expected: list) -> None:
    assert causes(schema.validate(obj(**spec))) == expected


def test_required_and_type_at_top(schema: StructuralSchema) -> None:
    errs = schema.validate({"apiVersion": "x.io/v1", "kind": "W", "spec": {}})
    assert causes(errs) == [("FieldValueRequired", "spec.image", "Required value")]
    errs = schema.validate({"spec": "nope"})
    assert causes(errs) == [
        (
            "FieldValueTypeInvalid",
            "spec",
            'Invalid value: "string": spec in body must be of type object: "string"',
        )
    ]


def test_a_catastrophic_pattern_is_matched_in_linear_time() -> None:
    """issue 28: ``^(a+)+$`` against 28 a's and a ``!`` held the server 20 s under Python's re; Go's RE2 (and
    now fakekube's) answers at once, and a value thousands of a's long is refused like any other."""
    s = StructuralSchema({"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a+)+$"}}})
    value = "a" * 5000 + "!"
    assert causes(s.validate({"name": value})) == [
        ("FieldValueInvalid", "name", f'Invalid value: "{value}": name in body should match \'^(a+)+$\'')]
    assert s.validate({"name": "a" * 5000}) == []


def test_metadata_is_not_schema_validated(schema: StructuralSchema) -> None:
    assert schema.validate({**obj(), "metadata": "weird"}) == []


def test_root_required() -> None:
    s = StructuralSchema({"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object"}}})
    assert causes(s.validate({"apiVersion": "v1"})) == [("FieldValueRequired", "spec", "Required value")]


def test_additional_properties_false() -> None:
    s = StructuralSchema(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"a": {"type": "string"}},
                }
            },
        }
    )
    assert causes(s.validate({"spec": {"a": "x", "b": 1}})) == [
        ("FieldValueInvalid", "spec", 'Invalid value: "b": spec.b in body is a forbidden property')
    ]


def test_enum_non_string_values_render_as_json() -> None:
    s = StructuralSchema({"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}})
    assert causes(s.validate({"n": 3})) == [
        ("FieldValueNotSupported", "n", 'Unsupported value: 3: supported values: "1", "2"')
    ]


def test_float_bounds_render_like_go() -> None:
    s = StructuralSchema({"type": "object", "properties": {"x": {"type": "number", "maximum": 1000000}}})
    assert causes(s.validate({"x": 2000000.5})) == [
        (
            "FieldValueInvalid",
            "x",
            "Invalid value: 2000000.5: x in body should be less than or equal to 1e+06",
        )
    ]


# ---------------------------------------------------------------------------------------------- pruning


def test_prune_unknown_fields(schema: StructuralSchema) -> None:
    o = obj(unknown=1, items=[{"name": "a", "extra": True}], labels={"k": "v"})
    o["metadata"]["whatever"] = 1
    o["topLevelUnknown"] = {"x": 1}
    o["status"] = {"phase": "Ready", "junk": 1}
    schema.prune(o)
    assert o == {
        "apiVersion": "x.io/v1",
        "kind": "W",
        "metadata": {"name": "w", "whatever": 1},  # metadata is left to the server
        "spec": {"image": "nginx", "items": [{"name": "a"}], "labels": {"k": "v"}},
        "status": {"phase": "Ready"},
    }


def test_prune_preserve_unknown_nested(schema: StructuralSchema) -> None:
    o = obj(free={"anything": {"deep": [1, {"x": 2}]}, "typed": {"x": "ok", "drop": 1}})
    schema.prune(o)
    # Unknown fields under a preserving node stay; known children with their own schema are still pruned.
    assert o["spec"]["free"] == {"anything": {"deep": [1, {"x": 2}]}, "typed": {"x": "ok"}}


def test_prune_embedded_resource_keeps_meta_fields(schema: StructuralSchema) -> None:
    template = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"labels": {"a": "b"}},
        "spec": {"containers": []},
    }
    o = obj(template=copy.deepcopy(template))
    schema.prune(o)
    assert o["spec"]["template"] == template


def test_prune_embedded_without_preserve_drops_unknown() -> None:
    s = StructuralSchema(
        {
            "type": "object",
            "properties": {
                "t": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "properties": {"spec": {"type": "object"}},
                }
            },
        }
    )
    o = {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {"a": 1}, "other": 1}}
    s.prune(o)
    assert o == {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {}}}


def test_prune_root_preserve_unknown() -> None:
    s = StructuralSchema(
        {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}},
        }
    )
    o = {"apiVersion": "v1", "kind": "K", "metadata": {}, "other": {"z": 1}, "spec": {"a": "x", "b": 1}}
    s.prune(o)
    assert o == {"apiVersion": "v1", "kind": "K", "metadata": {}, "other": {"z": 1}, "spec": {"a": "x"}}


def test_prune_list_items_and_maps() -> None:
    s = StructuralSchema(
        {
            "type": "object",
            "properties": {
                "list": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"k": {"type": "string"}}},
                },
                "map": {
                    "type": "object",
                    "additionalProperties": {"type": "object", "properties": {"k": {"type": "string"}}},
                },
            },
        }
    )
    o = {"list": [{"k": "a", "x": 1}], "map": {"one": {"k": "b", "y": 2}}}
    s.prune(o)
    assert o == {"list": [{"k": "a"}], "map": {"one": {"k": "b"}}}


# ------------------------------------------------------------------------------------------- defaulting


def test_defaults_applied(schema: StructuralSchema) -> None:
    o = obj(items=[{"name": "a"}, {"name": "b", "size": 1}])
    schema.apply_defaults(o)
    assert o["spec"]["replicas"] == 1
    assert o["spec"]["items"] == [{"name": "a", "size": 5}, {"name": "b", "size": 1}]


def test_defaults_replace_non_nullable_null(schema: StructuralSchema) -> None:
    o = obj(replicas=None)
    schema.apply_defaults(o)
    assert o["spec"]["replicas"] == 1


def test_defaults_do_not_create_missing_parents(schema: StructuralSchema) -> None:
    o: dict[str, Any] = {"apiVersion": "x.io/v1", "kind": "W", "metadata": {}}
    schema.apply_defaults(o)
    assert "spec" not in o


def test_defaults_are_copies() -> None:
    s = StructuralSchema(
        {"type": "object", "properties": {"spec": {"type": "object", "default": {"a": [1]}}}}
    )
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    s.apply_defaults(first)
    s.apply_defaults(second)
    first["spec"]["a"].append(2)
    assert second == {"spec": {"a": [1]}}


def test_nested_default_object_then_inner_defaults() -> None:
    s = StructuralSchema(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "default": {},
                    "properties": {"n": {"type": "integer", "default": 3}},
                }
            },
        }
    )
    o: dict[str, Any] = {}
    s.apply_defaults(o)
    assert o == {"spec": {"n": 3}}


def test_non_nullable_nulls_without_default_are_dropped(schema: StructuralSchema) -> None:
    o = obj(mode=None, maybe=None)
    schema.apply_defaults(o)
    assert "mode" not in o["spec"]
    assert o["spec"]["maybe"] is None


def test_defaulting_copies_what_it_changes_and_shares_the_rest() -> None:
    """apply_defaults edits the top-level dict it is given, but below it copies each map or list it changes
    (a patch's result shares subtrees with the stored object): the input's subtrees keep their JSON, untouched
    ones stay shared by identity, and the metadata dict keeps its identity."""
    s = StructuralSchema({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "a": {"type": "object", "properties": {"n": {"type": "integer", "default": 3}, "z": {"type": "string"}}},
            "untouched": {"type": "object", "properties": {"k": {"type": "string"}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {
                "w": {"type": "integer", "default": 1}}}},
            "map": {"type": "object", "additionalProperties": {"type": "string", "default": "d"}}}},
        "metadata": {"type": "object"}}})
    spec = {"a": {"z": None}, "untouched": {"k": "v"}, "list": [{"w": 2}, {}], "map": {"x": None, "y": "1"}}
    meta = {"name": "x"}
    obj = {"metadata": meta, "spec": spec}
    before = json.dumps(spec)
    s.apply_defaults(obj)
    assert json.dumps(spec) == before
    assert obj["spec"] == {"a": {"n": 3}, "untouched": {"k": "v"}, "list": [{"w": 2}, {"w": 1}],
                           "map": {"x": "d", "y": "1"}}
    assert obj["spec"]["untouched"] is spec["untouched"] and obj["spec"]["list"][0] is spec["list"][0]
    assert obj["metadata"] is meta
    done = obj["spec"]
    s.apply_defaults(obj)
    assert obj["spec"] is done  # nothing left to default: nothing copied


# ---------------------------------------------------------------------------------------- performance

SANDBOX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 1},
                "podTemplate": {
                    "type": "object",
                    "properties": {
                        "metadata": {
                            "type": "object",
                            "properties": {
                                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                            },
                        },
                        "spec": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                            "properties": {
                                "containers": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["name"],
                                        "properties": {
                                            "name": {"type": "string"},
                                            "image": {"type": "string"},
                                            "args": {"type": "array", "items": {"type": "string"}},
                                            "env": {
                                                "type": "array",
                                                "items": {
                                                    "type": "object",
                                                    "properties": {
                                                        "name": {"type": "string"},
                                                        "value": {"type": "string"},
                                                    },
                                                },
                                            },
                                            "ports": {
                                                "type": "array",
                                                "items": {
                                                    "type": "object",
                                                    "properties": {
                                                        "containerPort": {
                                                            "type": "integer",
                                                            "format": "int32",
                                                        },
                                                        "protocol": {"type": "string", "default": "TCP"},
                                                    },
                                                },
                                            },
                                            "resources": {
                                                "type": "object",
                                                "properties": {
                                                    "limits": {
                                                        "type": "object",
                                                        "additionalProperties": {
                                                            "x-kubernetes-int-or-string": True
                                                        },
                                                    },
                                                    "requests": {
                                                        "type": "object",
                                                        "additionalProperties": {
                                                            "x-kubernetes-int-or-string": True
                                                        },
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
                "shutdownTime": {"type": "string", "format": "date-time"},
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "conditions": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["type"],
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string"},
                            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                        },
                    },
                }
            },
        },
    },
}


def sandbox() -> dict[str, Any]:
    container = {
        "name": "main",
        "image": "python:3.12",
        "args": ["-m", "http.server"],
        "env": [{"name": f"E{i}", "value": str(i)} for i in range(5)],
        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": 1}},
    }
    return {
        "apiVersion": "agents.x-k8s.io/v1alpha1",
        "kind": "Sandbox",
        "metadata": {"name": "sb", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "podTemplate": {
                "metadata": {"labels": {"app": "sb"}},
                "spec": {"containers": [container, {**container, "name": "side"}]},
            },
            "shutdownTime": "2025-01-01T00:00:00Z",
        },
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }


def test_a_realistic_sandbox_validates_and_a_broken_copy_is_reported() -> None:
    # Its speed is the seed-load benchmark's to measure (docs/benchmarks.md), not a wall-clock bound here.
    s = StructuralSchema(SANDBOX_SCHEMA)
    o = sandbox()
    before = json.dumps(o, sort_keys=True)
    assert s.validate(o) == []
    assert json.dumps(o, sort_keys=True) == before
    broken = sandbox()
    broken["spec"]["replicas"] = "one"
    broken["status"]["conditions"].append({"type": "Ready", "status": "Maybe"})
    errors = [str(e) for e in s.validate(broken)]
    assert any("spec.replicas" in e for e in errors), errors
    assert any("status.conditions[1].status" in e for e in errors), errors
    assert any("status.conditions[1]" in e and "Duplicate" in e for e in errors), errors


# ---------------------------------------------------------------------------------------- property test

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "spec",
                    "replicas",
                    "image",
                    "tags",
                    "items",
                    "name",
                    "labels",
                    "port",
                    "mode",
                    "template",
                    "free",
                    "x",
                    "apiVersion",
                    "kind",
                    "metadata",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_random_json_only_field_errors(value: Any) -> None:
    s = StructuralSchema(SCHEMA)
    for err in s.validate(value):
        assert isinstance(err, FieldError)
        assert isinstance(err.body, str)
    doc = {"spec": value}
    for err in s.validate(doc):
        assert isinstance(err.body, str)
    s.prune(copy.deepcopy(doc))
    s.apply_defaults(copy.deepcopy(doc))


# ------------------------------------------------------- an update over a version known to pass the schema

_CANDIDATES: dict[str, list[Any]] = {
    "replicas": [1, 2, 11, -1, 1.0, True, "x"],
    "image": ["nginx", "Nginx", "", "abc"],
    "ratio": [0.5, 1, 0.3, True],
    "tags": [["a"], ["a", "a"], [], ["a", 1], ["a", "b", "c", "d"], ["b", "c"]],
    "set": [["a", "b"], ["a", "a"], ["b"]],
    "items": [[{"name": "x"}], [{"name": "x"}, {"name": "x"}], [{"size": 1}], [{"name": "x", "size": True}],
              [{"name": "x", "size": 1}, {"name": "y", "size": 2}], [{"name": "x", "size": 1.0}]],
    "labels": [{"a": "b"}, {"a": 1}, {"a": "b", "c": "d", "e": "f"}, {"a": "c"}],
    "closed": [{"a": "x"}, {}, {"a": 1}, {"a": "y"}],
    "free": [{"typed": {"x": "s"}}, {"typed": {"x": 1}}, {"other": 1}, {"typed": {"x": "t"}, "other": [1]}],
}
_spec = st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in _CANDIDATES.items()})
_status = st.sampled_from([{"phase": "a"}, {"phase": 1}, {"phase": "b"}, {}])


@settings(max_examples=400, deadline=None)
@given(old_spec=_spec, changes=_spec, old_status=_status, new_status=_status)
def test_an_update_over_a_checked_version_finds_what_walking_everything_finds(
        schema: StructuralSchema, old_spec: dict, changes: dict, old_status: dict, new_status: dict) -> None:
    # Members and items left as stored are not walked again when the stored version is known to pass; the
    # errors must be exactly those of walking every changed top-level field, and "known to pass" must be true.
    old = {**obj(**old_spec), "status": old_status}
    errs, whole = schema.check(old)
    assume(whole)
    assert errs == []
    new = {**obj(**{**old_spec, **changes}), "status": new_status}
    skipping, now_whole = schema.check(new, old, old_valid=True)
    walking, _ = schema.check(new, old, old_valid=False)
    assert causes(skipping) == causes(walking)
    if now_whole:
        assert schema.validate(new) == []


def test_a_changed_item_next_to_unchanged_ones_is_still_rejected(schema: StructuralSchema) -> None:
    old = obj(items=[{"name": "x", "size": 1}, {"name": "y", "size": 2}], labels={"a": "b"})
    assert schema.check(old) == ([], True)
    new = obj(items=[{"name": "x", "size": 1}, {"name": "y", "size": True}], labels={"a": "b"})
    errs, whole = schema.check(new, old, old_valid=True)
    assert [e.field for e in errs] == ["spec.items[1].size"] and not whole
    # 1.0 equals 1 in Python but is another JSON literal: not taken for the old value.
    new = obj(items=[{"name": "x", "size": 1.0}, {"name": "y", "size": 2}], labels={"a": "b"})
    assert schema.check(new, old, old_valid=True) == schema.check(new, old, old_valid=False)


_keys = st.sampled_from(["spec", "status", "metadata", "apiVersion", "kind", "replicas", "tags", "items", "name",
                         "size", "labels", "closed", "a", "template", "free", "typed", "x", "junk"])
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=4),
                     max_leaves=25)


@settings(max_examples=500, deadline=None)
@given(doc=st.dictionaries(_keys, _json, max_size=5))
@example(doc={"spec": {"free": {"typed": {"junk": 1}}}})  # a known field under a preserving one is pruned
@example(doc={"spec": {"free": {"typed": {"x": "s"}, "junk": [{"a": 1}]}}})  # unknown ones stay
@example(doc={"spec": {"template": {"metadata": {"junk": 1}, "spec": {"junk": 1}}}})
@example(doc={"spec": {"items": [{"name": "x"}, {"name": "y", "junk": None}]}})
@example(doc={"status": {"phase": "a", "junk": {}}})
@example(doc={"metadata": {"junk": 1}, "apiVersion": 1, "kind": []})
def test_would_prune_answers_what_prune_does(schema: StructuralSchema, doc: dict) -> None:
    before = copy.deepcopy(doc)
    assert schema.would_prune(doc) == bool(schema.prune(copy.deepcopy(doc)))
    assert doc == before  # asked without changing it


_LISTS_SCHEMA = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
        "plain": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "array",
                                                                                "items": {"type": "string"}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "byName": {"type": "object", "additionalProperties": {
            "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "inner": {
                "type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}}}}}},
        "keyless": {"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "object"}},
    }}}}

_list_values = st.fixed_dictionaries({}, optional={
    "plain": st.fixed_dictionaries({}, optional={"a": st.sampled_from(["x", "y"]),
                                                 "b": st.lists(st.sampled_from(["x", "y"]), max_size=3)}),
    "tags": st.lists(st.sampled_from(["x", "y", 1]), max_size=3),
    "byName": st.dictionaries(st.sampled_from(["k", "l"]), st.lists(st.fixed_dictionaries(
        {"name": st.sampled_from(["n", "m"])}, optional={"inner": st.lists(st.sampled_from([1, 2]), max_size=3)}),
        max_size=3), max_size=2),
    "keyless": st.lists(st.fixed_dictionaries({}, optional={"name": st.just("n")}), max_size=2),
})


def _walk_every_node(node: Any) -> None:
    node.lists_below = True
    for child in [*node.properties.values(), node.additional, node.items]:
        if child is not None:
            _walk_every_node(child)


@settings(max_examples=300, deadline=None)
@given(spec=_list_values, old_spec=_list_values)
def test_list_checks_skip_only_subtrees_without_set_or_map_lists(spec: dict, old_spec: dict) -> None:
    """validate_lists returns at once under a node with no set or map list below it; walking every node gives
    the same errors (duplicates found at every depth, updates included)."""
    fast, full = StructuralSchema(_LISTS_SCHEMA), StructuralSchema(_LISTS_SCHEMA)
    _walk_every_node(full._root)
    assert not fast._root.properties["spec"].properties["plain"].lists_below
    assert fast._root.properties["spec"].properties["byName"].lists_below
    obj, old = {"spec": spec}, {"spec": old_spec}
    for args in ((obj,), (obj, old), (obj, old, True)):
        assert fast.check(*args) == full.check(*args)


def test_a_blocking_error_skips_the_cel_rules_with_a_note() -> None:
    # apiextensions-apiserver pkg/registry/customresource/strategy.go hasBlockingErr (v0.37.2); observed on
    # kube-apiserver v1.37.2: a type error in a schema with x-kubernetes-validations adds the <nil> note.
    from fakekube.errors import invalid as invalid_error
    from fakekube.errors import type_invalid as type_error
    from fakekube.schema import StructuralSchema

    with_rules = StructuralSchema({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "cel": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 0"}]}}}}})
    blocking = [type_error("spec.cel", "string", 'spec.cel in body must be of type integer: "string"')]
    note = with_rules.rules_not_checked(blocking)
    assert [e.cause() for e in note] == [{
        "reason": "FieldValueInvalid", "field": "<nil>",
        "message": "Invalid value: null: some validation rules were not checked because the object was invalid; "
                   "correct the existing errors to complete validation"}]
    assert with_rules.rules_not_checked([invalid_error("spec.num", 0, "should be greater than 0")]) == []
    assert StructuralSchema({"type": "object"}).rules_not_checked(blocking) == []
