"""Broken input below HTTP: malformed request lines, unknown methods, bodies cut short, resets. Every answer is
a Status body, and the server keeps serving."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

CMS = "/api/v1/namespaces/default/configmaps"


def _raw(url: str, data: bytes, *, read: bool = True) -> bytes:
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(data)
        if not read:
            return b""
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def _status_of(raw: bytes) -> dict:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 "), raw
    return json.loads(body)


def test_malformed_request_line_gets_a_status(api, kube_server):
    status = _status_of(_raw(kube_server.url, b"GARBAGE\r\n\r\n"))
    assert status["kind"] == "Status" and status["code"] == 400
    assert api("GET", CMS).status == 200


def test_unknown_method_gets_a_status(api, kube_server):
    status = _status_of(_raw(kube_server.url, b"BREW /api HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert status["code"] == 405 and status["reason"] == "MethodNotAllowed"
    assert api("GET", CMS).status == 200


def test_body_cut_short_and_resets_do_not_hurt(api, kube_server):
    _raw(kube_server.url, b"POST " + CMS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"a\":",
         read=False)
    parts = urlsplit(kube_server.url)
    sock = socket.create_connection((parts.hostname, parts.port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close
    sock.sendall(b"GET " + CMS.encode() + b" HTTP/1.1\r\nHost: x\r\n")
    sock.close()
    status = _status_of(_raw(kube_server.url, b"POST " + CMS.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                             b"Content-Length: abc\r\n\r\n"))
    assert status["code"] == 400
    assert api("POST", CMS, {"metadata": {"name": "after"}}).status == 201


def test_chunked_request_body_is_accepted(api, kube_server):
    body = json.dumps({"metadata": {"name": "chunked"}}).encode()
    request = (b"POST " + CMS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
               + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    raw = _raw(kube_server.url, request)
    assert raw.startswith(b"HTTP/1.1 201")
    assert kube_server.store.get("configmaps", "chunked", "default")


def test_many_requests_on_one_keep_alive_connection(kube_server):
    import http.client

    parts = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    for i in range(50):
        conn.request("POST", CMS, json.dumps({"metadata": {"name": f"k{i}"}}),
                     {"Content-Type": "application/json"})
        assert conn.getresponse().read() and True
        conn.request("GET", f"{CMS}/missing{i}")
        resp = conn.getresponse()
        assert resp.status == 404 and json.loads(resp.read())["reason"] == "NotFound"
    conn.close()
    assert len(kube_server.store.objects("configmaps", "default")) == 50
