"""List paging, continue tokens and resourceVersions as kube-apiserver v1.37.2 answered them (observed on the
oracle; apiserver pkg/storage/cacher/cacher.go GetList, pkg/storage/continue.go, pkg/storage/etcd3)."""

from __future__ import annotations

import base64
import json

import pytest

from fakekube import continuetoken, errors
from fakekube.store import Store


def names(result: dict) -> list[str]:
    return [o["metadata"]["name"] for o in result["items"]]


def token(doc: str) -> str:
    return base64.urlsafe_b64encode(doc.encode()).decode().rstrip("=")


@pytest.fixture
def two_namespaces(kube: Store) -> Store:
    for ns, count in (("a", 4), ("b", 3)):
        kube.ensure_namespace(ns)
        for i in range(count):
            kube.create("configmaps", {"metadata": {"name": f"{ns}{i}", "labels": {"odd": str(i % 2)}}}, ns)
    return kube


def test_remaining_item_count_counts_the_namespace_only(two_namespaces: Store) -> None:
    first = two_namespaces.list("configmaps", "a", limit=2)
    assert names(first) == ["a0", "a1"] and first["metadata"]["remainingItemCount"] == 2
    second = two_namespaces.list("configmaps", "a", limit=2, continue_=first["metadata"]["continue"])
    assert names(second) == ["a2", "a3"] and "continue" not in second["metadata"]
    everywhere = two_namespaces.list("configmaps", limit=3)
    assert everywhere["metadata"]["remainingItemCount"] == 4


@pytest.mark.parametrize("limit, rv", [(-5, None), (0, None), (2, "0")])
def test_limits_that_page_nothing(two_namespaces: Store, limit: int, rv: str | None) -> None:
    # limit <= 0, or any limit with resourceVersion=0 (served from the cache whole): every item, no token
    result = two_namespaces.list("configmaps", "a", limit=limit, resource_version=rv)
    assert names(result) == ["a0", "a1", "a2", "a3"] and set(result["metadata"]) == {"resourceVersion"}


def test_a_filtered_page_has_a_token_while_keys_follow_and_no_count(two_namespaces: Store) -> None:
    first = two_namespaces.list("configmaps", "a", limit=1, label_selector="odd=1")
    assert names(first) == ["a1"] and "remainingItemCount" not in first["metadata"]
    second = two_namespaces.list("configmaps", "a", limit=1, label_selector="odd=1",
                                 continue_=first["metadata"]["continue"])
    assert names(second) == ["a3"] and "continue" not in second["metadata"]  # a3 is the namespace's last key
    first = two_namespaces.list("configmaps", "a", limit=1, label_selector="odd=0")
    second = two_namespaces.list("configmaps", "a", limit=1, label_selector="odd=0",
                                 continue_=first["metadata"]["continue"])
    assert names(second) == ["a2"] and "continue" in second["metadata"]  # a3 follows, though it does not match
    third = two_namespaces.list("configmaps", "a", limit=1, label_selector="odd=0",
                                continue_=second["metadata"]["continue"])
    assert names(third) == [] and "continue" not in third["metadata"]
    by_field = two_namespaces.list("configmaps", "a", limit=1, field_selector="metadata.name!=x")
    assert "continue" in by_field["metadata"] and "remainingItemCount" not in by_field["metadata"]


def test_a_too_old_token_offers_one_that_continues_at_the_latest_revision(two_namespaces: Store) -> None:
    first = two_namespaces.list("configmaps", "a", limit=2)
    two_namespaces.create("configmaps", {"metadata": {"name": "a9"}}, "a")
    two_namespaces.compact()
    with pytest.raises(errors.Expired) as expired:
        two_namespaces.list("configmaps", "a", limit=2, continue_=first["metadata"]["continue"])
    status = expired.value.status
    assert status["code"] == 410 and status["message"].startswith(
        "The provided continue parameter is too old to display a consistent list result. You can start a new "
        "list without the continue parameter, or use the continue token in this response")
    offered = status["metadata"]["continue"]
    assert continuetoken.decode(offered)[0] == -1
    rest = two_namespaces.list("configmaps", "a", limit=5, continue_=offered)
    assert names(rest) == ["a2", "a3", "a9"]
    assert rest["metadata"]["resourceVersion"] == two_namespaces.resource_version


@pytest.mark.parametrize("value, message", [
    ("not-a-token", "continue key is not valid: invalid character '\\u009e' looking for beginning of value"),
    ("abcde", "continue key is not valid: illegal base64 data at input byte 4"),
    ("ab==", "continue key is not valid: illegal base64 data at input byte 2"),
    ("a", "continue key is not valid: illegal base64 data at input byte 0"),
    (token('{"v":"meta.k8s.io/v2","rv":300,"start":"c"}'),
     "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"),
    (token('{"v":"meta.k8s.io/v1","rv":0,"start":"c"}'),
     "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    (token('{"v":"meta.k8s.io/v1","rv":5,"start":""}'),
     "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"),
    (token('{"v":"meta.k8s.io/v1","rv":5,"start":"../x"}'), "continue key is not valid: ../x"),
    (token('{"v":1}'),
     "continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string"),
    (token("[]"),
     "continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken"),
    (token("null"), "continue key is not valid: server does not recognize this encoded version "),
    (token('{"v":"meta.k8s.io/v1","rv":1.5,"start":"c"}'),
     "continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64"),
    (token('{"v":"meta.k8s.io/v1"'), "continue key is not valid: unexpected end of JSON input"),
    (token('{"v" "x"}'), "continue key is not valid: invalid character '\"' after object key"),
])
def test_bad_continue_tokens(kube: Store, value: str, message: str) -> None:
    with pytest.raises(errors.BadRequest) as bad:
        kube.list("configmaps", "default", limit=1, continue_=value)
    assert bad.value.message == f"invalid continue token: {message}"


def test_token_fields_match_case_insensitively(two_namespaces: Store) -> None:
    rv = int(two_namespaces.resource_version)
    mixed = token(json.dumps({"V": "meta.k8s.io/v1", "RV": rv, "Start": "a/a1\u0000"}))
    assert names(two_namespaces.list("configmaps", "a", continue_=mixed)) == ["a2", "a3"]


def test_continue_with_a_resource_version(two_namespaces: Store) -> None:
    first = two_namespaces.list("configmaps", "a", limit=2)
    with pytest.raises(errors.BadRequest, match="^specifying resource version is not allowed when using continue$"):
        two_namespaces.list("configmaps", "a", continue_=first["metadata"]["continue"], resource_version="5")
    assert names(two_namespaces.list("configmaps", "a", continue_=first["metadata"]["continue"],
                                     resource_version="0")) == ["a2", "a3"]


@pytest.mark.parametrize("rv, reason", [("abc", "invalid syntax"), ("-1", "invalid syntax"),
                                        ("+5", "invalid syntax"),
                                        ("99999999999999999999999", "value out of range")])
def test_resource_versions_that_do_not_parse(kube: Store, rv: str, reason: str) -> None:
    detail = f'resourceVersion: Invalid value: "{rv}": strconv.ParseUint: parsing "{rv}": {reason}'
    with pytest.raises(errors.BadRequest) as bad:
        kube.list("configmaps", "default", resource_version=rv)
    assert bad.value.message == f"invalid resource version: {detail}"
    with pytest.raises(errors.ApiError) as failed:  # a watch answers the storage error as a 500, no reason
        kube.watch("configmaps", "default", resource_version=rv)
    assert (failed.value.code, failed.value.reason, failed.value.message) == (500, "", detail)


def test_a_limit_with_a_resource_version_lists_at_that_revision(two_namespaces: Store) -> None:
    rv = two_namespaces.resource_version
    two_namespaces.create("configmaps", {"metadata": {"name": "a00"}}, "a")
    assert names(two_namespaces.list("configmaps", "a", limit=10, resource_version=rv)) == ["a0", "a1", "a2", "a3"]
    assert "a00" in names(two_namespaces.list("configmaps", "a", resource_version=rv))  # NotOlderThan


def test_too_large_resource_versions(kube: Store) -> None:
    current = kube.resource_version
    for kwargs in ({"resource_version": "99999999"},
                   {"resource_version": "99999999", "resource_version_match": "Exact"},
                   {"continue_": token('{"v":"meta.k8s.io/v1","rv":99999999,"start":"c\\u0000"}')}):
        with pytest.raises(errors.ApiError) as info:
            kube.list("configmaps", "default", **kwargs)
        assert info.value.status == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "Timeout", "code": 504,
            "message": f"Timeout: Too large resource version: 99999999, current: {current}",
            "details": {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                        "retryAfterSeconds": 1}}
