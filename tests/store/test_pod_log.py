"""The store's part of pods/log: it reads its pod first, as kube-apiserver v1.37.2 does (kubernetes
``pkg/registry/core/pod/strategy.go`` LogLocation): a missing pod is the pod's own 404; an existing one is
answered (the HTTP front reads the log, fakekube.server.podlog) and the read is in the audit log."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store


def test_the_log_of_a_missing_pod_is_the_pods_not_found() -> None:
    kube = Store(seed=1)
    with pytest.raises(errors.NotFound) as caught:
        kube.get("pods", "demo", "default", subresource="log")
    assert caught.value.status["message"] == 'pods "demo" not found'
    assert caught.value.status["details"] == {"name": "demo", "kind": "pods"}


def test_the_log_of_a_pod_reads_the_pod_and_is_audited() -> None:
    kube = Store(seed=1)
    kube.create("pods", {"metadata": {"name": "demo"}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
                "default")
    assert kube.get("pods", "demo", "default", subresource="log", actor="kubectl")["metadata"]["name"] == "demo"
    entry = kube.last_request()
    assert (entry.verb, entry.subresource, entry.actor, entry.code) == ("get", "log", "kubectl", 200)
