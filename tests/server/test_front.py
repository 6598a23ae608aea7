"""The HTTP front without I/O (fakekube.server.front): the same answers as over a socket, no socket involved."""

from __future__ import annotations

import json

from fakekube.server.front import Front, HttpRequest, headers_of
from fakekube.store import Store

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}}


def call(front: Front, method: str, target: str, body: bytes = b"", **headers: str):
    response = front.handle(HttpRequest(method, target, headers_of(headers), body))
    response.finish()
    return response


def test_a_create_then_a_read_answer_like_the_server(kube: Store) -> None:
    front = Front(kube)
    created = call(front, "POST", "/api/v1/namespaces/default/configmaps", json.dumps(CM).encode(),
                   **{"Content-Type": "application/json"})
    assert created.status == 201
    assert created.header("content-type") == "application/json"
    assert int(created.header("Content-Length") or 0) == len(created.body)
    assert created.header("Audit-Id")
    got = call(front, "GET", "/api/v1/namespaces/default/configmaps/a")
    assert json.loads(got.body)["data"] == {"k": "v"}
    missing = call(front, "GET", "/api/v1/namespaces/default/configmaps/b")
    assert (missing.status, json.loads(missing.body)["reason"]) == (404, "NotFound")


def test_head_and_unknown_methods_are_405_and_close() -> None:
    front = Front(Store())
    for method, message in (("HEAD", "the server does not allow this method on the requested resource"),
                            ("BREW", "Unsupported method ('BREW')")):
        response = call(front, method, "/api")
        assert (response.status, response.close) == (405, True)
        assert json.loads(response.body)["message"] == message


def test_a_watch_is_a_stream_of_event_batches(kube: Store) -> None:
    front = Front(kube)
    call(front, "POST", "/api/v1/namespaces/default/configmaps", json.dumps(CM).encode(),
         **{"Content-Type": "application/json"})
    response = front.handle(HttpRequest("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1",
                                        headers_of({}), b""))
    assert response.stream is not None and response.header("Transfer-Encoding") == "chunked"
    batches = response.stream(None)
    first = next(batches)
    assert [json.loads(e)["type"] for e in first] == ["ADDED"]
    batches.close()  # the client went away: the watch stops
    response.finish()
    assert not front.streamer._active
