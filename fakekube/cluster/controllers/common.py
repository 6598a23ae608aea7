"""What kube-controller-manager's controllers share: one manager (shared informers), per-controller clients,
expectations, and ``ControllerRefManager``'s adoption and release (``pkg/controller/controller_ref_manager.go``).

Adoption is a strategic merge patch that adds the owner's controller reference and carries the object's
uid (``ownerRefControllerPatch``); release patches the reference away with ``$patch: delete``. An owner that
is being deleted adopts nothing; an object being deleted is not adopted.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors
from fakekube.sim.controller import Controller, Request
from fakekube.sim.informer import InformerHandler

from ..actor import Actor, Writer
from ..expectations import Expectations
from ..identity import Identity
from ..objects import controller_ref, is_terminating, matches, owner_reference, selector_of
from ..timing import Timing

Obj = dict[str, Any]

KCM_MANAGER = "kube-controller-manager"


def kcm_manager(runtime: Any, timing: Timing) -> Any:
    """kube-controller-manager's one manager: every controller shares its informer caches."""
    existing = runtime.managers.get(KCM_MANAGER)
    if existing is not None:
        return existing
    return runtime.manager(KCM_MANAGER, cache_lag=timing.watch_lag, api_latency=timing.api_latency)


class KcmController(Actor):
    """One of kube-controller-manager's controllers: its identity, writer, recorder and workqueue."""

    identity: Identity
    workers = 5

    def __init__(self, runtime: Any, timing: Timing) -> None:
        self.name = self.identity.actor
        super().__init__(runtime, timing)
        self.manager = kcm_manager(runtime, timing)
        self.writer = Writer(runtime, self.manager, self.identity)
        self.recorder = self.manager.event_recorder(self.identity.actor, api="core")
        self.expectations = Expectations(lambda: runtime.now)
        self.controller: Controller = self.manager.controller(self.identity.actor, self.sync, workers=self.workers)

    async def sync(self, req: Request) -> Any:
        raise NotImplementedError

    def enqueue(self, req: Request, after: float = 0.0) -> None:
        self.controller.enqueue(req, after=after)

    def observe_pods(self, owner_kind: str, owner_group: str) -> None:
        """Count pod adds and deletes down against the owner's expectations (``addPod`` / ``deletePod``)."""
        self.observe(self.manager.informer("pods"), owner_kind, owner_group)

    def observe(self, informer: Any, owner_kind: str, owner_group: str) -> None:
        def key(obj: Obj) -> Request | None:
            ref = controller_ref(obj)
            if ref is None or ref.get("kind") != owner_kind or ref.get("apiVersion", "").rpartition("/")[0] != owner_group:
                return None
            return Request(obj["metadata"].get("namespace") or None, ref.get("name", ""))

        def on_add(obj: Obj, initial: bool) -> None:
            req = key(obj)
            if req is not None and not initial:
                if is_terminating(obj):
                    self.expectations.deletion_observed(req)
                else:
                    self.expectations.creation_observed(req)

        def on_update(old: Obj, new: Obj) -> None:
            if is_terminating(new) and not is_terminating(old):
                req = key(new)
                if req is not None:
                    self.expectations.deletion_observed(req)

        def on_delete(obj: Obj) -> None:
            req = key(obj)
            if req is not None and not is_terminating(obj):
                self.expectations.deletion_observed(req)

        informer.add_handler(InformerHandler(on_add, on_update, on_delete))

    async def delete_pods(self, owner: Obj, req: Request, pods: list[Obj]) -> tuple[list[Obj], errors.ApiError | None]:
        """``podControl.DeletePod`` for each pod, with a SuccessfulDelete event: (the pods gone — a pod already
        gone counts —, the last other failure). The caller has raised the expectations; a delete that will
        never be observed is counted down here."""
        deleted: list[Obj] = []
        failure: errors.ApiError | None = None
        for pod in pods:
            meta = pod["metadata"]
            try:
                await self.writer.delete("pods", meta["name"], meta.get("namespace"))
                self.recorder.event(owner, "Normal", "SuccessfulDelete", f"Deleted pod: {meta['name']}")
                deleted.append(pod)
            except errors.NotFound:
                self.expectations.deletion_observed(req)
                deleted.append(pod)
            except errors.ApiError as exc:
                self.expectations.deletion_observed(req)
                failure = exc
        return deleted, failure

    # -- ControllerRefManager -----------------------------------------------------------------------------

    async def claim(self, owner: Obj, resource: str, candidates: list[Obj]) -> list[Obj]:
        """The objects ``owner`` controls after adopting matching orphans and releasing non-matching ones."""
        selector = selector_of(owner)
        owner_uid = owner["metadata"]["uid"]
        claimed = []
        for obj in candidates:
            ref = controller_ref(obj)
            if ref is not None:
                if ref.get("uid") != owner_uid:
                    continue
                if matches(selector, obj) or is_terminating(owner):
                    claimed.append(obj)
                    continue
                await self._release(resource, obj, owner_uid)
                continue
            if is_terminating(owner) or is_terminating(obj) or not matches(selector, obj):
                continue
            adopted = await self._adopt(resource, obj, owner)
            if adopted is not None:
                claimed.append(adopted)
        return claimed

    async def _adopt(self, resource: str, obj: Obj, owner: Obj) -> Obj | None:
        meta = obj["metadata"]
        body = {"metadata": {"ownerReferences": [owner_reference(owner)], "uid": meta["uid"]}}
        try:
            return await self.writer.patch(resource, meta["name"], meta.get("namespace"), body,
                                           based_on=meta.get("resourceVersion"))
        except (errors.NotFound, errors.Conflict, errors.Invalid):
            return None

    async def _release(self, resource: str, obj: Obj, owner_uid: str) -> None:
        meta = obj["metadata"]
        body = {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": meta["uid"]}}
        with contextlib.suppress(errors.NotFound, errors.Conflict, errors.Invalid):
            await self.writer.patch(resource, meta["name"], meta.get("namespace"), body,
                                    based_on=meta.get("resourceVersion"))


def owned_requests(obj: Obj, kind: str, group: str) -> list[Request]:
    """The owner key of an object's controller reference, when it is a ``kind`` of ``group``."""
    ref = controller_ref(obj)
    if ref is None or ref.get("kind") != kind or ref.get("apiVersion", "").rpartition("/")[0] != group:
        return []
    return [Request(obj["metadata"].get("namespace") or None, ref.get("name", ""))]
