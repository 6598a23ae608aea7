"""The Endpoints and EndpointSlice controllers in virtual time, on pods whose status the test writes."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.cluster import Cluster, Timing
from fakekube.sim import Simulation

SLICES = "endpointslices.discovery.k8s.io"
QUIET = Timing(lease_interval=None, node_status_interval=None)


@pytest.fixture
def sim() -> Simulation:
    sim = Simulation(seed=1)
    Cluster(sim, nodes=0, controllers=("endpoint", "endpointslice", "garbagecollector"), timing=QUIET)
    return sim


def pod(sim: Simulation, name: str, ip: str, *, ready: bool = True, labels: dict[str, str] | None = None,
        ports: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    body = {"metadata": {"name": name, "labels": labels or {"app": "web"}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "x", "ports": ports or [
                {"name": "http", "containerPort": 8080}]}], **spec}}
    created = sim.store.create("pods", body, "default")
    status = {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
              "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    return sim.store.update("pods", {**created, "status": status}, "default", subresource="status")


def service(sim: Simulation, name: str = "web", **spec: Any) -> dict[str, Any]:
    body = {"metadata": {"name": name, "labels": {"team": "a"}},
            "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
                     **spec}}
    return sim.store.create("services", body, "default")


def slices(sim: Simulation, name: str = "web") -> list[dict[str, Any]]:
    return [s for s in sim.store.objects(SLICES, "default")
            if s["metadata"]["labels"].get("kubernetes.io/service-name") == name]


def conditions(sim: Simulation) -> dict[str, dict[str, bool]]:
    return {ep["targetRef"]["name"]: ep["conditions"] for s in slices(sim) for ep in s["endpoints"] or ()}


def test_ready_and_not_ready_pods(sim: Simulation):
    pod(sim, "a", "10.0.0.1")
    pod(sim, "b", "10.0.0.2", ready=False)
    pod(sim, "other", "10.0.0.9", labels={"app": "db"})
    sim.store.create("pods", {"metadata": {"name": "no-ip", "labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    service(sim)
    sim.run(until=5)
    endpoints = sim.store.get("endpoints", "web", "default")
    [subset] = endpoints["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == ["10.0.0.1"]
    assert [a["ip"] for a in subset["notReadyAddresses"]] == ["10.0.0.2"]
    assert subset["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert subset["addresses"][0]["targetRef"]["name"] == "a" and subset["addresses"][0]["nodeName"] == "node-1"
    assert endpoints["metadata"]["labels"] == {"team": "a"}
    [slc] = slices(sim)
    assert slc["metadata"]["labels"] == {"team": "a", "kubernetes.io/service-name": "web",
                                         "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}
    assert slc["metadata"]["generateName"] == "web-" and slc["metadata"]["ownerReferences"][0]["kind"] == "Service"
    assert slc["addressType"] == "IPv4" and slc["ports"] == [{"name": "http", "protocol": "TCP", "port": 8080}]
    assert conditions(sim) == {"a": {"ready": True, "serving": True, "terminating": False},
                               "b": {"ready": False, "serving": False, "terminating": False}}
    writers = {(e.actor, e.verb, e.resource) for e in sim.audit if e.is_write and e.ok and e.namespace == "default"
               and e.resource in ("endpoints", "endpointslices") and e.name != "kubernetes"}
    assert writers == {("endpoint-controller", "create", "endpoints"),
                       ("endpointslice-controller", "create", "endpointslices")}


def test_readiness_changes_and_terminating_pods(sim: Simulation):
    a = pod(sim, "a", "10.0.0.1", ready=False, terminationGracePeriodSeconds=30)
    service(sim)
    sim.run(until=5)
    a["status"]["conditions"][0]["status"] = "True"
    sim.store.update("pods", a, "default", subresource="status")
    sim.run(until=10)
    assert sim.store.get("endpoints", "web", "default")["subsets"][0]["addresses"][0]["ip"] == "10.0.0.1"
    sim.store.delete("pods", "a", "default")  # graceful: nobody finishes it, it stays terminating
    sim.run(until=15)
    # Slices keep a terminating pod (serving while it is ready); Endpoints drop it.
    assert conditions(sim) == {"a": {"ready": False, "serving": True, "terminating": True}}
    assert "subsets" not in sim.store.get("endpoints", "web", "default")
    updates = [e for e in sim.audit if e.resource == "endpoints" and e.verb == "update"]
    assert len(updates) == 2 and all(e.actor == "endpoint-controller" for e in updates)


def test_named_target_ports_resolve_per_pod(sim: Simulation):
    pod(sim, "old", "10.0.0.1", ports=[{"name": "http", "containerPort": 8080}])
    pod(sim, "new", "10.0.0.2", ports=[{"name": "http", "containerPort": 9090}])
    pod(sim, "bare", "10.0.0.3", ports=[{"name": "metrics", "containerPort": 9100}])
    service(sim)
    sim.run(until=5)
    by_port = {tuple(p["port"] for p in s["ports"]): [ep["addresses"][0] for ep in s["endpoints"]]
               for s in slices(sim)}
    # A pod without the named port lands in a slice without ports (getEndpointPorts found none).
    assert by_port == {(8080,): ["10.0.0.1"], (9090,): ["10.0.0.2"], (): ["10.0.0.3"]}
    subsets = sim.store.get("endpoints", "web", "default")["subsets"]  # Endpoints leave that pod out
    assert [(s["ports"][0]["port"], [a["ip"] for a in s["addresses"]]) for s in subsets] == [
        (8080, ["10.0.0.1"]), (9090, ["10.0.0.2"])]


def test_at_most_100_endpoints_per_slice(sim: Simulation):
    for i in range(150):
        pod(sim, f"p{i:03}", f"10.0.{i // 250}.{i % 250 + 1}")
    service(sim)
    sim.run(until=5)
    assert sorted(len(s["endpoints"]) for s in slices(sim)) == [50, 100]
    sim.store.delete("pods", "p000", "default", grace_period_seconds=0)
    sim.run(until=10)
    assert sorted(len(s["endpoints"]) for s in slices(sim)) == [50, 99]  # removed in place, no reshuffle
    assert len([e for e in sim.audit if e.resource == "endpointslices" and e.verb == "create"
                and e.namespace == "default" and e.actor == "endpointslice-controller"]) == 2


def test_a_service_selecting_nothing_gets_a_placeholder_slice_then_its_endpoints(sim: Simulation):
    service(sim)
    sim.run(until=5)
    [placeholder] = slices(sim)
    assert placeholder["endpoints"] is None and placeholder["ports"] is None
    assert "subsets" not in sim.store.get("endpoints", "web", "default")
    pod(sim, "a", "10.0.0.1")
    sim.run(until=10)
    [slc] = slices(sim)
    assert slc["metadata"]["name"] == placeholder["metadata"]["name"]  # reused, not replaced
    assert [ep["addresses"] for ep in slc["endpoints"]] == [["10.0.0.1"]]


def test_headless_and_selectorless_services(sim: Simulation):
    pod(sim, "a", "10.0.0.1", hostname="a", subdomain="db")
    service(sim, "db", clusterIP="None")
    sim.store.create("services", {"metadata": {"name": "external"}, "spec": {"ports": [{"port": 80}]}}, "default")
    sim.run(until=5)
    [slc] = slices(sim, "db")
    assert slc["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
    assert slc["endpoints"][0]["hostname"] == "a"
    assert sim.store.get("endpoints", "db", "default")["subsets"][0]["addresses"][0]["hostname"] == "a"
    assert slices(sim, "external") == []
    with pytest.raises(Exception, match="not found"):
        sim.store.get("endpoints", "external", "default")


def test_deleting_the_service_removes_its_endpoints_and_slices(sim: Simulation):
    pod(sim, "a", "10.0.0.1")
    service(sim)
    sim.run(until=5)
    sim.store.delete("services", "web", "default")
    sim.run(until=10)
    assert slices(sim) == []
    with pytest.raises(Exception, match="not found"):
        sim.store.get("endpoints", "web", "default")
