"""GET pods/{name}/log over HTTP, without a cluster: the pod's status (written here as a kubelet would) says which
container instance is read, and the test writes the instance's lines (fakekube.pods.logs)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from fakekube.pods.logs import pod_logs
from fakekube.store import Store

CID = "containerd://aaa"


def running_pod(store: Store, name: str = "web", *, containers: tuple[str, ...] = ("app",),
                state: dict[str, Any] | None = None, last: dict[str, Any] | None = None) -> dict[str, Any]:
    if store.stored_object("/nodes", ("", "node-1")) is None:
        store.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})
    pod = store.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                "spec": {"nodeName": "node-1",
                                         "containers": [{"name": c, "image": "busybox"} for c in containers]}},
                       "default")
    statuses = [{"name": c, "image": "busybox", "imageID": "", "ready": True, "restartCount": 0,
                 "containerID": CID, "state": state if state is not None else {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                 **({"lastState": {"terminated": last}} if last else {})} for c in containers]
    store.patch("pods", name, {"status": {"phase": "Running", "containerStatuses": statuses}}, "default",
                patch_type="application/merge-patch+json", subresource="status")
    return pod


def get(server: Any, pod: str, **query: Any) -> tuple[int, str, str]:
    url = urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        q = urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in query.items()})
        conn.request("GET", f"/api/v1/namespaces/default/pods/{pod}/log" + (f"?{q}" if q else ""))
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type") or "", resp.read().decode()
    finally:
        conn.close()


def test_reads_the_instance_the_status_names_with_tail_timestamps_limit_and_since(kube: Store, kube_server: Any) -> None:
    pod = running_pod(kube)
    logs = pod_logs(kube)
    log = logs.instance(pod["metadata"]["uid"], "app", CID)
    old = datetime.now(UTC) - timedelta(hours=2)
    log.append("old line\n", time=old)
    log.append("one\ntwo\n")
    log.append("oops\n", stream="stderr")
    assert get(kube_server, "web") == (200, "text/plain", "old line\none\ntwo\noops\n")
    assert get(kube_server, "web", tailLines=2)[2] == "two\noops\n"
    assert get(kube_server, "web", tailLines=0)[2] == ""
    assert get(kube_server, "web", limitBytes=6)[2] == "old li"
    assert get(kube_server, "web", sinceSeconds=3600)[2] == "one\ntwo\noops\n"
    since = (old + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert get(kube_server, "web", sinceTime=since)[2] == "one\ntwo\noops\n"
    first = get(kube_server, "web", timestamps=True, tailLines=1)[2]
    stamp, text = first.split(" ", 1)
    assert text == "oops\n" and len(stamp) == len("2026-01-01T00:00:00.000000000Z") and stamp.endswith("Z")
    assert get(kube_server, "web", container="app", insecureSkipTLSVerifyBackend=True)[0] == 200


@pytest.mark.parametrize(("state", "last", "previous", "message"), [
    ({"waiting": {"reason": "ContainerCreating"}}, None, False,
     'container "app" in pod "web" is waiting to start: ContainerCreating'),
    ({"waiting": {"reason": "ImagePullBackOff"}}, None, False,
     'container "app" in pod "web" is waiting to start: trying and failing to pull image'),
    ({"waiting": {"reason": "ErrImagePull"}}, None, False,
     'container "app" in pod "web" is waiting to start: image can\'t be pulled'),
    ({"running": {}}, None, True, 'previous terminated container "app" in pod "web" not found'),
    ({"terminated": {"exitCode": 0}}, None, False, 'container "app" in pod "web" is terminated'),
    ({}, None, False, 'container "app" in pod "web" is waiting to start - no logs yet'),
])
def test_the_kubelets_refusals(kube: Store, kube_server: Any, state: dict[str, Any], last: Any, previous: bool,
                               message: str) -> None:
    running_pod(kube, state=state, last=last)
    code, kind, body = get(kube_server, "web", previous=previous)
    status = json.loads(body)
    assert (code, kind, status["reason"], status["message"]) == (400, "application/json", "BadRequest", message)


def test_previous_reads_the_last_terminated_instance(kube: Store, kube_server: Any) -> None:
    pod = running_pod(kube, last={"exitCode": 1, "containerID": "containerd://old"})
    logs = pod_logs(kube)
    logs.instance(pod["metadata"]["uid"], "app", "containerd://old").append("before the crash\n")
    logs.instance(pod["metadata"]["uid"], "app", CID).append("after\n")
    assert get(kube_server, "web", previous=True)[2] == "before the crash\n"
    assert get(kube_server, "web")[2] == "after\n"


def test_a_container_with_no_status_yet(kube: Store, kube_server: Any) -> None:
    running_pod(kube, containers=("a", "b"))
    kube.patch("pods", "web", {"status": {"containerStatuses": None}}, "default",
               patch_type="application/merge-patch+json", subresource="status")
    code, _, body = get(kube_server, "web", container="b")
    assert code == 400 and json.loads(body)["message"] == 'container "b" in pod "web" is not available'


def _open_follow(server: Any, pod: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    url = urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    conn.request("GET", f"/api/v1/namespaces/default/pods/{pod}/log?follow=true")
    return conn, conn.getresponse()


def _read_until(resp: http.client.HTTPResponse, text: bytes) -> bytes:
    seen = b""
    while text not in seen:
        piece = resp.read1(1024)
        if not piece:
            break
        seen += piece
    return seen


def test_follow_streams_lines_and_ends_when_the_instance_ends(kube: Store, kube_server: Any) -> None:
    pod = running_pod(kube)
    log = pod_logs(kube).instance(pod["metadata"]["uid"], "app", CID)
    log.append("first\n")
    conn, resp = _open_follow(kube_server, "web")
    try:
        assert resp.status == 200 and resp.getheader("Transfer-Encoding") == "chunked"
        assert _read_until(resp, b"first\n") == b"first\n"
        log.append("second\n")
        assert _read_until(resp, b"second\n") == b"second\n"
        log.terminate()
        assert resp.read() == b""  # the terminating chunk: the stream ended cleanly
    finally:
        conn.close()
    assert len(kube_server.server.front.log_followers) == 0


def test_follow_ends_when_the_pod_is_deleted_and_when_the_server_stops(kube: Store, kube_server_factory: Any) -> None:
    served = kube_server_factory(kube, poll_interval=0.02)
    running_pod(kube)
    conn, resp = _open_follow(served, "web")
    try:
        kube.delete("pods", "web", "default", grace_period_seconds=0)
        assert resp.read() == b""
    finally:
        conn.close()
    running_pod(kube, "other")
    conn, resp = _open_follow(served, "other")
    try:
        started = time.monotonic()
        stopper = threading.Thread(target=served.server.stop)
        stopper.start()
        stopper.join(5)
        assert time.monotonic() - started < 2
        with pytest.raises((http.client.IncompleteRead, ConnectionError, OSError)):
            resp.read()
    finally:
        conn.close()
    assert len(served.server.front.log_followers) == 0


def test_a_client_that_goes_away_frees_its_stream(kube: Store, kube_server: Any) -> None:
    running_pod(kube)
    conn, resp = _open_follow(kube_server, "web")
    assert resp.status == 200
    followers = kube_server.server.front.log_followers
    deadline = time.monotonic() + 5
    while len(followers) == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    conn.close()
    resp.close()
    while len(followers) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(followers) == 0


def test_bad_options_change_nothing_and_leave_no_stream(kube: Store, kube_server: Any) -> None:
    running_pod(kube)
    for query, code in [({"tailLines": -1}, 422), ({"limitBytes": 0}, 422), ({"sinceSeconds": 0}, 422),
                        ({"sinceSeconds": 5, "sinceTime": "2026-01-01T00:00:00Z"}, 422), ({"tailLines": "x"}, 400),
                        ({"container": "nope"}, 400), ({"follow": True, "container": "nope"}, 400)]:
        assert get(kube_server, "web", **query)[0] == code
    assert get(kube_server, "missing", follow=True)[0] == 404
    assert len(kube_server.server.front.log_followers) == 0


def test_a_log_read_is_in_the_audit_log(kube: Store, kube_server: Any) -> None:
    running_pod(kube)
    assert get(kube_server, "web")[0] == 200
    entry = list(kube.audit)[-1]
    assert (entry.verb, entry.resource, entry.subresource, entry.name) == ("get", "pods", "log", "web")


def test_follow_with_tail_and_limit_bytes(kube: Store, kube_server: Any) -> None:
    pod = running_pod(kube)
    log = pod_logs(kube).instance(pod["metadata"]["uid"], "app", CID)
    log.append("a\nb\nc\n")
    url = urlsplit(kube_server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("GET", "/api/v1/namespaces/default/pods/web/log?follow=true&tailLines=1&limitBytes=6")
        resp = conn.getresponse()
        assert _read_until(resp, b"c\n") == b"c\n"
        log.append("dddd\nnot sent\n")
        assert resp.read() == b"dddd"  # the limit ends the stream mid-line, cleanly
    finally:
        conn.close()
    assert len(kube_server.server.front.log_followers) == 0
