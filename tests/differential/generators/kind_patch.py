"""The three patch types on every kind (merge, strategic, JSON patch), and the ways a patch goes wrong: a
patch that changes the kind (the issue's first defect), a stale resourceVersion, a failed test, an unknown
op, a bad path, a body of the wrong shape. Custom resources answer a strategic merge patch with 415."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import JSON_PATCH, MERGE, STRATEGIC, created, get, json_ops, kind_case, patch, step  # noqa: E402


def _raw(path: str, text: str, content_type: str) -> dict:
    return step("PATCH", path, raw=text, content_type=content_type)


def basics(p: Profile, name: str) -> list[dict]:
    k, made = p.kind, created(p, p.body(name))
    item, change = k.item(name), p.spec_change or {}
    labels = {"metadata": {"labels": {"patched": "yes"}}}
    other = "Secret" if k.kind != "Secret" else "ConfigMap"
    cases = [
        kind_case(p, "patch", "merge", "patch", [*made, patch(item, {**labels, **change})]),
        kind_case(p, "patch", "merge-missing", "patch", [patch(k.item("missing"), labels)]),
        kind_case(p, "patch", "merge-kind", "patch", [*made, patch(item, {"kind": other}), get(item)]),
        kind_case(p, "patch", "strategic", "patch", [*made, patch(item, {**labels, **change}, STRATEGIC)]),
        kind_case(p, "patch", "json-add", "patch", [*made, patch(item, [
            {"op": "add", "path": "/metadata/labels", "value": {"patched": "yes"}}, *json_ops(change)],
            JSON_PATCH)]),
        kind_case(p, "patch", "json-replace", "patch", [*made, patch(item, [
            {"op": "add", "path": "/metadata/labels", "value": {"a": "1"}},
            {"op": "replace", "path": "/metadata/labels/a", "value": "2"}], JSON_PATCH)]),
        kind_case(p, "patch", "json-test-fails", "patch", [*made, patch(item, [
            {"op": "test", "path": "/metadata/name", "value": "nope"},
            {"op": "add", "path": "/metadata/labels", "value": {"a": "1"}}], JSON_PATCH), get(item)]),
    ]
    return cases


def extras(p: Profile, name: str) -> list[dict]:
    """The rarer shapes, on the representative kinds."""
    k, made = p.kind, created(p, p.body(name))
    item = k.item(name)
    other = "Secret" if k.kind != "Secret" else "ConfigMap"
    variants: list[tuple[str, dict]] = [
        ("merge-stale-rv", patch(item, {"metadata": {"resourceVersion": "1", "labels": {"a": "1"}}})),
        ("merge-null-labels", patch(item, {"metadata": {"labels": None}})),
        ("merge-rename", patch(item, {"metadata": {"name": "renamed"}})),
        ("merge-apiversion", patch(item, {"apiVersion": "v9"})),
        ("merge-not-object", _raw(item, "[]", MERGE)),
        ("merge-null", _raw(item, "null", MERGE)),
        ("strategic-kind", patch(item, {"kind": other}, STRATEGIC)),
        ("strategic-replace-directive", patch(item, {"metadata": {"labels": {"$patch": "replace", "c": "3"}}},
                                              STRATEGIC)),
        ("strategic-unknown-directive", patch(item, {"metadata": {"$patch": "frobnicate"}}, STRATEGIC)),
        ("strategic-not-object", _raw(item, "[]", STRATEGIC)),
        ("json-kind", patch(item, [{"op": "replace", "path": "/kind", "value": other}], JSON_PATCH)),
        ("json-apiversion", patch(item, [{"op": "replace", "path": "/apiVersion", "value": "v9"}], JSON_PATCH)),
        ("json-test-passes", patch(item, [{"op": "test", "path": "/metadata/name", "value": name},
                                          {"op": "add", "path": "/metadata/labels", "value": {"a": "1"}}],
                                   JSON_PATCH)),
        ("json-remove-missing", patch(item, [{"op": "remove", "path": "/metadata/labels/nope"}], JSON_PATCH)),
        ("json-replace-missing", patch(item, [{"op": "replace", "path": "/metadata/nope", "value": 1}], JSON_PATCH)),
        ("json-bad-op", patch(item, [{"op": "frobnicate", "path": "/metadata/labels"}], JSON_PATCH)),
        ("json-no-slash", patch(item, [{"op": "add", "path": "metadata/labels", "value": {"a": "1"}}],
                                JSON_PATCH)),
        ("json-no-value", patch(item, [{"op": "add", "path": "/metadata/labels"}], JSON_PATCH)),
        ("json-move", patch(item, [{"op": "add", "path": "/metadata/annotations", "value": {"a": "1"}},
                                   {"op": "move", "from": "/metadata/annotations", "path": "/metadata/labels"}],
                            JSON_PATCH)),
        ("json-copy", patch(item, [{"op": "add", "path": "/metadata/labels", "value": {"a": "1"}},
                                   {"op": "copy", "from": "/metadata/labels", "path": "/metadata/annotations"}],
                            JSON_PATCH)),
        ("json-not-array", _raw(item, json.dumps({"op": "add", "path": "/metadata/labels", "value": {}}),
                                JSON_PATCH)),
        ("json-empty", _raw(item, "[]", JSON_PATCH)),
        ("json-index-past-end", patch(item, [{"op": "add", "path": "/metadata/finalizers/5", "value": "a/b"}],
                                      JSON_PATCH)),
    ]
    return [kind_case(p, "patch", variant, "patch", [*made, request, get(item)]) for variant, request in variants]


def cases() -> list[dict]:
    out: list[dict] = []
    for p in profiles():
        name = p.name()
        out.extend(basics(p, name))
        if p.representative:
            out.extend(extras(p, name))
    return out
