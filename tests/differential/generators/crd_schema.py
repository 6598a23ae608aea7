"""CRD schemas: custom resources of a CRD (made in each case's setup) with a schema that has every kind of
constraint — types, enum, pattern, min/max, length, required, nullable, int-or-string, preserve-unknown
fields, list and map limits, a set, a date-time format, a CEL rule, defaults (on create, nested, and on
read through a second version) and pruning of unknown fields; YAML bodies with values JSON does not have;
then CRDs whose own schema or names the server refuses (a pattern that does not compile, a schema that is
not structural...), and updates of a CRD's immutable fields."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import crd_setup  # noqa: E402
from _steps import APPLY, MERGE, case, get, post, put, step  # noqa: E402

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP = "{ns}.example.com"
THINGS = f"/apis/{GROUP}/v1/namespaces/{{ns}}/things"
THINGS_V2 = f"/apis/{GROUP}/v2/namespaces/{{ns}}/things"

SPEC_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "str": {"type": "string", "minLength": 1, "maxLength": 5},
    "int": {"type": "integer", "minimum": 1, "maximum": 10},
    "num": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "multipleOf": 0.5},
    "bool": {"type": "boolean"},
    "enumv": {"type": "string", "enum": ["a", "b"]},
    "pat": {"type": "string", "pattern": "^[a-z]+$"},
    "req": {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}, "y": {"type": "string"}}},
    "nullable": {"type": "string", "nullable": True},
    "notnull": {"type": "string"},
    "ios": {"x-kubernetes-int-or-string": True},
    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    "arr": {"type": "array", "maxItems": 2, "items": {"type": "integer"}},
    "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    "map": {"type": "object", "maxProperties": 2, "additionalProperties": {"type": "string"}},
    "dflt": {"type": "string", "default": "hello"},
    "dfltobj": {"type": "object", "default": {}, "properties": {"a": {"type": "string", "default": "x"}}},
    "when": {"type": "string", "format": "date-time"},
    "cel": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 100", "message": "cel must be under 100"}]},
    "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
}}


def things_crd() -> dict[str, Any]:
    v2_spec = copy.deepcopy(SPEC_SCHEMA)
    v2_spec["properties"]["later"] = {"type": "string", "default": "from-v2"}

    def version(name: str, spec: dict[str, Any], storage: bool) -> dict[str, Any]:
        return {"name": name, "served": True, "storage": storage, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": spec, "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}}

    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"things.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
                     "versions": [version("v1", SPEC_SCHEMA, True), version("v2", v2_spec, False)]}}


SETUP = crd_setup(things_crd())


def thing(spec: Any, version: str = "v1", **extra: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{version}", "kind": "Thing", "metadata": {"name": "t"}, "spec": spec, **extra}


VALUES = [  # (variant, spec): each created once, the answer (201 or 422) is the case
    ("minimal", {}), ("full", {"str": "abc", "int": 5, "num": 1.5, "bool": True, "enumv": "a", "pat": "abc",
                              "req": {"x": "1"}, "nullable": "n", "notnull": "n", "ios": 5, "free": {"any": [1, {"b": None}]},
                              "arr": [1, 2], "set": ["a", "b"], "map": {"a": "1"}, "dflt": "set", "when": "2026-01-01T00:00:00Z",
                              "cel": 5, "embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e"}}}),
    ("str-number", {"str": 5}), ("int-string", {"int": "x"}), ("int-float", {"int": 1.5}), ("int-whole-float", {"int": 5.0}),
    ("num-string", {"num": "x"}), ("bool-string", {"bool": "yes"}), ("arr-string", {"arr": "x"}), ("map-list", {"map": []}),
    ("free-string", {"free": "x"}), ("req-string", {"req": "x"}), ("spec-number", 5), ("spec-list", []),
    ("enum-bad", {"enumv": "c"}), ("pattern-bad", {"pat": "ABC"}), ("int-below", {"int": 0}), ("int-above", {"int": 11}),
    ("num-exclusive-min", {"num": 0}), ("num-multiple-of", {"num": 0.3}), ("str-too-short", {"str": ""}),
    ("str-too-long", {"str": "toolong"}), ("arr-too-long", {"arr": [1, 2, 3]}), ("map-too-many", {"map": {"a": "1", "b": "2", "c": "3"}}),
    ("required-missing", {"req": {"y": "a"}}), ("nullable-null", {"nullable": None}), ("not-nullable-null", {"notnull": None}),
    ("int-or-string-int", {"ios": 5}), ("int-or-string-string", {"ios": "5"}), ("int-or-string-float", {"ios": 1.5}),
    ("int-or-string-bool", {"ios": True}), ("set-duplicates", {"set": ["a", "a"]}), ("default-kept", {"dflt": "mine"}),
    ("default-null", {"dflt": None}), ("default-object-empty", {"dfltobj": {}}), ("default-object-set", {"dfltobj": {"a": "y"}}),
    ("date-time-bad", {"when": "yesterday"}), ("date-time-date-only", {"when": "2026-01-01"}), ("cel-violated", {"cel": 150}),
    ("cel-wrong-type", {"cel": "x"}), ("unknown-in-spec", {"unknown": 1}), ("unknown-nested", {"req": {"x": "1", "z": 2}}),
    ("free-nested-unknown", {"free": {"a": {"b": {"c": 1}}}}), ("embedded-without-kind", {"embedded": {"metadata": {"name": "e"}}}),
    ("embedded-bad-metadata", {"embedded": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}}),
]


def resources() -> list[dict]:
    out = [case(f"crd-schema/create/{variant}", "validation" if variant not in ("minimal", "full") else "crd",
                [post(THINGS, thing(spec)), get(f"{THINGS}/t")], SETUP) for variant, spec in VALUES]
    out += [
        case("crd-schema/defaults/on-create-and-read", "defaults", [post(THINGS, thing({})), get(f"{THINGS}/t")], SETUP),
        case("crd-schema/defaults/on-read-other-version", "defaults", [post(THINGS, thing({})), get(f"{THINGS_V2}/t"),
                                                                       get(f"{THINGS}/t")], SETUP),
        case("crd-schema/defaults/create-through-v2", "defaults", [post(THINGS_V2, thing({}, "v2")), get(f"{THINGS}/t"),
                                                                   get(f"{THINGS_V2}/t")], SETUP),
        case("crd-schema/defaults/on-update", "defaults", [
            post(THINGS, thing({"dflt": "mine"})), put(f"{THINGS}/t", {**thing({}), "metadata": {
                "name": "t", "resourceVersion": "{rv:0}"}})], SETUP),
        case("crd-schema/defaults/on-merge-patch-null", "defaults", [
            post(THINGS, thing({"dflt": "mine"})), step("PATCH", f"{THINGS}/t", body={"spec": {"dflt": None}},
                                                       content_type=MERGE)], SETUP),
        case("crd-schema/pruning/default", "fieldvalidation", [post(THINGS, thing({"unknown": 1}, extra=2))], SETUP),
        case("crd-schema/pruning/strict", "fieldvalidation", [
            post(THINGS, thing({"unknown": 1}, extra=2), query={"fieldValidation": "Strict"})], SETUP),
        case("crd-schema/pruning/ignore", "fieldvalidation", [
            post(THINGS, thing({"unknown": 1}, extra=2), query={"fieldValidation": "Ignore"}), get(f"{THINGS}/t")], SETUP),
        case("crd-schema/pruning/metadata-unknown", "fieldvalidation", [post(THINGS, {
            **thing({}), "metadata": {"name": "t", "unknownMeta": 1}})], SETUP),
        case("crd-schema/status/ignored-on-create", "subresources", [
            post(THINGS, thing({}, status={"phase": "Ready"})), get(f"{THINGS}/t")], SETUP),
        case("crd-schema/patch/merge-type-error", "validation", [
            post(THINGS, thing({})), step("PATCH", f"{THINGS}/t", body={"spec": {"int": "x"}}, content_type=MERGE),
            get(f"{THINGS}/t")], SETUP),
        case("crd-schema/patch/merge-pattern-error", "validation", [
            post(THINGS, thing({})), step("PATCH", f"{THINGS}/t", body={"spec": {"pat": "ABC"}}, content_type=MERGE)], SETUP),
        case("crd-schema/apply/type-error", "apply", [step(
            "PATCH", f"{THINGS}/t", raw=json.dumps(thing({"int": "x"})), content_type=APPLY, query={"fieldManager": "a"}),
            get(f"{THINGS}/t")], SETUP),
        case("crd-schema/apply/map-as-list", "apply", [step(
            "PATCH", f"{THINGS}/t", raw=json.dumps(thing({"map": ["a"]})), content_type=APPLY, query={"fieldManager": "a"}),
            get(f"{THINGS}/t")], SETUP),
        case("crd-schema/apply/list-as-map", "apply", [step(
            "PATCH", f"{THINGS}/t", raw=json.dumps(thing({"arr": {"a": 1}})), content_type=APPLY, query={"fieldManager": "a"}),
            get(f"{THINGS}/t")], SETUP),
        case("crd-schema/apply/metadata-true", "apply", [step(
            "PATCH", f"{THINGS}/t", raw=json.dumps({**thing({}), "metadata": True}), content_type=APPLY,
            query={"fieldManager": "a"})], SETUP),
        case("crd-schema/apply/valid", "apply", [step(
            "PATCH", f"{THINGS}/t", raw=json.dumps(thing({"int": 3})), content_type=APPLY, query={"fieldManager": "a"}),
            get(f"{THINGS}/t")], SETUP),
    ]
    return out


def _yaml_thing(free_value: str) -> str:
    return (f"apiVersion: {GROUP}/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  free:\n    due: {free_value}\n")


def yaml_bodies() -> list[dict]:
    """The issue's defects: YAML values with no JSON form in a field that keeps unknown content."""
    values = [("date", "2024-01-31"), ("timestamp", "2024-01-31T10:00:00Z"), ("binary", "!!binary aGVsbG8="),
              ("set", "!!set {a, b}"), ("nan", ".nan"), ("infinity", ".inf"), ("huge-integer", "1" + "0" * 30),
              ("yes", "yes"), ("non-string-key", "{1: a}"), ("custom-tag", "!foo bar"), ("null", "~")]
    out = [case(f"crd-schema/yaml/{variant}", "malformed", [
        step("POST", THINGS, raw=_yaml_thing(value), content_type="application/yaml"), get(f"{THINGS}/t"),
        get(THINGS)], SETUP) for variant, value in values]
    for variant, raw in (("nan", "NaN"), ("infinity", "Infinity"), ("huge-exponent", "1e400"), ("big-integer", str(2 ** 70)),
                         ("negative-zero", "-0"), ("float-exponent", "1.5e3")):
        text = json.dumps(thing({"free": {"due": "@"}})).replace('"@"', raw)
        out.append(case(f"crd-schema/json/{variant}", "malformed", [step("POST", THINGS, raw=text),
                                                                   get(f"{THINGS}/t")], SETUP))
    for depth in (50, 200, 10_000):
        text = json.dumps(thing({"free": {"due": "@"}})).replace('"@"', "[" * depth + "1" + "]" * depth)
        out.append(case(f"crd-schema/deep/{depth}", "malformed", [step("POST", THINGS, raw=text),
                                                                 get(f"{THINGS}/t")], SETUP))
    return out


def _crd(mutate: Any) -> dict[str, Any]:
    spec_schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"bads.{GROUP}"},
           "spec": {"group": GROUP, "scope": "Namespaced", "names": {"plural": "bads", "singular": "bad", "kind": "Bad"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "properties": {"spec": spec_schema}}}}]}}
    mutate(crd, crd["spec"]["versions"][0], spec_schema["properties"])
    return crd


def _set(path: str, value: Any) -> Any:
    """A mutation of a CRD: ``spec.x``, ``version.x`` or ``prop.x`` (a field of spec's schema ``a``...)."""
    def mutate(crd: dict, version: dict, props: dict) -> None:
        where, _, key = path.partition(".")
        target = {"spec": crd["spec"], "version": version, "props": props, "meta": crd["metadata"]}[where]
        if value is _DELETE:
            target.pop(key, None)
        else:
            target[key] = value
    return mutate


_DELETE = object()
BAD_CRDS = [
    ("valid", _set("props.b", {"type": "integer"})),
    ("pattern-does-not-compile", _set("props.a", {"type": "string", "pattern": "["})),
    ("no-type", _set("props.a", {"properties": {"x": {"type": "string"}}})),
    ("bad-type", _set("props.a", {"type": "frobnicate"})),
    ("default-wrong-type", _set("props.a", {"type": "string", "default": 5})),
    ("default-fails-pattern", _set("props.a", {"type": "string", "pattern": "^a$", "default": "b"})),
    ("unique-items", _set("props.a", {"type": "array", "uniqueItems": True, "items": {"type": "string"}})),
    ("cel-does-not-compile", _set("props.a", {"type": "string", "x-kubernetes-validations": [{"rule": "self <"}]})),
    ("cel-wrong-type", _set("props.a", {"type": "string", "x-kubernetes-validations": [{"rule": "self + 1 > 2"}]})),
    ("properties-and-additional", _set("props.a", {"type": "object", "properties": {"x": {"type": "string"}},
                                                   "additionalProperties": {"type": "string"}})),
    ("int-or-string-with-type", _set("props.a", {"type": "string", "x-kubernetes-int-or-string": True})),
    ("ref", _set("props.a", {"$ref": "#/definitions/x"})),
    ("enum-wrong-type", _set("props.a", {"type": "string", "enum": [1]})),
    ("list-map-without-keys", _set("props.a", {"type": "array", "x-kubernetes-list-type": "map",
                                               "items": {"type": "object", "properties": {"k": {"type": "string"}}}})),
    ("items-missing", _set("props.a", {"type": "array"})),
    ("no-versions", _set("spec.versions", [])),
    ("no-storage-version", _set("version.storage", False)),
    ("bad-group", _set("spec.group", "nodot")),
    ("bad-scope", _set("spec.scope", "Galaxy")),
    ("version-uppercase", _set("version.name", "V1")),
    ("name-mismatch", _set("meta.name", f"other.{GROUP}")),
    ("plural-uppercase", _set("spec.names", {"plural": "Bads", "singular": "bad", "kind": "Bad"})),
    ("kind-lowercase", _set("spec.names", {"plural": "bads", "singular": "bad", "kind": "bad"})),
    ("list-kind-equals-kind", _set("spec.names", {"plural": "bads", "singular": "bad", "kind": "Bad", "listKind": "Bad"})),
    ("no-schema", _set("version.schema", _DELETE)),
    ("top-level-string", _set("version.schema", {"openAPIV3Schema": {"type": "string"}})),
    ("metadata-properties", _set("version.schema", {"openAPIV3Schema": {"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}}})),
    ("selectable-field-unknown", _set("version.selectableFields", [{"jsonPath": ".spec.nope"}])),
    ("scale-path-outside-spec", _set("version.subresources", {"scale": {"specReplicasPath": ".status.x",
                                                                        "statusReplicasPath": ".status.y"}})),
    ("webhook-conversion-without-config", _set("spec.conversion", {"strategy": "Webhook"})),
    ("preserve-unknown-false", _set("props.a", {"type": "object", "x-kubernetes-preserve-unknown-fields": False})),
    ("nullable-default-null", _set("props.a", {"type": "string", "nullable": True, "default": None})),
]


def definitions() -> list[dict]:
    out = [case(f"crd-schema/crd/{variant}", "crd", [post(CRDS, _crd(mutate))]) for variant, mutate in BAD_CRDS]
    valid = _crd(_set("props.b", {"type": "integer"}))
    wait = get(f"{CRDS}/bads.{GROUP}", wait={"until": 200, "condition": "Established", "timeout": 30})
    for variant, change in (("scope", {"scope": "Cluster"}), ("group", {"group": "other.example.com"}),
                            ("add-version", {"versions": [*valid["spec"]["versions"], {
                                "name": "v2", "served": True, "storage": False,
                                "schema": valid["spec"]["versions"][0]["schema"]}]})):
        body = {**valid, "metadata": {**valid["metadata"], "resourceVersion": "{rv:1}"},
                "spec": {**valid["spec"], **change}}
        out.append(case(f"crd-schema/crd-update/{variant}", "crd", [post(CRDS, valid), wait, put(f"{CRDS}/bads.{GROUP}", body)]))
    return out


def cases() -> list[dict]:
    return [*resources(), *yaml_bodies(), *definitions()]
