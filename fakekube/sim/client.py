"""The simulation client, modelled on controller-runtime's default client.

Reads (``get``, ``list``) come from the manager's informer cache and return copies; ``client.live`` reads
from the store instead (``mgr.GetAPIReader()``). ``copy=False`` hands out the cache's own objects instead
(controller-runtime's ``UnsafeDisableDeepCopy``): they are shared with the cache and every other reader, so
**do not mutate them** — copy the one you change. The store never mutates an object it has published in a
watch event, so a shared object is a stable snapshot: it does not change under the caller when the cache
moves on. Writes go to the store. Every write's answer replaces the
caller's object in place, as controller-runtime does, which is what makes "the object in memory is newer
than the cache" reproducible.

Timing of one API request (documented in docs/simulation.md):

1. wait for a token of the token bucket of the request's resource type (QPS/burst), if one is configured;
2. wait the request leg: the part of the round trip before the commit (``Manager.latency``: a round trip per
   verb and resource cut at ``commit_at``; or ``api_latency``), from the manager's seeded stream;
3. the store executes the request at that instant (its audit entry and watch events are stamped then);
4. the response leg: the rest of the round trip (or ``response_latency``, default 0) plus any fault-injected
   delay is awaited after the store answered (a slow response, not a slow commit) — so a watch event can
   reach a cache before the writer has its answer, as on a real cluster;
5. the answer is copied into the caller's object and returned.

A cache read costs ``cache_read_latency`` (default 0) but is always an await point, so work already due
(watch deliveries at the same instant) runs first.

Every write passes ``based_on``: the resourceVersion of the state the caller computed the write from (the
RV of the object as read or last written in place; a merge patch's base). The stale-overwrite detector uses it.
"""

from __future__ import annotations

import types
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.jsonvalues import json_copy

from .patches import Patch

if TYPE_CHECKING:
    from fakekube.resources import ResourceType

    from .informer import Informer
    from .manager import Manager

Obj = dict[str, Any]
# The client's calls are generator-based coroutines (``types.coroutine``): they hand the scheduler their delays
# themselves (``yield delay`` is ``await sleep(delay)``), so a request resumes through no extra frame of a
# sleep object, and ``await client.get(...)`` works as before. A cache read is two resumptions and one frame.
Call = Generator[Any, Any, Any]


def _replace(target: Obj, answer: Obj) -> Obj:
    """Copy the server's answer into the caller's object (``json.Unmarshal`` into the passed object)."""
    if target is not answer:
        target.clear()
        target.update(answer)
    return target


def _ns(rt: ResourceType, obj: Obj, namespace: str | None) -> str | None:
    if not rt.namespaced:
        return None
    return namespace or (obj.get("metadata") or {}).get("namespace") or None


class Client:
    """``get/list`` (cache), ``create/update/status_update/patch/status_patch/delete`` (store)."""

    def __init__(self, manager: Manager, actor: str, *, live: bool = False) -> None:
        self.manager = manager
        self.actor = actor
        self.store = manager.sim.store
        self._live = live
        self._live_client: Client | None = None
        self._informers: dict[str, Informer] = {}
        self._informers_generation = -1

    @property
    def live(self) -> Client:
        """The same API with reads that go to the store (APIReader); writes are the same as ours."""
        if self._live:
            return self
        if self._live_client is None:
            self._live_client = Client(self.manager, self.actor, live=True)
        return self._live_client

    @property
    def is_live(self) -> bool:
        """True for the API reader (``client.live``): its reads are API requests, not cache reads."""
        return self._live

    def cache(self, resource: str | ResourceType) -> Informer | None:
        """The informer this client's reads of ``resource`` come from; None for the API reader."""
        return None if self._live else self._informer(resource)

    @types.coroutine
    def cache_read(self, items: int = 1) -> Call:
        """Pay for one cache read without reading (an await point costing ``cache_read_latency``).

        For callers that answer a read from their own index over the cache (maintained from the informer's
        event handlers): the timing, and the seeded stream, stay those of the ``get``/``list`` it replaces.
        ``items`` is how many objects the replaced read would copy out of the cache (the CPU model's
        ``copy`` cost, when the manager has one).
        """
        manager = self.manager
        delay = manager.read_delay(items)
        if delay > 0 or not manager.scheduler.continue_now():
            yield delay

    def _rt(self, resource: str | ResourceType) -> ResourceType:
        return self.manager.sim.resolve(resource)

    def _informer(self, resource: str | ResourceType) -> Informer:
        # Cache reads are most of a simulation's calls: remember each resource name's informer (one dict
        # lookup) while the registry is unchanged, instead of resolving the name on every read.
        manager = self.manager
        generation = manager.sim.store.registry.generation
        if generation != self._informers_generation:
            self._informers.clear()
            self._informers_generation = generation
        informer = self._informers.get(resource)  # type: ignore[arg-type]
        if informer is None:
            informer = manager.informer(resource)
            if isinstance(resource, str):
                self._informers[resource] = informer
        return informer

    # -- reads ----------------------------------------------------------------------------------------

    @types.coroutine
    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
            copy: bool = True) -> Call:
        """Cached GET (NotFound if absent). ``copy=False``: the cache's shared object — read it only."""
        if not self._live:
            informer = self._informer(resource)
            manager = self.manager
            # With a CPU model, the DeepCopy out of the cache takes the worker's core that long. A read is
            # always an await point; at a quiet instant the scheduler lets it go on without suspending.
            delay = manager.read_delay()
            if delay > 0 or not manager.scheduler.continue_now():
                yield delay
            obj = informer.get(namespace, name) if copy else informer.get_raw(namespace, name)
            if obj is None:
                raise errors.NotFound(informer.rt.plural, informer.rt.group, name)
            return obj
        return (yield from self._do(self.store.get, self._rt(resource), name, namespace, actor=self.actor))

    @types.coroutine
    def list(self, resource: str | ResourceType, namespace: str | None = None,
             labels: dict[str, str] | str | None = None,
             fields: dict[str, str] | str | None = None, *, copy: bool = True) -> Call:
        """Cached LIST; ``fields`` may name an index (``mgr.index_field``), which then answers the query.

        ``copy=False`` returns the cache's shared objects (a fresh list, the items not copied): read them only.
        """
        if self._live:
            rt = self._rt(resource)
            label_selector = (",".join(f"{k}={v}" for k, v in labels.items()) if isinstance(labels, dict)
                              else labels)
            field_selector = (",".join(f"{k}={v}" for k, v in fields.items()) if isinstance(fields, dict)
                              else fields)
            answer = yield from self._do(self.store.list, rt, namespace, label_selector=label_selector or None,
                                         field_selector=field_selector or None, actor=self.actor)
            return answer["items"]
        informer = self._informer(resource)
        manager = self.manager
        delay = manager.cache_read_delay()
        if delay > 0 or not manager.scheduler.continue_now():
            yield delay
        if manager.cpu is not None:
            # The answer is the cache as the LIST found it; copying its items takes the process's CPU.
            found = informer.list_raw(namespace, labels, fields)
            yield manager.cpu_delay("copy", len(found))
            return [json_copy(o) for o in found] if copy else found
        if copy:
            return informer.list(namespace, labels, fields)
        return informer.list_raw(namespace, labels, fields)

    # -- writes ---------------------------------------------------------------------------------------

    @types.coroutine
    def create(self, resource: str | ResourceType, obj: Obj) -> Call:
        rt = self._rt(resource)
        answer = yield from self._do(self.store.create, rt, obj, _ns(rt, obj, None), actor=self.actor)
        return _replace(obj, answer)

    @types.coroutine
    def update(self, resource: str | ResourceType, obj: Obj, *, subresource: str | None = None) -> Call:
        rt = self._rt(resource)
        meta = obj.get("metadata") or {}
        based_on = meta.get("resourceVersion") or None
        answer = yield from self._do(self.store.update, rt, obj, _ns(rt, obj, None), subresource=subresource,
                                     actor=self.actor, based_on=str(based_on) if based_on else None)
        return _replace(obj, answer)

    def status_update(self, resource: str | ResourceType, obj: Obj) -> Call:
        """``Status().Update``: PUT .../status with the object's resourceVersion."""
        return self.update(resource, obj, subresource="status")  # lazy: nothing runs before it is awaited

    @types.coroutine
    def patch(self, resource: str | ResourceType, obj: Obj, patch: Patch, *,
              subresource: str | None = None) -> Call:
        rt = self._rt(resource)
        meta = obj.get("metadata") or {}
        body = patch.body(obj, rt.patch_schema)
        based_on = patch.based_on(obj)
        answer = yield from self._do(self.store.patch, rt, meta["name"], body, _ns(rt, obj, None),
                                     patch_type=patch.content_type, subresource=subresource, actor=self.actor,
                                     based_on=based_on, **patch.options())
        return _replace(obj, answer)

    def status_patch(self, resource: str | ResourceType, obj: Obj, patch: Patch) -> Call:
        """``Status().Patch``."""
        return self.patch(resource, obj, patch, subresource="status")  # lazy, as status_update

    @types.coroutine
    def delete(self, resource: str | ResourceType, obj_or_name: Obj | str, namespace: str | None = None,
               propagation_policy: str | None = None, *, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None) -> Call:
        rt = self._rt(resource)
        if isinstance(obj_or_name, dict):
            name = obj_or_name["metadata"]["name"]
            namespace = _ns(rt, obj_or_name, namespace)
        else:
            name = obj_or_name
        yield from self._do(self.store.delete, rt, name, namespace, propagation_policy=propagation_policy,
                            grace_period_seconds=grace_period_seconds, preconditions=preconditions,
                            actor=self.actor)

    # -- pods: exec and logs (fakekube.sim.podcalls) -----------------------------------------------------

    @types.coroutine
    def exec(self, name: str, command: list[str], namespace: str | None = None, *, container: str | None = None,
             stdin: bytes = b"") -> Call:
        """Run ``command`` in a pod's container (``get pods/exec``, audited); an ``ExecResult``. Its sleeps take
        the simulation's time; an API error (404, 400, the kubelet's 500) raises as any verb's does."""
        from .podcalls import exec_request, run_exec

        store = self.store

        def get(rt: ResourceType, name: str, namespace: str | None, *, subresource: str, actor: str) -> Any:
            return exec_request(store, rt, name, namespace or "", container, actor)

        pod, chosen = yield from self._do(get, "pods", name, namespace, subresource="exec", actor=self.actor)
        run = run_exec(store, pod, chosen, command, stdin)
        try:
            request = next(run)
            while True:
                # A wait for ever (``tail -f``, a server) would never end: an exec waits at most a day.
                yield request.seconds if request.seconds is not None else 86400.0
                request = run.send(None)
        except StopIteration as done:
            return done.value

    @types.coroutine
    def logs(self, name: str, namespace: str | None = None, *, container: str | None = None,
             previous: bool = False, tail_lines: int | None = None) -> Call:
        """A container's log as ``kubectl logs`` prints it (``get pods/log``, audited)."""
        from .podcalls import log_request

        store = self.store

        def get(rt: ResourceType, name: str, namespace: str | None, *, subresource: str, actor: str) -> Any:
            return log_request(store, rt, name, namespace or "", container, previous, tail_lines, actor)

        return (yield from self._do(get, "pods", name, namespace, subresource="log", actor=self.actor))

    # -- helpers --------------------------------------------------------------------------------------

    @types.coroutine
    def _do(self, call: Any, rt: ResourceType | str, *args: Any, **kwargs: Any) -> Call:
        """One API request: token bucket, the request leg, the store call (the commit), then the response leg.

        ``call`` is the store verb (``store.create``, ``store.patch``, ...): its name is the verb the request
        is timed as, with ``rt`` and the ``subresource`` keyword. A fault delay and the response leg are paid
        after the commit, errors included (a 409 also takes its time to come back).
        """
        manager = self.manager
        if isinstance(rt, str):
            rt = self._rt(rt)
        cpu = manager.cpu
        before, after = manager.request_timing(call.__name__, rt, kwargs.get("subresource"))
        if cpu is not None:
            before += cpu.run_held("encode")  # the running caller builds the body before it is sent
        yield before
        sim = manager.sim
        try:
            return call(rt, *args, **kwargs)
        finally:
            extra = manager.response_delay() if after is None else after
            if sim._fault_delay:
                extra, sim._fault_delay = extra + sim._fault_delay, 0.0
            if extra > 0:
                yield extra
            if cpu is not None:
                # The answer wakes the caller from the network poller: it queues for a core, then decodes.
                yield cpu.run("decode")

    def __repr__(self) -> str:
        return f"<Client {self.actor}{' live' if self._live else ''}>"
