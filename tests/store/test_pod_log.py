"""pods/log is not served (no kubelets), but it reads its pod first, as kube-apiserver v1.37.2 does (kubernetes
``pkg/registry/core/pod/strategy.go`` LogLocation): a missing pod is the pod's own 404."""

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
