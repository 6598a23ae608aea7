"""PUT to a missing object (AllowCreateOnUpdate) and PUT without a resourceVersion (AllowUnconditionalUpdate),
per kind, as observed on kube-apiserver v1.37.2 (apiserver v0.37.2 pkg/registry/generic/registry/store.go
``Update``; each kind's answer in kubernetes v1.37.2 pkg/registry/<group>/<resource>/strategy.go)."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.kinds import updaterules
from fakekube.store import Store

LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
         "metadata": {"name": "l1"}, "spec": {"holderIdentity": "me"}}


@pytest.fixture
def store() -> Store:
    return Store(seed=1)


def test_put_creates_a_lease_with_an_update_entry(store: Store) -> None:
    created = store.update("leases", LEASE, "default", name="l1", actor="kubectl")
    assert created["metadata"]["uid"] and created["metadata"]["creationTimestamp"]
    assert created["metadata"]["managedFields"][0]["operation"] == "Update"
    assert store.last_request().code == 201
    assert store.get("leases", "l1", "default")["spec"] == {"holderIdentity": "me"}


def test_put_creates_a_service_with_allocations(store: Store) -> None:
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}
    created = store.update("services", body, "default", name="s")
    assert created["spec"]["clusterIP"] and created["spec"]["type"] == "ClusterIP"


def test_put_of_a_kind_without_create_on_update_is_404(store: Store) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    with pytest.raises(errors.NotFound):
        store.update("configmaps", body, "default", name="c")


def test_put_create_drops_a_resource_version_but_a_dry_run_shows_it(store: Store) -> None:
    body = {**LEASE, "metadata": {"name": "l1", "resourceVersion": "5"}}
    assert store.update("leases", body, "default", name="l1", dry_run=True)["metadata"]["resourceVersion"] == "5"
    created = store.update("leases", body, "default", name="l1")
    assert created["metadata"]["resourceVersion"] != "5"


def test_put_create_with_a_uid_fails_the_precondition(store: Store) -> None:
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s2", "uid": "abc"},
            "spec": {"ports": [{"port": 80}]}}
    with pytest.raises(errors.Conflict) as caught:
        store.update("services", body, "default", name="s2")
    assert caught.value.message == (
        'Operation cannot be fulfilled on services "s2": StorageError: invalid object, Code: 4, Key: '
        "/registry/services/specs/default/s2, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
        "precondition: abc, UID in object meta: ")


def test_put_create_needs_the_urls_name(store: Store) -> None:
    with pytest.raises(errors.BadRequest, match=r"the name of the object \(l1\) does not match the name on the URL"):
        store.update("leases", LEASE, "default", name="other")


def test_lease_refuses_an_update_without_resource_version(store: Store) -> None:
    store.create("leases", LEASE, "default")
    with pytest.raises(errors.Invalid) as caught:
        store.update("leases", {**LEASE, "spec": {"holderIdentity": "you"}}, "default")
    assert caught.value.message == ('leases.coordination.k8s.io "l1" is invalid: metadata.resourceVersion: '
                                    "Invalid value: 0: must be specified for an update")


@pytest.mark.parametrize(("group", "kind"), sorted(updaterules.CONDITIONAL_UPDATE_ONLY))
def test_the_table_reaches_the_strategies(store: Store, group: str, kind: str) -> None:
    for rt in store.registry:
        if rt.group == group and rt.kind == kind:
            assert not rt.strategy.allow_unconditional_update


def test_create_on_update_reaches_the_strategies(store: Store) -> None:
    allowed = {(rt.group, rt.kind) for rt in store.registry if rt.strategy.allow_create_on_update}
    assert ("", "Service") in allowed and ("rbac.authorization.k8s.io", "ClusterRole") in allowed
    assert ("", "ConfigMap") not in allowed and ("apps", "Deployment") not in allowed
