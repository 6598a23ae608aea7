"""Unchanged client code in process (docs/in-process.md): ``mock_kubernetes`` routes the official client's
urllib3 requests, httpx clients' (kr8s, lightkube) and aiohttp clients' (kubernetes_asyncio, kopf)
into the HTTP front's sans-IO core, no socket."""

from fakekube.inprocess.mock import HOST, URL, Cluster, current_cluster, mock_kubernetes

__all__ = ["HOST", "URL", "Cluster", "current_cluster", "mock_kubernetes"]
