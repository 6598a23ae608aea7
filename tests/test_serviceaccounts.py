"""The service-account controller (kubernetes ``pkg/controller/serviceaccount/serviceaccounts_controller.go``):
every active namespace has its ``default`` ServiceAccount, created right after the namespace by an audited
request of its own."""

from __future__ import annotations

from fakekube import errors
from fakekube.sim import Simulation
from fakekube.store import DEFAULT_NAMESPACES, Store


def test_the_bootstrap_namespaces_have_theirs_and_the_audit_log_starts_empty() -> None:
    store = Store(seed=1)
    assert sorted(sa["metadata"]["namespace"] for sa in store.objects("serviceaccounts")) == sorted(DEFAULT_NAMESPACES)
    assert list(store.audit.entries) == []


def test_a_new_namespace_gets_one_right_after_as_its_own_request() -> None:
    store = Store(seed=1)
    store.create("namespaces", {"metadata": {"name": "team"}}, actor="kubectl")
    entries = [(e.actor, e.verb, e.resource, e.namespace, e.name, e.code) for e in store.audit.entries]
    assert entries == [("kubectl", "create", "namespaces", None, "team", 201),
                       ("service-account-controller", "create", "serviceaccounts", "team", "default", 201)]
    assert store.get("serviceaccounts", "default", "team")["metadata"]["name"] == "default"


def test_a_deleted_default_service_account_comes_back() -> None:
    store = Store(seed=1)
    old = store.get("serviceaccounts", "default", "default")
    store.delete("serviceaccounts", "default", "default")
    again = store.get("serviceaccounts", "default", "default")
    assert again["metadata"]["uid"] != old["metadata"]["uid"]


def test_a_terminating_namespace_gets_none() -> None:
    store = Store(seed=1)
    store.create("namespaces", {"metadata": {"name": "team"}})
    store.delete("namespaces", "team")  # emptied (its account deleted too) and removed at once
    assert store.objects("serviceaccounts", "team") == []
    assert all(e.resource != "serviceaccounts" or e.verb != "create" or e.namespace != "team"
               for e in list(store.audit.entries)[2:])


def test_the_knob_turns_it_off_and_pods_then_need_an_account() -> None:
    store = Store(seed=1, service_accounts=False)
    assert store.count("serviceaccounts") == 0
    body = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "image": "b"}]}}
    try:
        store.create("pods", body, "default")
    except errors.Forbidden as exc:
        assert 'serviceaccount "default" not found' in exc.message
    else:
        raise AssertionError("a pod without its service account was admitted")


def test_under_simulation_the_controller_is_an_actor_in_virtual_time() -> None:
    sim = Simulation(seed=1)
    sim.store.create("namespaces", {"metadata": {"name": "team"}}, actor="user")
    assert sim.store.objects("serviceaccounts", "team") == []  # not inside the request
    sim.run()
    (account,) = sim.store.objects("serviceaccounts", "team")
    assert account["metadata"]["name"] == "default"
    assert sim.service_accounts is not None and sim.service_accounts.requests == 1
