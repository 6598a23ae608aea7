"""The HTTP front of fakekube: serve a ``Store`` on loopback so unmodified clients (kubectl, kubernetes,
kubernetes_asyncio, kr8s, lightkube, kopf) can talk to it. An adapter only: every verb is the store's.

    from fakekube.server import ApiServer

    with ApiServer(store) as server:          # ephemeral port on 127.0.0.1, background thread
        server.write_kubeconfig("kubeconfig")
        ...                                    # point clients at server.url

The pytest fixtures live in :mod:`fakekube.server.fixtures`; ``fakekube serve`` in :mod:`fakekube.server.cli`.
"""

from __future__ import annotations

from fakekube.server.app import ApiServer
from fakekube.server.auth import RequestAttributes
from fakekube.server.kubeconfig import kubeconfig_dict, write_kubeconfig

__all__ = ["ApiServer", "RequestAttributes", "kubeconfig_dict", "write_kubeconfig"]
