"""``service-account-controller`` (kubernetes ``pkg/controller/serviceaccount/serviceaccounts_controller.go``):
every active namespace has a ``default`` ServiceAccount — created with the namespace, and again after someone
deletes it (``POST serviceaccounts``). A namespace being deleted gets none. A store that already creates the
account itself (per-kind strategies) leaves this controller nothing to do.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.sim.controller import Request

from .. import identity
from .common import KcmController

DEFAULT = "default"


class ServiceAccountsController(KcmController):
    identity = identity.controller("service-account-controller")
    workers = 1

    def __init__(self, runtime: Any, timing: Any) -> None:
        super().__init__(runtime, timing)
        self.controller.for_("namespaces")
        self.controller.watches("serviceaccounts", lambda sa: [Request(None, sa["metadata"].get("namespace", ""))]
                                if sa["metadata"]["name"] == DEFAULT else [])

    async def sync(self, req: Request) -> None:
        namespace = await self.writer.get("namespaces", req.name)
        if namespace is None or namespace["metadata"].get("deletionTimestamp"):
            return
        if await self.writer.get("serviceaccounts", DEFAULT, req.name) is not None:
            return
        body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": DEFAULT, "namespace": req.name}}
        # Created meanwhile, or the namespace started terminating: nothing to do.
        with contextlib.suppress(errors.AlreadyExists, errors.NotFound, errors.Forbidden):
            await self.writer.create("serviceaccounts", body, req.name)
