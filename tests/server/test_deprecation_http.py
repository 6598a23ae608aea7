"""Deprecated kinds' routes warn on every request their handler takes (observed on kube-apiserver v1.37.2;
apiserver pkg/endpoints/installer.go, pkg/endpoints/deprecation/deprecation.go, api core/v1/lifecycle.go)."""

from __future__ import annotations

from collections.abc import Callable

from .conftest import Response

ENDPOINTS_WARNING = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'


def test_endpoints_requests_carry_the_deprecation_warning(api: Callable[..., Response]) -> None:
    created = api("POST", "/api/v1/namespaces/default/endpoints",
                  {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"}})
    assert created.status == 201 and created.headers.get("warning") == ENDPOINTS_WARNING
    missing = api("GET", "/api/v1/namespaces/default/endpoints/nothing")
    assert missing.status == 404 and missing.headers.get("warning") == ENDPOINTS_WARNING
    assert "warning" not in api("GET", "/api/v1/namespaces/default/configmaps").headers


def test_a_watch_the_kind_does_not_offer_still_warns(api: Callable[..., Response]) -> None:
    refused = api("GET", "/api/v1/componentstatuses?watch=1")
    assert refused.status == 405
    assert refused.headers.get("warning") == '299 - "v1 ComponentStatus is deprecated in v1.19+"'
