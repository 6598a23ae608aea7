"""Malformed input on the representative kinds (ConfigMap, Pod, Deployment, Service, a custom resource):
wrong JSON types at each level of metadata and of the kind's own fields, bodies that are not an object,
truncated or not JSON at all, numbers JSON cannot carry, deep nesting, YAML bodies (valid, and YAML with no
JSON form), and the same wrong types sent by PUT, merge patch and server-side apply. Every rejected create is followed by a GET: nothing may be stored."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profile  # noqa: E402
from _steps import APPLY, MERGE, created, get, kind_case, step, with_rv  # noqa: E402

KINDS = (("", "ConfigMap"), ("", "Pod"), ("apps", "Deployment"), ("", "Service"), ("diff.example.com", "Widget"))

# Wrong types in metadata: (variant, metadata field, value).
METADATA = [
    ("name-number", "name", 5), ("name-null", "name", None), ("name-list", "name", ["demo"]),
    ("name-object", "name", {}), ("name-bool", "name", True),
    ("labels-list", "labels", []), ("labels-string", "labels", "a=b"), ("labels-number-value", "labels", {"a": 1}),
    ("labels-null-value", "labels", {"a": None}), ("labels-object-value", "labels", {"a": {}}),
    ("annotations-number-value", "annotations", {"a": 1}), ("annotations-list", "annotations", []),
    ("annotations-string", "annotations", "x"), ("annotations-bool-value", "annotations", {"a": True}),
    ("finalizers-string", "finalizers", "x"), ("finalizers-number-item", "finalizers", [1]),
    ("finalizers-object", "finalizers", {}),
    ("ownerreferences-object", "ownerReferences", {}), ("ownerreferences-number-item", "ownerReferences", [1]),
    ("ownerreferences-empty-item", "ownerReferences", [{}]), ("ownerreferences-string", "ownerReferences", "x"),
    ("ownerreferences-uid-number", "ownerReferences", [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o",
                                                        "uid": 5}]),
    ("generatename-number", "generateName", 5), ("namespace-number", "namespace", 5),
    ("resourceversion-number", "resourceVersion", 5), ("uid-number", "uid", 5), ("generation-string", "generation", "x"),
    ("creationtimestamp-string", "creationTimestamp", "not a time"), ("creationtimestamp-number", "creationTimestamp", 5),
    ("deletiontimestamp-string", "deletionTimestamp", "x"),
    ("deletiongraceperiod-string", "deletionGracePeriodSeconds", "x"),
    ("managedfields-object", "managedFields", {}), ("managedfields-number-item", "managedFields", [1]),
    ("managedfields-manager-number", "managedFields", [{"manager": 5}]), ("selflink-number", "selfLink", 5),
]

# Wrong types at the top level: (variant, field, value).
TOP = [
    ("metadata-list", "metadata", []), ("metadata-string", "metadata", "x"), ("metadata-number", "metadata", 5),
    ("metadata-null", "metadata", None), ("metadata-bool", "metadata", True),
    ("apiversion-number", "apiVersion", 5), ("apiversion-null", "apiVersion", None), ("kind-number", "kind", 5),
    ("kind-list", "kind", []), ("status-string", "status", "x"),
]

# Wrong types in each kind's own fields: (variant, a merge patch over the minimal object).
OWN: dict[tuple[str, str], list[tuple[str, Any]]] = {
    ("", "ConfigMap"): [
        ("data-list", {"data": []}), ("data-number-value", {"data": {"k": 1}}), ("data-string", {"data": "x"}),
        ("binarydata-not-base64", {"binaryData": {"k": "not base64!"}}), ("immutable-string", {"immutable": "yes"}),
        ("data-bad-key", {"data": {"a/b": "v"}}),
    ],
    ("", "Pod"): [
        ("spec-list", {"spec": []}), ("containers-object", {"spec": {"containers": {}}}),
        ("containers-number-item", {"spec": {"containers": [5]}}),
        ("image-number", {"spec": {"containers": [{"name": "app", "image": 5}]}}),
        ("port-string", {"spec": {"containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": "80"}]}]}}),
        ("port-float", {"spec": {"containers": [{"name": "app", "image": "nginx", "ports": [{"containerPort": 80.5}]}]}}),
        ("resources-bad-quantity", {"spec": {"containers": [{"name": "app", "image": "nginx",
                                                             "resources": {"limits": {"cpu": "lots"}}}]}}),
        ("restartpolicy-number", {"spec": {"restartPolicy": 1}}),
        ("env-value-number", {"spec": {"containers": [{"name": "app", "image": "nginx", "env": [{"name": "A", "value": 1}]}]}}),
    ],
    ("apps", "Deployment"): [
        ("replicas-string", {"spec": {"replicas": "2"}}), ("replicas-float", {"spec": {"replicas": 1.5}}),
        ("replicas-negative", {"spec": {"replicas": -1}}), ("replicas-huge", {"spec": {"replicas": 2 ** 40}}),
        ("selector-list", {"spec": {"selector": []}}), ("template-string", {"spec": {"template": "x"}}),
        ("matchlabels-number", {"spec": {"selector": {"matchLabels": {"app": 1}}}}),
        ("strategy-type-bad", {"spec": {"strategy": {"type": "Sideways"}}}),
    ],
    ("", "Service"): [
        ("ports-object", {"spec": {"ports": {}}}), ("port-string", {"spec": {"ports": [{"port": "80"}]}}),
        ("port-too-big", {"spec": {"ports": [{"port": 70000}]}}), ("type-number", {"spec": {"type": 5}}),
        ("type-unknown", {"spec": {"type": "Sideways"}}), ("selector-list", {"spec": {"selector": []}}),
        ("targetport-bool", {"spec": {"ports": [{"port": 80, "targetPort": True}]}}),
    ],
    ("diff.example.com", "Widget"): [
        ("spec-list", {"spec": []}), ("spec-string", {"spec": "x"}), ("replicas-string", {"spec": {"replicas": "x"}}),
        ("replicas-float", {"spec": {"replicas": 1.5}}), ("color-number", {"spec": {"color": 5}}),
        ("replicas-negative", {"spec": {"replicas": -1}}),
    ],
}

# Whole bodies as text: literal ones, and ones made from the kind's minimal object (see _texts).
RAW_LITERAL = [
    ("empty", ""), ("whitespace", "  \n"), ("list", "[]"), ("string", '"x"'), ("number", "5"), ("null", "null"),
    ("true", "true"), ("open-brace", "{"), ("truncated-key", '{"apiVersion":'), ("single-quotes", "{'apiVersion': 'v1'}"),
]
RAW_DERIVED = ("truncated-half", "trailing-garbage", "two-objects", "trailing-comma", "comment", "bom", "nan",
               "infinity", "huge-exponent", "negative-zero", "big-integer", "unpaired-surrogate", "control-char")


# YAML bodies (Content-Type application/yaml): a value put into an annotation (a string field every kind
# has), the YAML texts with no JSON form among them (a date, binary, a set, a non-string key, a custom tag).
YAML_VALUES = [
    ("plain", "hello"), ("date", "2024-01-31"), ("timestamp", "2024-01-31T10:00:00Z"), ("binary", "!!binary aGVsbG8="),
    ("set", "!!set {a, b}"), ("yes", "yes"), ("on", "on"), ("octal", "0o17"), ("leading-zero", "017"), ("null", "~"),
    ("nan", ".nan"), ("infinity", ".inf"), ("integer", "5"), ("map", "{x: 1}"), ("custom-tag", "!foo bar"),
    ("quoted-date", "'2024-01-31'"), ("huge-integer", "1" + "0" * 30),
]
MARK = "MARKVALUE"


def _yaml(obj: dict) -> str:
    return yaml.safe_dump(obj, default_flow_style=False, sort_keys=True)


def _yaml_cases(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    collection, item = k.collection(), k.item(name)
    marked = p.body(name)
    marked["metadata"]["annotations"] = {"a": MARK}
    text = _yaml(marked)
    plain = _yaml(p.body(name))
    out = [kind_case(p, "malformed", f"yaml-annotation-{variant}", "malformed", [
        step("POST", collection, raw=text.replace(MARK, value), content_type="application/yaml"), get(item)])
        for variant, value in YAML_VALUES]
    anchored = plain.replace("metadata:\n", "metadata: &meta\n", 1) + "extra: *meta\n"
    keyed = plain.replace("metadata:\n", "metadata:\n  labels: {1: a}\n", 1)
    duplicate = plain.replace("metadata:\n", f"metadata:\n  name: {name}\n", 1)
    texts = [("valid", plain), ("json-flow", json.dumps(p.body(name))), ("anchors", anchored),
             ("non-string-key", keyed), ("duplicate-key", duplicate), ("two-documents", plain + "---\n" + plain),
             ("leading-document-marker", "---\n" + plain), ("tab-indent", plain.replace("  name:", "\tname:", 1)),
             ("list", "- a\n- b\n"), ("scalar", "hello\n"), ("empty", ""), ("null-document", "~\n"),
             ("unclosed-flow", "{a: [1, 2\n"), ("merge-key", "base: &b {k: v}\n" + plain.replace(
                 "metadata:\n", "metadata:\n  annotations:\n    <<: *b\n", 1))]
    out += [kind_case(p, "malformed", f"yaml-{variant}", "malformed", [
        step("POST", collection, raw=raw, content_type="application/yaml"), get(item)]) for variant, raw in texts]
    return out


def _meta_case(p: Profile, variant: str, field: str, value: Any) -> dict:
    body = p.body("demo" if p.kind.namespaced else p.name())
    body["metadata"][field] = value
    return kind_case(p, "malformed", f"metadata-{variant}", "malformed", [
        step("POST", p.kind.collection(), body=body), get(p.kind.item(p.name()))])


def _texts(p: Profile) -> dict[str, str]:
    text = json.dumps(p.body(p.name()))

    def extra(value: str) -> str:
        return text[:-1] + ', "extra": ' + value + "}"

    return {
        "truncated-half": text[: len(text) // 2],
        "trailing-garbage": text + " x",
        "two-objects": text + text,
        "trailing-comma": text[:-1] + ",}",
        "comment": "// c\n" + text,
        "bom": "\ufeff" + text,
        "nan": extra("NaN"),
        "infinity": extra("Infinity"),
        "huge-exponent": extra("1e400"),
        "negative-zero": extra("-0"),
        "big-integer": extra(str(2 ** 70)),
        "unpaired-surrogate": text.replace('"metadata": {', '"metadata": {"annotations": {"a": "\\ud800"}, ', 1),
        "control-char": text.replace('"metadata": {', '"metadata": {"annotations": {"a": "x\x01y"}, ', 1),
    }


def _deep(p: Profile, depth: int, opener: str, closer: str, leaf: str) -> str:
    text = json.dumps(p.body(p.name()))
    return text[:-1] + ', "extra": ' + opener * depth + leaf + closer * depth + "}"


def for_kind(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    item, collection = k.item(name), k.collection()
    out = [_meta_case(p, variant, field, value) for variant, field, value in METADATA]
    for variant, field, value in TOP:
        body = p.body(name)
        body[field] = value
        out.append(kind_case(p, "malformed", f"top-{variant}", "malformed", [
            step("POST", collection, body=body), get(item)]))
    for variant, change in OWN[p.table_key]:
        out.append(kind_case(p, "malformed", f"own-{variant}", "malformed", [
            step("POST", collection, body=p.changed(p.body(name), change)), get(item)]))
    texts = _texts(p)
    for variant, raw in [*RAW_LITERAL, *((v, texts[v]) for v in RAW_DERIVED)]:
        out.append(kind_case(p, "malformed", f"raw-{variant}", "malformed", [
            step("POST", collection, raw=raw), get(item)]))
    for depth in (200, 10_000):
        out.append(kind_case(p, "malformed", f"deep-lists-{depth}", "malformed", [
            step("POST", collection, raw=_deep(p, depth, "[", "]", "1")), get(item)]))
        out.append(kind_case(p, "malformed", f"deep-objects-{depth}", "malformed", [
            step("POST", collection, raw=_deep(p, depth, '{"a":', "}", "1")), get(item)]))
    # The same wrong types sent to an existing object: a rejected write leaves it as it was.
    made = created(p, p.body(name))
    rv = f"{{rv:{len(made) - 1}}}"
    writes = [("labels-list", {"metadata": {"labels": []}}), ("labels-number-value", {"metadata": {"labels": {"a": 1}}}),
              ("finalizers-string", {"metadata": {"finalizers": "x"}}), ("metadata-true", {"metadata": True}),
              ("ownerreferences-object", {"metadata": {"ownerReferences": {}}}),
              *[(f"own-{v}", c) for v, c in OWN[p.table_key][:3]]]
    for variant, change in writes:
        whole = with_rv(p.body(name), rv)
        if isinstance(change.get("metadata"), dict):
            whole["metadata"].update(change["metadata"])
            rest = {f: v for f, v in change.items() if f != "metadata"}
        else:
            rest = change
        put_body = {**whole, **rest}
        apply_body = {**p.body(name), **rest}
        if isinstance(change.get("metadata"), dict):
            apply_body["metadata"] = {**apply_body["metadata"], **change["metadata"]}
        out += [
            kind_case(p, "malformed", f"put-{variant}", "malformed", [*made, step("PUT", item, body=put_body), get(item)]),
            kind_case(p, "malformed", f"merge-patch-{variant}", "malformed", [
                *made, step("PATCH", item, body=change, content_type=MERGE), get(item)]),
            kind_case(p, "malformed", f"apply-{variant}", "malformed", [
                *made, step("PATCH", item, raw=json.dumps(apply_body), content_type=APPLY,
                            query={"fieldManager": "a"}), get(item)]),
        ]
    for variant, text in (("empty", ""), ("list", "[]"), ("truncated", "{"), ("null", "null")):
        out.append(kind_case(p, "malformed", f"put-raw-{variant}", "malformed", [*made, step("PUT", item, raw=text), get(item)]))
        out.append(kind_case(p, "malformed", f"apply-raw-{variant}", "malformed", [
            *made, step("PATCH", item, raw=text, content_type=APPLY, query={"fieldManager": "a"}), get(item)]))
    return [*out, *_yaml_cases(p)]


def cases() -> list[dict]:
    return [c for group, kind in KINDS for c in for_kind(profile(kind, group))]
