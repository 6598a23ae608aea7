"""A simulation's actors exec into pods and read their logs in virtual time, and the audit log records both."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.cluster import Cluster, Timing
from fakekube.sim import Simulation


def cluster_with_pod() -> tuple[Simulation, Any]:
    sim = Simulation(seed=1)
    Cluster(sim, nodes=1, timing=Timing(lease_interval=None, node_status_interval=None))
    sim.store.create("pods", {"metadata": {"name": "db"}, "spec": {"containers": [
        {"name": "main", "image": "busybox", "command": ["sh", "-c", "echo ready; sleep 3600"]}]}}, "default")
    sim.run(until=2)
    return sim, sim.manager("operator").client("backup-operator")


def test_exec_and_logs_take_virtual_time_and_are_audited() -> None:
    sim, client = cluster_with_pod()
    seen: dict[str, Any] = {}

    async def operator() -> None:
        seen["log"] = await client.logs("db", "default")
        started = sim.now
        seen["exec"] = await client.exec("db", ["sh", "-c", "echo dumping; sleep 30; echo done >&2; exit 4"],
                                         "default")
        seen["took"] = sim.now - started

    sim.spawn(operator(), "operator")
    sim.run(until=100)
    assert seen["log"] == "ready\n"
    result = seen["exec"]
    assert (result.code, result.stdout, result.stderr) == (4, b"dumping\n", b"done\n")
    assert seen["took"] == pytest.approx(30, abs=0.5)  # the exec's sleep, in virtual seconds
    calls = [(e.actor, e.verb, e.resource, e.subresource, e.name, e.code) for e in sim.store.audit.entries
             if e.actor == "backup-operator"]
    assert calls == [("backup-operator", "get", "pods", "log", "db", 200),
                     ("backup-operator", "get", "pods", "exec", "db", 200)]


def test_refusals_are_api_errors_and_audited() -> None:
    sim, client = cluster_with_pod()
    raised: list[Any] = []

    async def operator() -> None:
        for call in (client.exec("nope", ["true"], "default"),
                     client.exec("db", ["true"], "default", container="sidecar"),
                     client.logs("db", "default", previous=True)):
            try:
                await call
            except errors.ApiError as exc:
                raised.append((exc.code, exc.message))

    sim.spawn(operator(), "operator")
    sim.run(until=10)
    assert raised == [(404, 'pods "nope" not found'), (400, "container sidecar is not valid for pod db"),
                      (400, 'previous terminated container "main" in pod "db" not found')]
    codes = [e.code for e in sim.store.audit.entries if e.actor == "backup-operator"]
    assert codes == [404, 400, 400]
