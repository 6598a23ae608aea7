"""JSON patch as kube-apiserver applies it (``fakekube.patch.evanphx``, a port of gopkg.in/evanphx/json-patch.v4
v4.13.0, which ``k8s.io/apiserver/pkg/endpoints/handlers/patch.go`` calls).

``evanphx_v4_cases.json`` holds the library's own outcomes on generated patches (``scripts/evanphx_outcomes.py
--record``); the cases below were observed on kube-apiserver v1.37.2 (the oracle) over HTTP.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakekube import errors, gojson
from fakekube.patch import JSON_PATCH, apply_patch, evanphx

CASES = json.loads((Path(__file__).parent / "evanphx_v4_cases.json").read_text())["cases"]


def _outcome(doc: dict, body: str) -> dict[str, Any]:
    try:
        return {"outcome": "ok", "doc": evanphx.apply(doc, gojson.loads(body), body)}
    except errors.HandlerPanic:
        return {"outcome": "panic"}
    except errors.ApiError as exc:
        assert exc.code == 422 and exc.status["details"] == {}
        return {"outcome": "error"}


def _numbers_as_floats(value: Any) -> Any:
    return json.loads(json.dumps(value), parse_int=float)


@pytest.mark.parametrize("case", CASES, ids=[f"case-{i:03d}" for i in range(len(CASES))])
def test_the_library_outcome(case: dict[str, Any]) -> None:
    got = _outcome(case["doc"], case["patch"])
    assert got["outcome"] == case["outcome"]
    if case["outcome"] == "ok":
        assert _numbers_as_floats(got["doc"]) == _numbers_as_floats(case["result"])


DOC = {"spec": {"a": 1, "s": "A", "h": "<", "n": None, "l": [1, 2, 3], "o": {"x": 1.5}, "f": 2.5}}


@pytest.mark.parametrize(("body", "expected"), [
    # each observed on kube-apiserver v1.37.2 (a custom resource with this spec): ok → 200, error → 422
    ('[{"op":"replace","path":"/spec/zz","value":1}]', "ok"),  # a missing member is set
    ('[{"op":"add","path":"","value":{}}]', "error"),
    ('[{"op":"add","path":"spec/zz","value":5}]', "ok"),  # no leading slash: the root's "zz"
    ('[{"op":"add","path":"spec","value":5}]', "error"),
    ('[{"op":"add","path":"/spec/x~2","value":5}]', "ok"),
    ('[{"op":"test","path":"/spec/a","value":1.0}]', "error"),  # texts differ
    ('[{"op":"test","path":"/spec/a","value":1}]', "ok"),
    ('[{"op":"test","path":"/spec/f","value":2.50}]', "error"),
    ('[{"op":"test","path":"/spec/s","value":"\\u0041"}]', "error"),
    ('[{"op":"test","path":"/spec/h","value":"<"}]', "error"),  # stored "<" is encoded \\u003c
    ('[{"op":"test","path":"/spec/h","value":"\\u003c"}]', "ok"),
    ('[{"op":"test","path":"/spec/o","value": { "x" : 1.5 } }]', "ok"),  # whitespace is compacted away
    ('[{"op":"test","path":"/spec/n"}]', "ok"),
    ('[{"op":"test","path":"/spec/zz"}]', "ok"),
    ('[{"op":"test","path":"/spec/a"}]', "error"),
    ('[{"op":"test","path":"/spec/a","value":null}]', "error"),
    ('[{"op":"replace","path":"/spec/l/01","value":9}]', "ok"),
    ('[{"op":"replace","path":"/spec/l/+1","value":9}]', "ok"),
    ('[{"op":"replace","path":"/spec/l/-4","value":9}]', "error"),
    ('[{"op":"replace","path":"/spec/l/-","value":9}]', "error"),
    ('[{"op":"add","path":"/spec/l/-4","value":9}]', "ok"),
    ('[{"op":"add","path":"/spec/l/-5","value":9}]', "error"),
    ('[{"op":"add","path":"/spec/q"}]', "ok"),
    ('[{"op":"copy","from":"/spec/zz","path":"/spec/y"}]', "ok"),
    ('[{"op":"move","from":"/spec/o","path":"/spec/o/y"}]', "error"),
    ('[{"op":"remove","path":"/spec/zz"}]', "error"),
    ('[{"op":"remove","path":"/spec/n"}]', "ok"),
    ('[{"op":"add","path":"/spec/y","value":1.0},{"op":"test","path":"/spec/y","value":1}]', "error"),
    ('[{"op":"add","path":"/spec/y","value":1.0},{"op":"test","path":"/spec/y","value":1.0}]', "ok"),
    ('[{"op":"test","path":""}]', "panic"),
    ('[{"op":"replace","path":""}]', "panic"),
    ('[{"op":"replace","path":"","value":null}]', "error"),
    ('[null]', "error"),
])
def test_observed_on_the_real_server(body: str, expected: str) -> None:
    assert _outcome(DOC, body)["outcome"] == expected


def test_what_is_set() -> None:
    ops = '[{"op":"add","path":"/spec/q"},{"op":"copy","from":"/spec/zz","path":"/spec/y"},' \
          '{"op":"add","path":"spec/top","value":[1.0]}]'
    out = evanphx.apply(DOC, gojson.loads(ops), ops)
    assert out["spec"]["q"] is None and out["spec"]["y"] is None and out["top"] == [1.0]


def test_a_test_keeps_the_values_set_plain() -> None:
    body = '[{"op":"add","path":"/spec/y","value":{"k":[1.5,"<"]}},{"op":"test","path":"/spec/y/k/0","value":1.5}]'
    out = evanphx.apply(DOC, gojson.loads(body), body)
    assert out["spec"]["y"] == {"k": [1.5, "<"]}
    assert json.dumps(out)  # no raw nodes left behind


def test_the_value_set_is_a_copy() -> None:
    ops = [{"op": "add", "path": "/spec/m", "value": {"k": "v"}}]
    out = evanphx.apply(DOC, ops)
    out["spec"]["m"]["k"] = "changed"
    assert ops[0]["value"] == {"k": "v"}


def test_copies_are_limited_to_3_mib() -> None:
    doc = {"big": "x" * (1024 * 1024 - 2)}  # 1 MiB as JSON text, quotes included
    ops = [{"op": "copy", "from": "/big", "path": f"/c{i}"} for i in range(3)]
    evanphx.apply(doc, ops)
    with pytest.raises(errors.GenericInvalid):
        evanphx.apply(doc, ops + [{"op": "copy", "from": "/big", "path": "/c3"}])


def test_a_whole_document_replaced_by_an_array() -> None:
    """Observed on kube-apiserver v1.37.2: the codec cannot read apiVersion/kind from an array (422 on
    "patch", handlers/patch.go jsonPatcher)."""
    with pytest.raises(errors.ApiError) as info:
        apply_patch({"metadata": {"name": "a"}}, '[{"op":"replace","path":"","value":[1]}]', JSON_PATCH)
    assert info.value.code == 422
    cause = info.value.status["details"]["causes"][0]
    assert cause["field"] == "patch"
    assert cause["message"] == (
        'Invalid value: "[1]": couldn\'t get version/kind; json parse error: json: cannot unmarshal array into '
        'Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
        'Kind string "json:\\"kind,omitempty\\"" }')


def test_failures_have_empty_details() -> None:
    """NewGenericServerResponse(422, ...) keeps the library's words out (apimachinery pkg/api/errors)."""
    with pytest.raises(errors.ApiError) as info:
        apply_patch({"data": {}}, '[{"op":"remove","path":"/data/x"}]', JSON_PATCH)
    assert info.value.status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                 "message": "the server rejected our request due to an error in our request",
                                 "reason": "Invalid", "details": {}, "code": 422}
