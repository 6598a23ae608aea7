"""Create checks of more kinds, each asserting the answer observed on kube-apiserver v1.37.2 (the differential
corpus' ``*/create/without-*``, ``invalid-name`` and ``no-name`` cases) and following kubernetes
``pkg/apis/<group>/validation`` and ``pkg/registry/<group>/<resource>/strategy.go`` at v1.37.2 (sources in
docs/semantics.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.ipstrings import ip_errors
from fakekube.store import Store

_PARENT = {"group": "", "resource": "services", "namespace": "default", "name": "demo"}


def _create_fails(kube: Store, resource: str, body: dict[str, Any], namespace: str | None = None) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create(resource, body, namespace)
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


def _update_fails(kube: Store, resource: str, body: dict[str, Any], namespace: str | None = None) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.update(resource, body, namespace)
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


def test_a_limit_range_without_a_name_is_named_by_a_uuid(kube: Store) -> None:
    # limitrange strategy.go PrepareForCreate: no 422 for the missing name, a fresh UUID instead.
    made = kube.create("limitranges", {"metadata": {}, "spec": {"limits": [{"type": "Container"}]}}, "default")
    name = made["metadata"]["name"]
    assert len(name) == 36 and name.count("-") == 4 and name != made["metadata"]["uid"]
    assert kube.get("limitranges", name, "default")["metadata"]["uid"] == made["metadata"]["uid"]
    generated = kube.create("limitranges", {"metadata": {"generateName": "lr-"}}, "default")
    assert generated["metadata"]["name"].startswith("lr-")


@pytest.mark.parametrize(("text", "errs"), [
    ("10.0.0.1", []), ("2001:db8::1", []), ("::", []),
    ("Invalid_Name", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("1.2.3", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("fe80::1%eth0", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("010.0.0.1", ["must not have leading 0s"]),
    ("::ffff:1.2.3.4", ["must not be an IPv4-mapped IPv6 address"]),
    ("2001:DB8::1", ['must be in canonical form ("2001:db8::1")']),
    ("2001:db8:0:0:0:0:0:1", ['must be in canonical form ("2001:db8::1")']),
])
def test_ip_strings(text: str, errs: list[str]) -> None:
    # apimachinery pkg/util/validation/ip.go IsValidIP (validation/ip_test.go TestIsValidIP's kinds of input).
    assert ip_errors(text) == errs


def test_ip_address_name_and_parent(kube: Store) -> None:
    assert _create_fails(kube, "ipaddresses", {"metadata": {"name": "Invalid_Name"}, "spec": {"parentRef": _PARENT}}) == [
        'metadata.name: Invalid value: "Invalid_Name": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']
    assert _create_fails(kube, "ipaddresses", {"metadata": {"name": "10.1.2.3"}}) == ["spec.parentRef: Required value"]
    assert _create_fails(kube, "ipaddresses", {"metadata": {"name": "10.1.2.3"}, "spec": {"parentRef": {
        "group": "Bad_Group", "namespace": "a/b"}}}) == [
        'spec.parentRef.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.parentRef.namespace: Invalid value: \"a/b\": may not contain '/'",
        "spec.parentRef.resource: Required value", "spec.parentRef.name: Required value"]
    made = kube.create("ipaddresses", {"metadata": {"name": "10.1.2.3"}, "spec": {"parentRef": _PARENT}})
    made["spec"]["parentRef"] = {**_PARENT, "name": "other"}
    with pytest.raises(errors.Invalid) as caught:
        kube.update("ipaddresses", made)
    assert caught.value.status["message"] == (
        'IPAddress.networking.k8s.io "10.1.2.3" is invalid: spec.parentRef: Invalid value: null: field is immutable')
    made["spec"] = {}
    assert _update_fails(kube, "ipaddresses", made) == [
        "spec.parentRef: Required value", "spec.parentRef: Invalid value: null: field is immutable"]
