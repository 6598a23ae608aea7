"""A custom resource body of a version its endpoint does not serve: what decoding it reports comes before the
refusal, as observed on kube-apiserver v1.37.2 (apiextensions-apiserver v0.37.2
``pkg/apiserver/customresource_handler.go`` schemaCoercingDecoder; apiserver v0.37.2
``pkg/endpoints/handlers/create.go``, ``update.go``)."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"
MISMATCH = "the API version in the data (example.com/v9) does not match the expected API version (example.com/v1)"


def _send(url: str, method: str, path: str, body: dict[str, Any]) -> tuple[int, list[str], dict[str, Any]]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request(method, path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.msg.get_all("Warning") or [], json.loads(resp.read())
    finally:
        conn.close()


def _body(api_version: str, kind: str = "Widget") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w", "zzz": 1}, "spec": {}, "status": 1,
            "abc": 2}


def _unknown(*paths: str) -> list[str]:
    return [f'299 - "unknown field \\"{p}\\""' for p in paths]


def test_an_unserved_version_warns_of_every_field_but_the_type_and_metadata_then_refuses(widgets: Any) -> None:
    code, warnings, status = _send(widgets.url, "POST", WIDGETS, _body("example.com/v9"))
    assert (code, status["message"]) == (400, MISMATCH)
    assert warnings == _unknown("metadata.zzz", "abc", "spec", "status")
    widgets.store.create("widgets.example.com", {"apiVersion": "example.com/v1", "kind": "Widget",
                                                 "metadata": {"name": "w"}}, "default")
    code, warnings, status = _send(widgets.url, "PUT", f"{WIDGETS}/w", _body("example.com/v9"))
    assert (code, status["message"], len(warnings)) == (400, MISMATCH, 4)


@pytest.mark.parametrize("api_version,kind", [("other.example.com/v1", "Widget"), ("example.com/v9", "Gadget")])
def test_another_group_or_kind_is_not_pruned(widgets: Any, api_version: str, kind: str) -> None:
    code, warnings, _ = _send(widgets.url, "POST", WIDGETS, _body(api_version, kind))
    assert (code, warnings) == (400, _unknown("metadata.zzz"))


def test_strict_refuses_with_the_decoding_error_and_ignore_says_nothing(widgets: Any) -> None:
    code, warnings, status = _send(widgets.url, "POST", f"{WIDGETS}?fieldValidation=Strict", _body("example.com/v9"))
    assert (code, warnings) == (400, [])
    assert status["message"] == (
        'Widget in version "v9" cannot be handled as a Widget: strict decoding error: unknown field "metadata.zzz", '
        'unknown field "abc", unknown field "spec", unknown field "status"')
    code, warnings, status = _send(widgets.url, "POST", f"{WIDGETS}?fieldValidation=Ignore", _body("example.com/v9"))
    assert (code, warnings, status["message"]) == (400, [], MISMATCH)


def test_a_null_api_version_is_refused_by_the_schema_coercion(widgets: Any) -> None:
    # observed on kube-apiserver v1.37.2 (unstructuredSchemaCoercer.apply: unstructured.NestedString)
    code, _, status = _send(widgets.url, "POST", WIDGETS, {"apiVersion": None, "kind": "Widget",
                                                          "metadata": {"name": "w"}})
    assert (code, status["message"]) == (400, 'Widget in version "" cannot be handled as a Widget: .apiVersion '
                                              "accessor error: <nil> is of the type <nil>, expected string")
