"""Unit tests of the pure parts: path parsing, query parameters, Accept negotiation, actors."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.server import routing
from fakekube.server.auth import actor_from_user_agent
from fakekube.server.discovery import wants_aggregated
from fakekube.server.params import Query
from fakekube.server.routing import Endpoint, ResourcePath


@pytest.mark.parametrize("path, expected", [
    ("/version/", Endpoint("version")),
    ("/api/", Endpoint("api_versions")),
    ("/apis", Endpoint("apis")),
    ("/apis/apps", Endpoint("group", ("apps",))),
    ("/api/v1", Endpoint("group_version", ("", "v1"))),
    ("/apis/apps/v1/", Endpoint("group_version", ("apps", "v1"))),
    ("/openapi/v3", Endpoint("openapi_v3")),
    ("/openapi/v3/apis/example.com/v1", Endpoint("openapi_v3_doc", ("example.com", "v1"))),
    ("/openapi/v2", Endpoint("openapi_v2")),
    ("/openapi/v1", None),
    ("/api/v1/pods", ResourcePath("", "v1", "pods")),
    ("/api/v1/namespaces", ResourcePath("", "v1", "namespaces")),
    ("/api/v1/namespaces/default", ResourcePath("", "v1", "namespaces", None, "default")),
    ("/api/v1/namespaces/default/status", ResourcePath("", "v1", "namespaces", None, "default", "status")),
    ("/api/v1/namespaces/ns/finalize", ResourcePath("", "v1", "namespaces", None, "ns", "finalize")),
    ("/api/v1/namespaces/ns/pods", ResourcePath("", "v1", "pods", "ns")),
    ("/api/v1/namespaces/ns/pods/p/status", ResourcePath("", "v1", "pods", "ns", "p", "status")),
    ("/apis/apps/v1/namespaces/ns/deployments/d/scale",
     ResourcePath("apps", "v1", "deployments", "ns", "d", "scale")),
    ("/apis/example.com/v1/widgets?watch=1", ResourcePath("example.com", "v1", "widgets")),
    ("/api/v1/watch/namespaces/ns/pods/p", ResourcePath("", "v1", "pods", "ns", "p", None, True)),
    ("/api/v1/namespaces/ns/pods/p/status/extra", None),
    ("/api/v2/pods", None),
    ("/api//v1", None),  # an empty segment (observed on kube-apiserver v1.37.2: a 404)
    ("/", None),
    ("/metrics", None),
])
def test_parse(path, expected):
    assert routing.parse(path) == expected


@pytest.mark.parametrize("value, expected", [("true", True), ("True", True), ("1", True), ("t", True),
                                             ("yes", True), ("", True), ("F", True), ("false", False),
                                             ("FALSE", False), ("0", False), ("TRUE", True),
                                             ("FaLsE", False), ("maybe", True)])
def test_bools_parse_as_the_parameter_codec_does(value, expected):
    # observed on kube-apiserver v1.37.2 (``watch=yes``, ``watch=`` start watches); apimachinery
    # pkg/runtime/conversion.go Convert_Slice_string_To_bool: only "0" and "false" (any case) are false
    assert Query(f"watch={value}").bool("watch") is expected
    assert Query("").bool("watch") is False


@pytest.mark.parametrize("value, message", [
    ("x", 'strconv.ParseInt: parsing "x": invalid syntax'),
    ("", 'strconv.ParseInt: parsing "": invalid syntax'),
    (" 5", 'strconv.ParseInt: parsing " 5": invalid syntax'),
    ("99999999999999999999", 'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
])
def test_bad_integers_are_400_with_go_text(value, message):
    # observed on kube-apiserver v1.37.2: the whole message is strconv's error
    with pytest.raises(errors.ApiError) as bad:
        Query(f"limit={value}").int("limit")
    assert bad.value.code == 400 and bad.value.message == message
    assert Query("limit=%2B7").int("limit") == 7
    assert Query("limit=-5").int("limit") == -5
    assert Query("labelSelector=a%3Db&labelSelector=c").str("labelSelector") == "a=b"


def test_aggregated_discovery_needs_v2():
    assert wants_aggregated("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
    assert wants_aggregated("application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io")
    assert not wants_aggregated("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")
    assert not wants_aggregated("application/json")
    assert not wants_aggregated(None)


@pytest.mark.parametrize("agent, actor", [
    ("kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd", "kubectl"),
    ("kopf/1.45.2", "kopf"),
    ("OpenAPI-Generator/37.0.2/python", "OpenAPI-Generator"),
    ("", "unknown"),
    (None, "unknown"),
])
def test_actor_is_the_user_agent_product(agent, actor):
    assert actor_from_user_agent(agent) == actor
