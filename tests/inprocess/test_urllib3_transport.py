"""The urllib3 transport's shortcuts read URLs, merge headers and build responses as urllib3 itself does."""

from __future__ import annotations

import io
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import urllib3
from urllib3 import HTTPHeaderDict

from fakekube.inprocess import urllib3_transport as transport
from fakekube.server.front import Front, HttpResponse

HOST = "kubernetes.fakekube.invalid"
URLS = [f"http://{HOST}/api/v1/namespaces/default/configmaps/a", f"http://{HOST}", f"http://{HOST}:80/x?y=1&z=%2F#f",
        f"https://{HOST}/apis?watch=1", f"http://{HOST.upper()}/x", f"http://{HOST}?q", f"http://{HOST}#f",
        f"HTTP://{HOST}/a//b/", f"http://{HOST}/a?b?c", f"http://{HOST}/a#b?c", f"http://user@{HOST}/a",
        f"http://{HOST}/a b", f"http://{HOST}:/a", "http://other.example/a", f"http://{HOST}./a",
        f"http://{HOST}/p;param?x", f"http://{HOST}/\u00e9?\u00e9=1", f"http://{HOST}/a\tb", "http://[::1]:80/a"]


@pytest.fixture
def routed() -> Iterator[Front]:
    front = Front()
    transport.install(HOST, front)
    yield front
    transport.uninstall(HOST, front)


@pytest.mark.parametrize("url", URLS)
def test_urls_are_read_as_urlsplit_reads_them(routed: object, url: str) -> None:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    assert transport._split_url(url) == (parts.hostname, parts.netloc, target)


@pytest.mark.parametrize(("pool", "request_headers"), [
    ({}, {"Accept": "application/json", "User-Agent": "x"}),
    ({}, {"Accept": "a", "accept": "b"}),
    ({"Accept": "a"}, {"accept": "b", "X": "1"}),
    ({}, None),
    ({}, HTTPHeaderDict([("A", "1"), ("a", "2")])),
])
def test_headers_merge_as_urllib3_merges_them(pool: dict, request_headers: object) -> None:
    reference = HTTPHeaderDict(pool)
    reference.update(request_headers or {})
    assert list(transport._merged_headers(pool, request_headers)) == list(reference.items())


def test_a_preloaded_response_is_in_the_state_urllib3_leaves() -> None:
    body = b'{"kind":"ConfigMap"}\n'
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    ours = transport.to_urllib3(HttpResponse(200, headers, body), "GET", f"http://{HOST}/x")
    theirs = urllib3.HTTPResponse(io.BytesIO(body), headers=dict(headers), status=200, reason="OK",
                                  preload_content=True, request_method="GET")
    for response in (ours, theirs):
        assert response.data == body and response.json() == {"kind": "ConfigMap"}
    assert (ours.status, ours.reason, dict(ours.headers)) == (theirs.status, theirs.reason, dict(theirs.headers))
    assert (ours.read(), ours.tell(), ours.length_remaining, ours.closed) == \
        (theirs.read(), theirs.tell(), theirs.length_remaining, theirs.closed)
    unread = transport.to_urllib3(HttpResponse(200, headers, body), "GET", f"http://{HOST}/x", preload_content=False)
    assert unread.read() == body and unread.read() == b""
