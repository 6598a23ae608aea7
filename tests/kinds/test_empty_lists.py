"""An empty list a write sends where the strategy compares with Go's ``reflect.DeepEqual``: observed on
kube-apiserver v1.37.2, a PUT, an apply or a patch whose decoded object holds ``webhooks: []`` (or an empty list in
a NetworkPolicy's spec) moves ``metadata.generation`` even though storage writes the same object without it (the
stored one decodes as a nil slice, the request's as an empty non-nil one). Sources:
pkg/registry/admissionregistration/{validating,mutating}webhookconfiguration/strategy.go and
pkg/registry/networking/networkpolicy/strategy.go ``PrepareForUpdate`` (kubernetes@v1.37.2); kinds comparing with
``apiequality.Semantic.DeepEqual`` (which takes nil and empty as equal) do not."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.store import Store

_HOOKS = "validatingwebhookconfigurations"


def _hooks(**extra: Any) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "h", **extra}, "webhooks": []}


@pytest.mark.parametrize("resource", [_HOOKS, "mutatingwebhookconfigurations"])
def test_put_of_an_empty_webhook_list_moves_generation_and_writes(kube: Store, resource: str) -> None:
    kind = "MutatingWebhookConfiguration" if resource.startswith("mutating") else "ValidatingWebhookConfiguration"
    created = kube.create(resource, {**_hooks(), "kind": kind})
    assert "webhooks" not in created and created["metadata"]["generation"] == 1
    put = kube.update(resource, {**_hooks(resourceVersion=created["metadata"]["resourceVersion"]), "kind": kind})
    assert "webhooks" not in put and put["metadata"]["generation"] == 2
    assert put["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]


def test_a_put_without_the_empty_list_is_a_no_op(kube: Store) -> None:
    created = kube.create(_HOOKS, _hooks())
    body = {key: value for key, value in _hooks(resourceVersion=created["metadata"]["resourceVersion"]).items()
            if key != "webhooks"}
    put = kube.update(_HOOKS, body)
    assert put["metadata"]["generation"] == 1
    assert put["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_apply_of_an_empty_list_moves_generation_once(kube: Store) -> None:
    applied = kube.patch(_HOOKS, "h", _hooks(), patch_type="application/apply-patch+yaml", field_manager="m")
    assert applied["metadata"]["generation"] == 1
    again = kube.patch(_HOOKS, "h", _hooks(labels={"a": "b"}), patch_type="application/apply-patch+yaml",
                       field_manager="m")
    assert again["metadata"]["generation"] == 2  # one bump, not one for the list and one for the change


def test_merge_patches_with_and_without_the_empty_list(kube: Store) -> None:
    kube.create(_HOOKS, _hooks())
    labelled = kube.patch(_HOOKS, "h", {"metadata": {"labels": {"a": "b"}}})
    assert labelled["metadata"]["generation"] == 1
    emptied = kube.patch(_HOOKS, "h", {"webhooks": []})
    assert "webhooks" not in emptied and emptied["metadata"]["generation"] == 2


def test_networkpolicy_spec_holding_an_empty_list(kube: Store) -> None:
    body = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"},
            "spec": {"podSelector": {}, "ingress": []}}
    created = kube.create("networkpolicies", body, "default")
    again = kube.update("networkpolicies", {**body, "metadata": {"name": "np", "resourceVersion":
                                                                  created["metadata"]["resourceVersion"]}},
                        "default")
    assert again["metadata"]["generation"] == 2
    labelled = kube.patch("networkpolicies", "np", {"metadata": {"labels": {"a": "b"}}}, "default")
    assert labelled["metadata"]["generation"] == 2
