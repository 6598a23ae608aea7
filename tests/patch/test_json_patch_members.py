"""JSON patch operations that set an object member are applied without the ``jsonpatch`` package
(``json_patch._set_member``); every outcome is the package's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube import errors
from fakekube.patch import json_patch
from fakekube.patch.json_patch import apply_json_patch, decode_json_patch

DOC = {"metadata": {"name": "p", "labels": {"a": "1", "b": "2"}, "annotations": {"x/y": "1", "t~": "2"}},
       "spec": {"containers": [{"name": "c", "image": "i"}], "replicas": 1}}

OPS: list[list[dict[str, Any]]] = [
    [{"op": "add", "path": "/metadata/labels/c", "value": "3"}],
    [{"op": "add", "path": "/metadata/labels/a", "value": "9"}],  # an existing member keeps its place
    [{"op": "replace", "path": "/metadata/labels/a", "value": {"n": [1, 2.0, True, None]}}],
    [{"op": "replace", "path": "/metadata/labels/zz", "value": "1"}],  # a missing member: 422
    [{"op": "add", "path": "/metadata/missing/a", "value": "1"}],  # a missing parent: 422
    [{"op": "add", "path": "/spec/containers/0/image", "value": "j"}],  # through an array
    [{"op": "add", "path": "/spec/containers/-1/image", "value": "j"}],  # a negative index
    [{"op": "add", "path": "/metadata/annotations/x~1y", "value": "3"}],  # escapes
    [{"op": "add", "path": "/metadata/annotations/t~2", "value": "3"}],  # a bad escape
    [{"op": "add", "path": "/spec/replicas/x", "value": 1}],  # under a scalar
    [{"op": "add", "path": "/metadata/labels/c"}],  # no value
    [{"op": "add", "path": "metadata", "value": 1}],  # not a pointer
    [{"op": "add", "path": "/", "value": 1}],  # the member named ""
    [{"op": "add", "path": "/metadata/labels/c", "value": "3"},
     {"op": "add", "path": "/metadata/labels/c/d", "value": "4"}],
    [{"op": "add", "path": "/metadata/labels", "value": {"k": "v"}},
     {"op": "add", "path": "/metadata/labels/k2", "value": "v2"}],
    [{"op": "remove", "path": "/metadata/labels/a"}, {"op": "add", "path": "/metadata/labels/a", "value": "0"}],
]


def _outcome(ops: list[dict[str, Any]]) -> Any:
    patch = decode_json_patch(json.dumps(ops))
    try:
        result = apply_json_patch(json.loads(json.dumps(DOC)), patch)
    except errors.ApiError as exc:
        return ["error", exc.status]
    return ["ok", result, patch]


@pytest.mark.parametrize("ops", OPS)
def test_setting_a_member_answers_as_the_package_does(monkeypatch: pytest.MonkeyPatch,
                                                      ops: list[dict[str, Any]]) -> None:
    direct = _outcome(ops)
    monkeypatch.setattr(json_patch, "_set_member", lambda doc, op: False)
    assert json.dumps(direct) == json.dumps(_outcome(ops))


def test_the_value_set_is_a_copy() -> None:
    ops = decode_json_patch(json.dumps([{"op": "add", "path": "/metadata/labels", "value": {"k": "v"}}]))
    result = apply_json_patch(json.loads(json.dumps(DOC)), ops)
    result["metadata"]["labels"]["k"] = "changed"
    assert ops[0]["value"] == {"k": "v"}


def test_only_object_paths_without_escapes_take_the_short_way() -> None:
    doc = json.loads(json.dumps(DOC))
    assert json_patch._set_member(doc, {"op": "add", "path": "/metadata/labels/c", "value": "3"})
    assert doc["metadata"]["labels"]["c"] == "3"
    for op in ({"op": "add", "path": "/spec/containers/0/image", "value": "j"},
               {"op": "add", "path": "/metadata/annotations/x~1y", "value": "3"},
               {"op": "replace", "path": "/metadata/labels/zz", "value": "1"},
               {"op": "test", "path": "/metadata/labels/a", "value": "1"}):
        assert not json_patch._set_member(doc, op)
    assert json.dumps(doc["spec"]) == json.dumps(DOC["spec"])
