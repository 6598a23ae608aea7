"""fakekube.pods.logs: container instances, current and previous, scripted lines and the test's writer."""

from __future__ import annotations

import select
from datetime import UTC, datetime

import pytest

from fakekube.pods.logs import PodLogs, pod_logs, timestamp
from fakekube.store import Store

POD = {"metadata": {"name": "web", "namespace": "default", "uid": "u1", "labels": {"app": "web"},
                    "annotations": {"sim.fakekube.io/logs-sidecar": "side 1\nside 2"}},
       "spec": {"containers": [{"name": "app"}, {"name": "sidecar"}]}}


def test_instances_rotate_and_keep_one_previous() -> None:
    logs = PodLogs()
    logs.kubelet_lines = False
    first = logs.container_started(POD, "app", "containerd://1")
    first.append("one\n")
    logs.container_stopped("u1", "app", 1)
    assert first.terminated
    second = logs.container_started(POD, "app", "containerd://2")
    second.append("two\n")
    assert logs.instance("u1", "app").text() == "two\n"
    assert logs.previous("u1", "app") is first
    logs.container_started(POD, "app", "containerd://3")
    assert logs.find("u1", "app", "containerd://1") is None  # only the previous instance survives a restart
    assert logs.find("u1", "app", "containerd://2") is second and second.terminated


def test_kubelet_lines_scripts_rules_and_annotations() -> None:
    logs = PodLogs()
    logs.script(["everyone"])
    logs.script(lambda pod, container: [f"{pod['metadata']['name']}/{container} says hi"], labels="app=web",
                container="app")
    app = logs.container_started(POD, "app", "c://a", image="nginx")
    side = logs.container_started(POD, "sidecar", "c://s")
    assert app.text() == "[fakekube] container app started (image nginx)\nweb/app says hi\n"
    assert side.text() == "[fakekube] container sidecar started\neveryone\nside 1\nside 2\n"
    logs.container_stopped("u1", "app", 0)
    assert app.text().endswith("[fakekube] container app exited with code 0\n")


def test_lines_partial_lines_streams_and_timestamps() -> None:
    logs = PodLogs(clock=lambda: datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC))
    log = logs.instance("u1", "app", "c://1")
    log.append("a\nb")
    log.append(b"c\n", stream="stderr")
    lines, ended = log.lines()
    assert [(line.data, line.stream) for line in lines] == [(b"a\n", "stdout"), (b"b", "stdout"), (b"c\n", "stderr")]
    assert not ended
    assert timestamp(lines[0].time) == "2026-01-02T03:04:05.123456000Z"
    with pytest.raises(ValueError):
        log.append("x", stream="stdin")


def test_a_follower_is_woken_by_a_line_and_by_the_end() -> None:
    log = PodLogs().instance("u1", "app", "c://1")
    follower = log.follow()
    try:
        assert select.select([follower], [], [], 0)[0] == []
        log.append("x\n")
        assert select.select([follower], [], [], 0)[0] == [follower]
        follower.clear()
        assert select.select([follower], [], [], 0)[0] == []
        log.terminate()
        assert select.select([follower], [], [], 0)[0] == [follower]
    finally:
        follower.close()
    log.append("after close\n")  # a closed follower is no longer woken (its descriptors are gone)


def test_write_before_the_kubelet_starts_the_container_and_text_by_pod_name() -> None:
    store = Store()
    pod = store.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}, "default")
    logs = pod_logs(store)
    assert pod_logs(store) is logs
    logs.write("default", "p", "early\n")
    started = logs.container_started(pod, "c", "containerd://x", image="busybox")
    assert started.text() == "early\n[fakekube] container c started (image busybox)\n"
    assert logs.text("default", "p") == started.text()
    assert logs.text("default", "p", previous=True) == ""
    with pytest.raises(LookupError, match="no container nope"):
        logs.write("default", "p", "x", container="nope")
    with pytest.raises(LookupError, match="not found"):
        logs.write("default", "missing", "x")


def test_pod_gone_ends_and_drops_its_logs() -> None:
    logs = PodLogs()
    log = logs.container_started(POD, "app", "c://1")
    logs.pod_gone("u1")
    assert log.terminated
    assert logs.find("u1", "app", "c://1") is None
