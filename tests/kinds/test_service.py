"""Services: ClusterIPs and NodePorts allocated from the store's ranges, kept across updates, released on delete,
validated with upstream's texts (kubernetes ``pkg/registry/core/service/storage/storage_test.go`` —
TestCreateInitClusterIPsFromClusterIP, TestServiceRegistryNodePortAllocation*, TestUpdateNodePorts*,
TestServiceRegistryDeleteDryRun — and ``pkg/apis/core/validation/validation_test.go`` TestValidateServiceCreate,
TestValidateServiceUpdate)."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store


def svc(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}], **spec}}


def _causes(err: errors.ApiError) -> list[str]:
    return [f"{c['field']}: {c['message']}" for c in err.status["details"]["causes"]]


def test_cluster_ips_come_from_the_upper_band_of_the_service_cidr(kube: Store) -> None:
    ips = [kube.create("services", svc(f"s{i}"), "default")["spec"]["clusterIP"] for i in range(20)]
    network = ipaddress.ip_network("10.96.0.0/12")
    for ip in ips:
        offset = int(ipaddress.ip_address(ip)) - int(network.network_address)
        assert ipaddress.ip_address(ip) in network and offset >= 256  # the static band is left alone
    assert len(set(ips)) == 20
    first = kube.get("services", "s0", "default")["spec"]
    assert first["clusterIPs"] == [first["clusterIP"]]


def test_allocation_is_deterministic_per_seed() -> None:
    def ips(seed: int) -> list[str]:
        store = Store(seed=seed)
        return [store.create("services", svc(f"s{i}"), "default")["spec"]["clusterIP"] for i in range(3)]

    assert ips(7) == ips(7)
    assert ips(7) != ips(8)


def test_a_requested_cluster_ip_is_taken_once(kube: Store) -> None:
    kube.create("services", svc("a", clusterIP="10.96.0.10"), "default")
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", svc("b", clusterIP="10.96.0.10"), "default")
    assert caught.value.message == ('Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: '
                                    "failed to allocate IP 10.96.0.10: provided IP is already allocated")
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", svc("c", clusterIP="192.168.1.1"), "default")
    assert _causes(caught.value) == [
        'spec.clusterIPs: Invalid value: ["192.168.1.1"]: failed to allocate IP 192.168.1.1: the provided IP '
        "(192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12"]


def test_delete_releases_and_a_failed_or_dry_run_create_takes_nothing(kube: Store) -> None:
    in_use = kube.allocators.cluster_ips.in_use
    kube.create("services", svc("a", clusterIP="10.96.0.10"), "default")
    assert in_use() == 1
    kube.delete("services", "a", "default")
    assert in_use() == 0
    kube.create("services", svc("dry", clusterIP="10.96.0.10"), "default", dry_run=True)
    with pytest.raises(errors.Invalid):
        kube.create("services", svc("bad", ports=[{"port": 0}]), "default")  # 422 after allocation
    with pytest.raises(errors.AlreadyExists):
        kube.create("services", svc("a2"), "default")
        kube.create("services", svc("a2"), "default")
    assert in_use() == 1  # only a2's
    assert kube.create("services", svc("again", clusterIP="10.96.0.10"), "default")["spec"]["clusterIP"] == "10.96.0.10"


def test_headless_and_external_name_services(kube: Store) -> None:
    headless = kube.create("services", svc("h", clusterIP="None"), "default")["spec"]
    assert (headless["clusterIPs"], headless["ipFamilyPolicy"], headless["ipFamilies"]) == (
        ["None"], "SingleStack", ["IPv4"])
    no_selector = kube.create("services", {"metadata": {"name": "hn"}, "spec": {"clusterIP": "None"}},
                              "default")["spec"]
    # Observed on kube-apiserver v1.37.2 (single-stack IPv4): a headless, selectorless service names both
    # families (kubernetes pkg/registry/core/service/storage/alloc.go initIPFamilyFields), a single-stack one
    # its own, and a family the cluster lacks is no error for it.
    assert (no_selector["ipFamilyPolicy"], no_selector["ipFamilies"]) == ("RequireDualStack", ["IPv4", "IPv6"])
    single = kube.create("services", {"metadata": {"name": "hs"}, "spec": {
        "clusterIP": "None", "ipFamilyPolicy": "SingleStack"}}, "default")["spec"]
    assert single["ipFamilies"] == ["IPv4"]
    six = kube.create("services", {"metadata": {"name": "h6"}, "spec": {
        "clusterIP": "None", "ipFamilies": ["IPv6"]}}, "default")["spec"]
    assert six["ipFamilies"] == ["IPv6", "IPv4"]
    external = kube.create("services", {"metadata": {"name": "ext"}, "spec": {
        "type": "ExternalName", "externalName": "example.com"}}, "default")["spec"]
    assert "clusterIP" not in external and "ipFamilies" not in external
    assert kube.allocators.cluster_ips.in_use() == 0


def test_node_ports_are_allocated_and_kept(kube: Store) -> None:
    created = kube.create("services", svc(type="NodePort", ports=[
        {"name": "http", "port": 80}, {"name": "https", "port": 443, "nodePort": 30443}]), "default")
    ports = created["spec"]["ports"]
    assert ports[1]["nodePort"] == 30443 and 30086 <= ports[0]["nodePort"] <= 32767
    # A PUT of the manifest as it was written (no clusterIP, no nodePorts) keeps what was allocated.
    body = svc(type="NodePort", ports=[{"name": "http", "port": 80}, {"name": "https", "port": 443}])
    body["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    updated = kube.update("services", body, "default")
    assert updated["spec"]["clusterIP"] == created["spec"]["clusterIP"]
    assert [p["nodePort"] for p in updated["spec"]["ports"]] == [p["nodePort"] for p in ports]
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", svc("other", type="NodePort", ports=[{"port": 80, "nodePort": 30443}]), "default")
    assert _causes(caught.value) == ["spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated"]
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", svc("low", type="NodePort", ports=[{"port": 80, "nodePort": 80}]), "default")
    assert _causes(caught.value) == ["spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid "
                                     "range. The range of valid ports is 30000-32767"]


def test_changing_the_type_releases_node_ports(kube: Store) -> None:
    live = kube.create("services", svc(type="NodePort"), "default")
    assert kube.allocators.node_ports.in_use() == 1
    live["spec"]["type"] = "ClusterIP"
    updated = kube.update("services", live, "default")
    assert "nodePort" not in updated["spec"]["ports"][0]
    assert kube.allocators.node_ports.in_use() == 0
    updated["spec"]["type"] = "LoadBalancer"
    lb = kube.update("services", updated, "default")["spec"]
    assert lb["allocateLoadBalancerNodePorts"] is True and lb["ports"][0]["nodePort"]
    assert lb["externalTrafficPolicy"] == "Cluster"


def test_the_cluster_ip_cannot_change(kube: Store) -> None:
    live = kube.create("services", svc(), "default")
    live["spec"]["clusterIP"] = "10.96.0.99"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("services", live, "default")
    assert _causes(caught.value) == ['spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set']


@pytest.mark.parametrize(("spec", "expected"), [
    ({"ports": []}, ["spec.ports: Required value"]),
    ({"ports": [{"port": 80}, {"port": 81}]}, ["spec.ports[0].name: Required value", "spec.ports[1].name: Required value"]),
    ({"ports": [{"name": "a", "port": 80}, {"name": "a", "port": 81}]}, ['spec.ports[1].name: Duplicate value: "a"']),
    # targetPort defaults to the port, so both are reported.
    ({"ports": [{"port": 70000}]}, ["spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                                    "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, "
                                    "inclusive"]),
    ({"ports": [{"port": 80, "nodePort": 30001}]},
     ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]),
    ({"type": "Bogus"}, ['spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", '
                         '"LoadBalancer", "NodePort"']),
    ({"selector": {"app": "bad value"}},
     ["spec.selector: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric "
      "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
])
def test_service_errors(kube: Store, spec: dict[str, Any], expected: list[str]) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", svc(**spec), "default")
    assert _causes(caught.value) == expected
    assert kube.allocators.cluster_ips.in_use() == 0


def test_external_name_needs_a_name(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", {"metadata": {"name": "e"}, "spec": {"type": "ExternalName"}}, "default")
    assert _causes(caught.value) == ["spec.externalName: Required value"]


def test_a_service_without_a_name_fails_its_ip_allocation_before_validation(kube: Store) -> None:
    # observed on kube-apiserver v1.37.2 (a null body): the allocator's IPAddress names the Service as its
    # parentRef (kubernetes pkg/registry/core/service/ipallocator/ipallocator.go createIPAddress)
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", {"metadata": {}, "spec": {}}, "default")
    [cause] = _causes(caught.value)
    assert cause.startswith('spec.clusterIPs: Invalid value: [""]: failed to allocate IP: IPAddress.networking.k8s.io "')
    assert cause.endswith('" is invalid: spec.parentRef.name: Required value')
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", {"metadata": {}, "spec": {"clusterIP": "10.96.0.77"}}, "default")
    assert _causes(caught.value) == ['spec.clusterIPs: Invalid value: ["10.96.0.77"]: failed to allocate IP 10.96.0.77: '
                                     'IPAddress.networking.k8s.io "10.96.0.77" is invalid: spec.parentRef.name: Required value']
    # nothing was held: the IP is free, and a headless Service without a name reaches validation
    assert kube.create("services", svc(clusterIP="10.96.0.77"), "default")["spec"]["clusterIP"] == "10.96.0.77"
    with pytest.raises(errors.Invalid) as caught:
        kube.create("services", {"metadata": {}, "spec": {"clusterIP": "None", "ports": [{"port": 80}]}}, "default")
    assert _causes(caught.value) == ["metadata.name: Required value: name or generateName is required"]
