"""``root-ca-cert-publisher`` (kubernetes ``pkg/controller/certificates/rootcacertpublisher/publisher.go``):
every namespace that is not terminating has a ConfigMap ``kube-root-ca.crt`` with the cluster's CA bundle under
``ca.crt`` and upstream's description annotation; a deleted or edited one is put back (``POST`` / ``PUT``).

The bundle is the served CA when the server speaks TLS (``fakekube serve --tls``, ``ca_pem=``); otherwise
there is no CA to publish and a fixed placeholder PEM block stands in (not a parseable certificate).
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.sim.controller import Request

from .. import identity
from .common import KcmController

Obj = dict[str, Any]
NAME = "kube-root-ca.crt"
DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
               "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
               "distributions of Kubernetes clusters.")
PLACEHOLDER_PEM = ("-----BEGIN CERTIFICATE-----\n"
                   "ZmFrZWt1YmUgaGFzIG5vIGNsdXN0ZXIgQ0E7IHNlcnZlIHdpdGggLS10bHMgZm9yIG9uZQ==\n"
                   "-----END CERTIFICATE-----\n")


class RootCAPublisher(KcmController):
    identity = identity.ROOT_CA
    workers = 1

    def __init__(self, runtime: Any, timing: Any, ca_pem: str | None = None) -> None:
        super().__init__(runtime, timing)
        self.ca_pem = ca_pem or PLACEHOLDER_PEM
        self.controller.for_("namespaces")
        self.controller.watches("configmaps", lambda cm: [Request(None, cm["metadata"].get("namespace", ""))]
                                if cm["metadata"]["name"] == NAME else [])

    async def sync(self, req: Request) -> None:
        ns = await self.writer.get("namespaces", req.name)
        if ns is None or ns["metadata"].get("deletionTimestamp"):
            return
        data = {"ca.crt": self.ca_pem}
        cm = await self.writer.get("configmaps", NAME, req.name)
        if cm is None:
            body = {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": NAME, "namespace": req.name,
                                 "annotations": {"kubernetes.io/description": DESCRIPTION}},
                    "data": data}
            # Created meanwhile, or the namespace went away or is terminating: nothing to do.
            with contextlib.suppress(errors.AlreadyExists, errors.NotFound, errors.Forbidden):
                await self.writer.create("configmaps", body, req.name)
            return
        if cm.get("data") == data and (cm["metadata"].get("annotations") or {}).get("kubernetes.io/description"):
            return
        updated = json_copy(cm)
        updated["data"] = data
        updated["metadata"].setdefault("annotations", {})["kubernetes.io/description"] = DESCRIPTION
        await self.writer.update("configmaps", updated)
