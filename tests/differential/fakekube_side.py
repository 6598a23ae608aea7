"""fakekube as the server under test: ``fakekube serve`` in-process with the oracle's controllers.

The oracle runs kube-controller-manager with the garbage collector, the namespace, service-account, token and
root-ca-cert-publisher controllers and no nodes (oracle/cmd/oracle/main.go); fakekube gets the same: its store
collects garbage and terminating namespaces and makes service accounts itself, the root-ca publisher runs as
an actor, and no kubelet, scheduler or workload controller acts. This module (not harness/) imports fakekube:
it is the code under test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fakekube.cluster.runner import ClusterRunner
from fakekube.server.app import ApiServer
from fakekube.store import Store
from tests.differential.harness.client import Client

ORACLE_CONTROLLERS = ("serviceaccount", "garbagecollector", "root-ca-cert-publisher")


@contextmanager
def running_fakekube(kubernetes_version: str | None = None) -> Iterator[Client]:
    """A served store with the oracle's controllers; plain HTTP (TLS would only slow the replay: the CA it
    would publish in kube-root-ca.crt is masked in the comparison anyway)."""
    store = Store(kubernetes_version=kubernetes_version)
    server = ApiServer(store).start()
    runner = ClusterRunner(store, nodes=0, controllers=ORACLE_CONTROLLERS).start()
    client = Client(server.url)
    try:
        yield client
    finally:
        client.close()
        runner.stop()
        server.stop()
