"""The store's side of admission webhooks (fakekube.webhooks): which objects a write's webhooks see, and the
store's lock let go while they are called.

Where they run, as in kube-apiserver (apiserver ``pkg/endpoints/handlers/{create,update,patch}.go`` and
``pkg/registry/generic/registry/store.go``, v0.37.2): mutating webhooks after the built-in mutating plugins
(the kinds' ``admit``) and before the registry's BeforeCreate/BeforeUpdate — so on a create they see no uid,
creationTimestamp or generated name —, validating webhooks after the kind's validation, before storage.

The lock: every request runs under the store's one lock (fakekube.requestcycle), and a webhook may take up to
30 s, so the outermost request lets the lock go for the HTTP calls and takes it back after; other clients go
on meanwhile, and a webhook may itself call the server. When it is back, the write looks again at what it
read: a create's name is checked for existence after admission anyway; an update whose object changed
meanwhile starts over from the new object — upstream's ``GuaranteedUpdate`` retries its update function,
admission included, when the object moved under it (a PUT with a stale resourceVersion then gets its 409).
Requests made while the lock is held more than once (a controller's write inside another request) call their
webhooks with the lock held.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from fakekube.admission.mutating import Reinvocation
from fakekube.audit import AuditEntry
from fakekube.audit.context import AuditRequest
from fakekube.identity import UserInfo
from fakekube.jsonvalues import json_copy
from fakekube.resources import ResourceType
from fakekube.uids import uuid4_text
from fakekube.webhooks import transport
from fakekube.webhooks.dispatch import Caller, Dispatcher, Rounds
from fakekube.webhooks.matching import Hook, Invocation, exempt, hooks_of
from fakekube.webhooks.review import Attributes

if TYPE_CHECKING:
    from fakekube.kinds.context import WriteContext

MUTATING = "admissionregistration.k8s.io/mutatingwebhookconfigurations"
VALIDATING = "admissionregistration.k8s.io/validatingwebhookconfigurations"
MAX_RETRIES = 10


class ObjectMoved(Exception):
    """The object an update was computed from changed while its webhooks ran: the update starts over."""


class WebhookVerbs:
    """Mixin of the Store: ``webhook_services`` (the Service map), ``webhook_caller`` (the HTTPS POST; tests may
    replace it) and the two admission steps the write verbs call."""

    def _init_webhooks(self, seed: Any) -> None:
        self.webhook_services = transport.ServiceMap()
        self.webhook_caller: Caller = transport.post
        self._webhook_rng = random.Random(f"{seed}/webhooks")
        self._webhook_rng_lock = threading.Lock()

    def set_webhook_service(self, namespace: str, name: str, address: str, port: int | None = None) -> None:
        """Calls to a webhook's ``service`` ``namespace/name`` (on ``port``, or any) go to ``address``
        (``host:port``); the TLS check still uses ``<name>.<namespace>.svc``."""
        self.webhook_services.set(namespace, name, address, port)

    def _uids(self) -> Iterator[str]:
        while True:
            with self._webhook_rng_lock:
                uid = uuid4_text(self._webhook_rng)
            yield uid

    def _hooks(self, storage: str) -> list[Hook]:
        configs = self._data.get(storage)  # type: ignore[attr-defined]
        if not configs:
            return []
        return hooks_of(json_copy(r.obj) for r in configs.values())

    @contextmanager
    def _unlocked(self) -> Iterator[None]:
        """Let the store's lock go for the duration, when this thread holds it once for one request."""
        lock = self._lock  # type: ignore[attr-defined]
        release = getattr(lock, "_release_save", None)
        if release is None or self._depth != 1 or self._collecting:  # type: ignore[attr-defined]
            yield
            return
        depth = self._depth  # type: ignore[attr-defined]
        self._depth = 0  # type: ignore[attr-defined]
        state = release()
        try:
            yield
        finally:
            lock._acquire_restore(state)
            self._depth = depth  # type: ignore[attr-defined]

    def _attributes(self, rt: ResourceType, operation: str, obj: dict[str, Any] | None, old: dict[str, Any] | None,
                    namespace: str | None, name: str, subresource: str | None, dry_run: bool,
                    entry: AuditEntry, ctx: WriteContext | None, field_manager: str | None = None) -> Attributes:
        options: dict[str, Any] = {"kind": {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions",
                                            "DELETE": "DeleteOptions"}.get(operation, "CreateOptions"),
                                   "apiVersion": "meta.k8s.io/v1"}
        if dry_run:
            options["dryRun"] = ["All"]
        if field_manager:
            options["fieldManager"] = field_manager
        return Attributes(operation, rt.group, rt.version, rt.plural, rt.kind, subresource or "",
                          (namespace or "") if rt.namespaced else "", name, obj, old, _request_user(entry, ctx),
                          dry_run=dry_run, options=options, namespaced=rt.namespaced)

    def _dispatcher(self, rt: ResourceType, attr: Attributes, hooks: list[Hook]) -> Dispatcher:
        registry = self.registry  # type: ignore[attr-defined]
        equivalents = [(rt.group, rt.version, rt.plural, rt.kind)] + [
            (t.group, t.version, t.plural, t.kind) for t in registry if t.storage == rt.storage and t is not rt
            and (t.group, t.version, t.plural) != (rt.group, rt.version, rt.plural)]

        def labels(namespace: str) -> dict[str, str] | None:
            ns = self.stored_object("/namespaces", ("", namespace))  # type: ignore[attr-defined]
            if ns is None:
                return None
            return dict((ns.get("metadata") or {}).get("labels") or {})

        def type_of(inv: Invocation) -> ResourceType:
            return registry.get(inv.group, inv.version, inv.resource) or rt

        def to_version(inv: Invocation, obj: Any) -> Any:
            if obj is None:
                return None
            copy = json_copy(obj)
            target = type_of(inv)
            if copy.get("apiVersion") == target.api_version:
                return copy
            if rt.to_storage is not None and copy.get("apiVersion") == rt.api_version:
                copy = rt.to_storage(copy)
            if target.from_storage is not None:
                return target.from_storage(copy)
            if target.conversion is not None:
                # A CRD converting by webhook: the equivalent version's object comes from its conversion webhook
                # (admission's ConvertToGVK goes through the CRD's converter).
                return self._webhook_converted(target, copy, target.api_version)  # type: ignore[attr-defined]
            copy["apiVersion"] = target.api_version
            return copy

        def from_version(inv: Invocation, obj: dict[str, Any]) -> dict[str, Any]:
            wanted = (attr.obj or {}).get("apiVersion")
            if obj.get("apiVersion") == wanted or wanted is None:
                return obj
            source = type_of(inv)
            if source.conversion is not None:
                return self._webhook_converted(source, obj, wanted)  # type: ignore[attr-defined]
            if source.to_storage is not None:
                obj = source.to_storage(obj)
            if obj.get("apiVersion") != wanted and rt.from_storage is not None:
                obj = rt.from_storage(obj)
            obj["apiVersion"] = wanted
            return obj

        storage = self.storage_type(rt.storage)  # type: ignore[attr-defined]
        return Dispatcher(attr, hooks, equivalents, labels, to_version, from_version, self.webhook_services,
                          self.webhook_caller, self._unlocked, self._uids(), storage.strategy.default)

    def _mutating_admission(self, rt: ResourceType, operation: str, obj: dict[str, Any] | None,
                            old: dict[str, Any] | None, namespace: str | None, subresource: str | None, dry_run: bool,
                            entry: AuditEntry, ctx: WriteContext | None, *, name: str = "") -> None:
        """MutatingAdmissionPolicy (fakekube.verbs.admission ``_policy_mutation``), then MutatingAdmissionWebhook
        (apiserver ``pkg/admission/plugins.go`` order): ``obj`` is patched in place. On a create they see the
        object before BeforeCreate stamps it (no uid, creationTimestamp); those come back whatever a patch did.
        When a mutation changed the object, the chain runs a second round (apiserver ``pkg/admission/
        reinvocation.go``): the policies and webhooks with ``reinvocationPolicy: IfNeeded`` that ran before a
        change run once more."""
        hooks = self._hooks(MUTATING)
        policies = self._mutating_policies_configured(rt)  # type: ignore[attr-defined]
        if not hooks and not policies:
            return
        meta = (obj.get("metadata") or {}) if obj is not None else {}
        stamped = {k: meta.pop(k) for k in ("uid", "creationTimestamp") if operation == "CREATE" and k in meta}
        state = Reinvocation()
        rounds = Rounds()
        user = ctx.user if ctx is not None else None
        attr = None
        try:
            if policies:
                self._policy_mutation(entry, operation, rt, obj, old, subresource, dry_run,  # type: ignore[attr-defined]
                                      user, state, name=name, namespace=namespace)
            dispatcher = None
            changed = False
            if hooks:
                attr = self._attributes(rt, operation, obj, old, namespace, str(meta.get("name") or name),
                                        subresource, dry_run, entry, ctx)
                if not exempt(attr):
                    dispatcher = self._dispatcher(rt, attr, hooks)
                    changed = dispatcher.mutate(rounds, 0)
            if changed or state.changed:  # the chain's second round (apiserver pkg/admission/reinvocation.go)
                if policies:
                    self._policy_mutation(entry, operation, rt, obj, old, subresource, dry_run,  # type: ignore[attr-defined]
                                          user, state, name=name, namespace=namespace, reinvoke=True)
                if dispatcher is not None:
                    dispatcher.mutate(rounds, 1)
        finally:
            if attr is not None:
                _finish(entry, attr)
            if stamped and obj is not None:
                obj.setdefault("metadata", {}).update(stamped)

    def _validating_webhooks(self, rt: ResourceType, operation: str, obj: dict[str, Any] | None,
                              old: dict[str, Any] | None, namespace: str | None, name: str, subresource: str | None,
                              dry_run: bool, entry: AuditEntry, ctx: WriteContext | None) -> None:
        """ValidatingAdmissionWebhook, after the kind's validation and before storage (the validating
        admission step of a write; ValidatingAdmissionPolicy runs at this point too)."""
        hooks = self._hooks(VALIDATING)
        if not hooks:
            return
        attr = self._attributes(rt, operation, obj, old, namespace, name, subresource, dry_run, entry, ctx)
        try:
            if not exempt(attr):
                self._dispatcher(rt, attr, hooks).validate()
        finally:
            _finish(entry, attr)

    def _webhooks_configured(self) -> bool:
        data = self._data  # type: ignore[attr-defined]
        return bool(data.get(MUTATING) or data.get(VALIDATING))

    def _check_not_moved(self, rt: ResourceType, key: Any, record: Any) -> None:
        """After webhooks ran without the lock: the update starts over if its object changed meanwhile."""
        if self._bucket(rt).get(key) is not record:  # type: ignore[attr-defined]
            raise ObjectMoved()


def _request_user(entry: AuditEntry, ctx: WriteContext | None) -> UserInfo:
    request = entry.request
    if request is not None and request.user:
        return UserInfo(request.user, request.uid, tuple(request.groups),
                        {k: tuple(v) for k, v in (request.extra or {}).items()})
    if ctx is not None and ctx.user is not None and ctx.user.name:
        return ctx.user
    return UserInfo(entry.actor)


def _finish(entry: AuditEntry, attr: Attributes) -> None:
    """The webhooks' warnings to the client, their annotations to the audit event."""
    for warning in attr.warnings:
        if warning not in entry.warnings:
            entry.warnings.append(warning)
    if attr.annotations:
        if entry.request is None:
            entry.request = AuditRequest()
        for key, value in attr.annotations.items():
            entry.request.annotations.setdefault(key, value)
