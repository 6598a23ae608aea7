"""The RBAC bootstrap policy: the packaged data against upstream's testdata, and the aggregated roles."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from fakekube.cluster import Cluster, Timing
from fakekube.cluster.rbac import bootstrap_objects, policy_data
from fakekube.sim import Simulation
from fakekube.store import Store

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_ROLES = "clusterroles.rbac.authorization.k8s.io"
QUIET = Timing(lease_interval=None, node_status_interval=None)


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("generate_rbac_bootstrap", ROOT / "scripts" /
                                                  "generate_rbac_bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
SOURCE = GENERATOR.default_source()
needs_copy = pytest.mark.skipif(not (SOURCE / "cluster-roles.yaml").is_file(),
                                reason=f"no local copy of upstream's bootstrap policy testdata in {SOURCE}")


@needs_copy
def test_committed_data_is_the_generators_output_for_upstreams_testdata():
    committed = (ROOT / "fakekube" / "cluster" / "rbac_bootstrap.json").read_text()
    assert GENERATOR.render(GENERATOR.generate(SOURCE)) == committed


@needs_copy
def test_the_local_copy_is_the_recorded_upstream_blob():
    for name, source in policy_data()["sources"].items():
        assert hashlib.sha256((SOURCE / name).read_bytes()).hexdigest() == source["sha256"], name


def test_the_policy_has_the_roles_a_cluster_has():
    objects = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o for _, o in bootstrap_objects()}
    admin = objects[("ClusterRole", None, "cluster-admin")]
    assert admin["rules"] == [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                              {"nonResourceURLs": ["*"], "verbs": ["*"]}]
    assert admin["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults"}
    assert admin["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    binding = objects[("ClusterRoleBinding", None, "cluster-admin")]
    assert binding["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:masters"}]
    for name in ("admin", "edit", "view"):
        role = objects[("ClusterRole", None, name)]
        assert role["rules"] is None and role["aggregationRule"]["clusterRoleSelectors"] == [
            {"matchLabels": {f"rbac.authorization.k8s.io/aggregate-to-{name}": "true"}}]
    assert objects[("ClusterRole", None, "edit")]["metadata"]["labels"][
        "rbac.authorization.k8s.io/aggregate-to-admin"] == "true"
    assert ("Role", "kube-system", "system::leader-locking-kube-scheduler") in objects
    assert ("RoleBinding", "kube-public", "system:controller:bootstrap-signer") in objects
    # The controllers' roles are reconciled with the others (kubernetes v1.37.2 pkg/registry/rbac/rest/
    # storage_rbac.go); observed on kube-apiserver v1.37.2: 73 ClusterRoles, 54 ClusterRoleBindings.
    gc = objects[("ClusterRoleBinding", None, "system:controller:generic-garbage-collector")]
    assert gc["subjects"] == [{"kind": "ServiceAccount", "name": "generic-garbage-collector", "namespace": "kube-system"}]
    assert ("ClusterRole", None, "system:controller:generic-garbage-collector") in objects
    kinds = [o["kind"] for o in objects.values()]
    assert (kinds.count("ClusterRole"), kinds.count("ClusterRoleBinding")) == (73, 54)
    assert all(o["apiVersion"] == "rbac.authorization.k8s.io/v1" for o in objects.values())


def test_a_bare_store_has_no_policy_and_a_cluster_creates_it_once(kube: Store):
    assert kube.objects(CLUSTER_ROLES) == []  # the kube fixture stays cheap: bootstrap is a cluster's
    sim = Simulation(seed=1)
    Cluster(sim, nodes=0, controllers=(), timing=QUIET)
    roles = sim.store.objects(CLUSTER_ROLES)
    assert len(roles) == len(policy_data()["clusterRoles"])
    creates = [e for e in sim.audit if e.resource == "clusterroles" and e.verb == "create"]
    assert {e.actor for e in creates} == {"kube-apiserver"}
    Cluster(sim, nodes=0, controllers=(), timing=QUIET)  # a second start finds everything there
    assert len([e for e in sim.audit if e.resource == "clusterroles" and e.verb == "create"]) == len(creates)


def test_aggregation_fills_view_edit_and_admin_and_follows_new_roles():
    sim = Simulation(seed=1)
    Cluster(sim, nodes=0, controllers=("clusterrole-aggregation",), timing=QUIET)
    sim.run(until=5)
    view = sim.store.get(CLUSTER_ROLES, "view")
    assert view["rules"] == sim.store.get(CLUSTER_ROLES, "system:aggregate-to-view")["rules"]
    edit = sim.store.get(CLUSTER_ROLES, "edit")
    assert all(rule in edit["rules"] for rule in view["rules"])  # edit aggregates view
    admin = sim.store.get(CLUSTER_ROLES, "admin")
    assert all(rule in admin["rules"] for rule in edit["rules"])
    crd_rule = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get", "list", "watch"]}
    sim.store.create(CLUSTER_ROLES, {"metadata": {"name": "widgets-view", "labels": {
        "rbac.authorization.k8s.io/aggregate-to-view": "true"}}, "rules": [crd_rule]})
    sim.run(until=10)
    for name in ("view", "edit", "admin"):
        assert crd_rule in sim.store.get(CLUSTER_ROLES, name)["rules"], name
    applies = [e for e in sim.audit if e.resource == "clusterroles" and e.verb == "patch"]
    assert {e.actor for e in applies} == {"clusterrole-aggregation-controller"}
    assert {e.patch_type for e in applies} == {"application/apply-patch+yaml"}
    assert json.dumps(sim.store.get(CLUSTER_ROLES, "view")["rules"]).count("widgets") == 1


def test_leaving_the_service_account_controller_out_leaves_the_accounts_to_the_test():
    """As envtest: with ``serviceaccount`` not among the controllers, nobody creates ``default`` accounts."""
    sim = Simulation(seed=1)
    Cluster(sim, nodes=0, controllers=("deployment",), timing=QUIET)
    sim.store.create("namespaces", {"metadata": {"name": "team-b"}})
    sim.run(until=2)
    assert sim.store.objects("serviceaccounts", "team-b") == []


def test_every_namespace_gets_its_default_service_account():
    sim = Simulation(seed=1)
    Cluster(sim, nodes=0, controllers=("serviceaccount",), timing=QUIET)
    sim.store.create("namespaces", {"metadata": {"name": "team-a"}})
    sim.run(until=2)
    namespaces = [ns["metadata"]["name"] for ns in sim.store.objects("namespaces")]
    assert "team-a" in namespaces
    assert all(sim.store.get("serviceaccounts", "default", ns) for ns in namespaces)
    sim.store.delete("serviceaccounts", "default", "team-a")
    sim.run(until=4)
    assert sim.store.get("serviceaccounts", "default", "team-a")
    creators = {e.actor for e in sim.audit if e.resource == "serviceaccounts" and e.verb == "create" and e.ok}
    assert creators == {"service-account-controller"}
