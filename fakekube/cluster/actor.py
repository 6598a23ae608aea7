"""What every actor of the cluster is made of: a runtime, a manager (its informer caches), an identity.

An actor is written once against the runtime's API (``fakekube.sim``: managers, informers, controllers,
the client's request timing) and runs on either clock: ``runtime`` is a ``Simulation`` (virtual time) or a
``RealTimeRuntime`` (wall time). Its writes are the store's ordinary verbs, made with the identity's audit
actor and field manager, and timed like any client's (token bucket, latency, fault delays).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.clock import rfc3339
from fakekube.patch import STRATEGIC_MERGE_PATCH

from .identity import Identity
from .timing import Timing

if TYPE_CHECKING:
    from fakekube.sim.client import Client
    from fakekube.sim.manager import Manager

Obj = dict[str, Any]


class Writer:
    """One identity's requests: reads from its manager's caches, writes through the store's verbs."""

    def __init__(self, runtime: Any, manager: Manager, identity: Identity) -> None:
        self.runtime = runtime
        self.identity = identity
        self.client: Client = manager.client(identity.actor)
        self.store = runtime.store

    @property
    def actor(self) -> str:
        return self.identity.actor

    async def _call(self, verb: Any, *args: Any, **kwargs: Any) -> Any:
        # The runtime client's request path: its token bucket and latency, then the store call, then the
        # response leg (fault delays included), exactly as the client's own verbs pay them.
        return await self.client._do(verb, *args, actor=self.identity.actor, **kwargs)

    # -- reads (the manager's caches) --------------------------------------------------------------------

    async def get(self, resource: str, name: str, namespace: str | None = None) -> Obj | None:
        """The cached object, read-only (shared with the cache), or None."""
        try:
            return await self.client.get(resource, name, namespace, copy=False)
        except errors.NotFound:
            return None

    async def list(self, resource: str, namespace: str | None = None, labels: Any = None) -> list[Obj]:
        """Cached objects, read-only (shared with the cache)."""
        return await self.client.list(resource, namespace, labels, copy=False)

    async def live_get(self, resource: str, name: str, namespace: str | None = None) -> Obj:
        """A GET from the API server (a quorum read), for the few places upstream does one."""
        return await self._call(self.store.get, resource, name, namespace)

    # -- writes ------------------------------------------------------------------------------------------

    async def create(self, resource: str, body: Obj, namespace: str | None = None) -> Obj:
        ns = namespace or (body.get("metadata") or {}).get("namespace")
        return await self._call(self.store.create, resource, body, ns, field_manager=self.identity.field_manager)

    async def update(self, resource: str, body: Obj, *, subresource: str | None = None) -> Obj:
        meta = body["metadata"]
        return await self._call(self.store.update, resource, body, meta.get("namespace"), name=meta["name"],
                                subresource=subresource, field_manager=self.identity.field_manager,
                                based_on=meta.get("resourceVersion") or None)

    async def patch(self, resource: str, name: str, namespace: str | None, body: Any, *,
                    patch_type: str = STRATEGIC_MERGE_PATCH, subresource: str | None = None,
                    based_on: str | None = None, force: bool | None = None) -> Obj:
        extra = {"force": force} if force is not None else {}  # server-side apply's force
        return await self._call(self.store.patch, resource, name, body, namespace, patch_type=patch_type,
                                subresource=subresource, field_manager=self.identity.field_manager,
                                based_on=based_on, **extra)

    async def delete(self, resource: str, name: str, namespace: str | None = None, *,
                     grace_period_seconds: int | None = None, preconditions: dict[str, str] | None = None,
                     propagation_policy: str | None = None) -> Any:
        return await self._call(self.store.delete, resource, name, namespace,
                                grace_period_seconds=grace_period_seconds, preconditions=preconditions,
                                propagation_policy=propagation_policy)

    async def bind(self, name: str, namespace: str | None, body: Obj) -> Obj:
        store = self.store

        def create(_rt: Any, name: str, body: Obj, namespace: str | None, *, subresource: str,
                   actor: str) -> Obj:
            # POST pods/<name>/binding is timed as the create of a pods subresource.
            return store.bind(name, body, namespace, actor=actor)

        return await self._call(create, "pods", name, body, namespace, subresource="binding")


class Actor:
    """Base of the cluster's components: ``runtime``, ``timing``, a seeded stream, ``now()`` on the store clock."""

    name = "actor"

    def __init__(self, runtime: Any, timing: Timing) -> None:
        self.runtime = runtime
        self.timing = timing
        self.rng = runtime.rng("cluster", self.name)

    def now(self) -> Any:
        return self.runtime.clock.now()

    def timestamp(self) -> str:
        return rfc3339(self.now())

    def spawn(self, coro: Any, name: str) -> Any:
        return self.runtime.scheduler.spawn(coro, name)

    def sample(self, lag: Any) -> float:
        return lag.sample(self.rng)
