"""fakekube as the server under test: ``fakekube serve`` in-process with the oracle's controllers.

The oracle runs kube-controller-manager with the garbage collector, the namespace, service-account, token and
root-ca-cert-publisher controllers and no nodes (oracle/cmd/oracle/main.go); fakekube gets the same: its store
collects garbage and terminating namespaces and makes service accounts itself, the root-ca publisher runs as
an actor, and no kubelet, scheduler or workload controller acts. This module (not harness/) imports fakekube:
it is the code under test.
"""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fakekube.cluster.rbac import bootstrap_rbac
from fakekube.cluster.runner import ClusterRunner
from fakekube.rbac_authorizer import RBACAuthorizer
from fakekube.server.app import ApiServer
from fakekube.store import Store
from tests.differential.harness.client import Client

ADMIN_USER, ADMIN_GROUPS = "admin", ("system:masters",)  # the oracle's admin (oracle/cmd/oracle/certs.go)
ORACLE_CONTROLLERS = ("serviceaccount", "garbagecollector", "root-ca-cert-publisher")


@contextmanager
def running_fakekube(kubernetes_version: str | None = None) -> Iterator[Client]:
    """A served store with the oracle's controllers, RBAC and bootstrap policy, over TLS with the oracle's admin: a client certificate
    for ``admin`` in ``system:masters`` (oracle/cmd/oracle/certs.go), so who-am-I answers (SelfSubjectReview,
    a CSR's requester, the credential id) are compared too."""
    store = Store(kubernetes_version=kubernetes_version)
    # The oracle's apiserver runs --authorization-mode=Node,RBAC over its bootstrap policy.
    bootstrap_rbac(store)
    server = ApiServer(store, tls=True, authorizer=RBACAuthorizer(store)).start()
    runner = ClusterRunner(store, nodes=0, controllers=ORACLE_CONTROLLERS).start()
    client = Client(server.url, context=_admin_context(server))
    try:
        yield client
    finally:
        client.close()
        runner.stop()
        server.stop()


def _admin_context(server: ApiServer) -> ssl.SSLContext:
    certificates = server.certificates
    assert certificates is not None
    cert, key = certificates.issue_client(ADMIN_USER, ADMIN_GROUPS)
    context = ssl.create_default_context(cadata=certificates.ca_pem.decode())
    with tempfile.TemporaryDirectory(prefix="fakekube-diff-") as directory:
        # ssl reads a certificate chain only from files.
        cert_file, key_file = Path(directory) / "admin.crt", Path(directory) / "admin.key"
        cert_file.write_bytes(cert)
        key_file.write_bytes(key)
        context.load_cert_chain(cert_file, key_file)
    return context
