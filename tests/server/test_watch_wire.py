"""Watch streams on the wire: chunked NDJSON, timeoutSeconds, bookmarks, 410 as an ERROR event, keep-alive
after a clean end, and threads freed when a client disconnects or the server stops."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from urllib.parse import urlsplit

CMS = "/api/v1/namespaces/default/configmaps"


def _connect(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)


def _events(resp: http.client.HTTPResponse) -> list[dict]:
    events = []
    while True:
        line = resp.readline()
        if not line:
            return events
        events.append(json.loads(line))


def _wait(predicate, timeout=5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_chunked_ndjson_with_timeout_and_keep_alive(kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "a"}}, "default")
    conn = _connect(kube_server.url)
    conn.request("GET", f"{CMS}?watch=true&timeoutSeconds=1")
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.getheader("Transfer-Encoding") == "chunked"
    assert resp.getheader("Content-Type") == "application/json"
    threading.Timer(0.2, lambda: store.patch("configmaps", "a", {"data": {"x": "1"}}, "default")).start()
    started = time.monotonic()
    events = _events(resp)
    assert 0.9 < time.monotonic() - started < 3
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "a"), ("MODIFIED", "a")]
    assert events[1]["object"]["apiVersion"] == "v1" and events[1]["object"]["kind"] == "ConfigMap"
    # The stream ended with the terminating chunk: the same connection serves the next request.
    conn.request("GET", f"{CMS}/a")
    again = conn.getresponse()
    assert again.status == 200 and json.loads(again.read())["data"] == {"x": "1"}
    conn.close()


def test_bookmarks_only_when_asked_and_only_when_newer(kube_server):
    # Observed on kube-apiserver v1.37.2: the bookmark before a timeout goes out 2 s before it, carrying the watch
    # cache's revision of the kind, and only when that is newer than what the watcher has seen (a change in
    # another namespace moves it; nothing at all sends none) — apiserver storage/cacher/cache_watcher.go.
    store = kube_server.store
    store.ensure_namespace("other")
    rv = store.resource_version
    conn = _connect(kube_server.url)
    conn.request("GET", f"{CMS}?watch=1&resourceVersion={rv}&timeoutSeconds=3&allowWatchBookmarks=true")
    resp = conn.getresponse()
    moved = store.create("configmaps", {"metadata": {"name": "elsewhere"}}, "other")["metadata"]["resourceVersion"]
    store.create("secrets", {"metadata": {"name": "s"}}, "default")  # another kind does not move it
    started = time.monotonic()
    events = _events(resp)
    assert 2.5 < time.monotonic() - started < 4
    assert [e["type"] for e in events] == ["BOOKMARK"]
    assert events[0]["object"] == {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": moved}}
    conn.request("GET", f"{CMS}?watch=1&resourceVersion={store.resource_version}&timeoutSeconds=3"
                        "&allowWatchBookmarks=true")
    assert _events(conn.getresponse()) == []  # nothing newer: no bookmark
    conn.request("GET", f"{CMS}?watch=True&resourceVersion={rv}&timeoutSeconds=3")
    assert _events(conn.getresponse()) == []  # the change in the other namespace is not this watch's
    conn.close()


def test_no_bookmark_when_the_watch_lasts_two_seconds_or_less(kube_server):
    store = kube_server.store
    store.ensure_namespace("other")
    conn = _connect(kube_server.url)
    conn.request("GET", f"{CMS}?watch=1&resourceVersion={store.resource_version}&timeoutSeconds=2"
                        "&allowWatchBookmarks=true")
    resp = conn.getresponse()
    store.create("configmaps", {"metadata": {"name": "elsewhere"}}, "other")
    assert _events(resp) == []


def test_a_timeout_already_past_ends_the_stream_at_once(kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "a"}}, "default")
    conn = _connect(kube_server.url)
    started = time.monotonic()
    conn.request("GET", f"{CMS}?watch=1&timeoutSeconds=-1&allowWatchBookmarks=true")
    resp = conn.getresponse()
    assert resp.status == 200 and _events(resp) == [] and time.monotonic() - started < 1


def test_periodic_bookmarks_on_idle_stream(kube_server_factory, http_request):
    served = kube_server_factory(bookmark_interval=0.2, poll_interval=0.05)
    store = served.store
    store.ensure_namespace("other")
    rv = store.resource_version
    conn = _connect(served.url)
    conn.request("GET", f"{CMS}?watch=true&resourceVersion={rv}&timeoutSeconds=1&allowWatchBookmarks=true")
    resp = conn.getresponse()
    threading.Timer(0.1, lambda: store.create("configmaps", {"metadata": {"name": "x"}}, "other")).start()
    threading.Timer(0.5, lambda: store.create("configmaps", {"metadata": {"name": "y"}}, "other")).start()
    events = _events(resp)
    # one bookmark per new revision of the kind, none repeated while it stays the same
    assert [e["type"] for e in events] == ["BOOKMARK", "BOOKMARK"]
    marks = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert marks[0] < marks[1]


def test_send_initial_events_ends_with_marked_bookmark(kube_server):
    kube_server.store.create("configmaps", {"metadata": {"name": "a"}}, "default")
    conn = _connect(kube_server.url)
    conn.request("GET", f"{CMS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true"
                        "&resourceVersionMatch=NotOlderThan&timeoutSeconds=1")
    events = _events(conn.getresponse())
    assert events[0]["type"] == "ADDED"
    marked = [e for e in events if e["type"] == "BOOKMARK"
              and (e["object"]["metadata"].get("annotations") or {}).get("k8s.io/initial-events-end") == "true"]
    assert marked


def test_too_old_resource_version_is_an_error_event(kube_server):
    store = kube_server.store
    old = store.create("configmaps", {"metadata": {"name": "a"}}, "default")["metadata"]["resourceVersion"]
    store.create("configmaps", {"metadata": {"name": "b"}}, "default")
    store.compact()
    conn = _connect(kube_server.url)
    conn.request("GET", f"{CMS}?watch=true&resourceVersion={int(old) - 1}")
    resp = conn.getresponse()
    assert resp.status == 200
    events = _events(resp)
    assert len(events) == 1 and events[0]["type"] == "ERROR"
    status = events[0]["object"]
    assert status["kind"] == "Status" and status["code"] == 410 and status["reason"] == "Expired"
    assert store.hub.watcher_count() == 0


def test_legacy_watch_prefix_and_selectors(kube_server):
    store = kube_server.store
    conn = _connect(kube_server.url)
    conn.request("GET", "/api/v1/watch/namespaces/default/configmaps/want?timeoutSeconds=1")
    resp = conn.getresponse()

    def writes():
        store.create("configmaps", {"metadata": {"name": "other"}}, "default")
        store.create("configmaps", {"metadata": {"name": "want"}}, "default")

    threading.Timer(0.1, writes).start()
    assert [e["object"]["metadata"]["name"] for e in _events(resp)] == ["want"]
    conn.request("GET", f"{CMS}?watch=true&labelSelector=app%3Dx&timeoutSeconds=1")
    resp = conn.getresponse()
    threading.Timer(0.1, lambda: store.create("configmaps", {"metadata": {"name": "l", "labels": {"app": "x"}}},
                                              "default")).start()
    assert [e["object"]["metadata"]["name"] for e in _events(resp)] == ["l"]


def test_disconnect_mid_watch_frees_the_thread(kube_server):
    server = kube_server.server
    baseline = server.open_connections
    parts = urlsplit(kube_server.url)
    sockets = []
    for _ in range(5):
        sock = socket.create_connection((parts.hostname, parts.port))
        sock.sendall(f"GET {CMS}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        sockets.append(sock)
    assert _wait(lambda: kube_server.store.hub.watcher_count() == 5)
    for sock in sockets:
        sock.close()
    assert _wait(lambda: kube_server.store.hub.watcher_count() == 0)
    assert _wait(lambda: server.open_connections <= baseline)


def test_stop_ends_streams_promptly(kube_server_factory):
    served = kube_server_factory()
    conn = _connect(served.url)
    conn.request("GET", f"{CMS}?watch=true")
    resp = conn.getresponse()
    assert served.store.hub.watcher_count() == 1
    started = time.monotonic()
    served.server.stop()
    assert time.monotonic() - started < 2
    assert served.store.hub.watcher_count() == 0
    assert _events(resp) == []


def test_many_watchers_get_every_event_in_order(kube_server):
    store = kube_server.store
    rv = store.resource_version
    watchers = 20
    results: list[list[str]] = [[] for _ in range(watchers)]
    ready = threading.Barrier(watchers + 1)

    def watch(i: int) -> None:
        conn = _connect(kube_server.url)
        conn.request("GET", f"{CMS}?watch=true&resourceVersion={rv}&timeoutSeconds=5")
        resp = conn.getresponse()
        ready.wait()
        while len(results[i]) < 50:
            line = resp.readline()
            if not line:
                break
            results[i].append(json.loads(line)["object"]["metadata"]["resourceVersion"])
        conn.close()

    threads = [threading.Thread(target=watch, args=(i,)) for i in range(watchers)]
    for t in threads:
        t.start()
    ready.wait()
    expected = [store.create("configmaps", {"metadata": {"name": f"c{i}"}}, "default")["metadata"]["resourceVersion"]
                for i in range(50)]
    for t in threads:
        t.join(10)
    assert all(r == expected for r in results)


def test_a_closed_client_is_noticed_at_once_not_at_the_next_poll(kube_server_factory):
    # With a 30 s poll, only a wait on the socket itself notices the close within the second.
    served = kube_server_factory(poll_interval=30.0)
    parts = urlsplit(served.url)
    sock = socket.create_connection((parts.hostname, parts.port))
    sock.sendall(f"GET {CMS}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    assert _wait(lambda: served.store.hub.watcher_count() == 1)
    time.sleep(0.05)  # the stream is waiting now
    sock.close()
    assert _wait(lambda: served.store.hub.watcher_count() == 0, timeout=1.0)


def test_a_client_that_sends_while_watching_gets_events_without_spinning(kube_server_factory):
    import resource

    served = kube_server_factory(poll_interval=0.1)
    parts = urlsplit(served.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock.sendall(f"GET {CMS}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    sock.sendall(b"unexpected bytes")  # the socket stays readable: waiting on it again would spin
    time.sleep(0.1)
    before = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(0.5)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 0.3
    served.store.create("configmaps", {"metadata": {"name": "seen"}}, "default")
    assert b'"name":"seen"' in sock.recv(4096)
    sock.close()  # noticed at the next peek
    assert _wait(lambda: served.store.hub.watcher_count() == 0, timeout=2.0)


def test_300_watchers_each_get_every_event_in_order(kube_server):
    # Each stream holds its socket and its watch's wakeup descriptor: 300 of them stay within poll's reach.
    store, parts = kube_server.store, urlsplit(kube_server.url)
    sockets = []
    try:
        for _ in range(300):
            sock = socket.create_connection((parts.hostname, parts.port), timeout=20)
            sock.sendall(f"GET {CMS}?watch=true&timeoutSeconds=30 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            sockets.append(sock)
        assert _wait(lambda: store.hub.watcher_count() == 300, timeout=30)
        expected = [store.create("configmaps", {"metadata": {"name": f"w{i}"}}, "default")["metadata"]["name"]
                    for i in range(10)]
        for sock in sockets:
            data = b""
            while data.count(b'"type":"ADDED"') < 10:
                chunk = sock.recv(65536)
                assert chunk, "stream ended early"
                data += chunk
            names = [json.loads(line)["object"]["metadata"]["name"] for line in data.split(b"\r\n")
                     if line.startswith(b'{"type"')]
            assert names == expected
    finally:
        for sock in sockets:
            sock.close()
    assert _wait(lambda: store.hub.watcher_count() == 0, timeout=10)
