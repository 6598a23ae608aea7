"""The validating admission step of the write path: ValidatingAdmissionPolicy (fakekube.admission.policy).

kube-apiserver runs validating admission after the registry's BeforeCreate/BeforeUpdate validation and before
storage (k8s.io/apiserver ``pkg/registry/generic/registry/store.go``: ``createValidation`` /
``updateValidation`` / ``deleteValidation``, v0.37.2): the verbs call ``_validating_admission`` at that point.
Validating webhooks run in the same step, after the policies (``pkg/admission/plugins.go`` order).
MutatingAdmissionPolicy (fakekube.admission.mutating) runs in the mutating step, before the mutating
webhooks: ``_policy_mutation``, which fakekube.verbs.webhook_admission's ``_mutating_admission`` calls.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.admission import mutating, policy
from fakekube.admission.attributes import Attributes
from fakekube.admission.matching import GVR
from fakekube.audit import AuditEntry
from fakekube.audit.context import AuditRequest
from fakekube.identity import ANONYMOUS, UserInfo
from fakekube.jsonvalues import json_copy
from fakekube.resources import ResourceType

_GROUP = "admissionregistration.k8s.io"


class _View:
    """The store as the policy dispatcher reads it (fakekube.admission.policy.PolicyView)."""

    KIND = "validatingadmissionpolicies"

    def __init__(self, store: Any, rt: ResourceType) -> None:
        self.store = store
        self.rt = rt

    def _objects(self, plural: str) -> list[dict[str, Any]]:
        rt = self.store.registry.get(_GROUP, "v1", plural)
        return [] if rt is None else self.store._list_stored(rt.storage, None)

    def policies(self) -> list[dict[str, Any]]:
        return self._objects(self.KIND)

    def bindings(self) -> list[dict[str, Any]]:
        return self._objects(self.KIND[:-3] + "ybindings")

    def namespace(self, name: str) -> dict[str, Any] | None:
        rt = self.store.registry.get("", "v1", "namespaces")
        return self.store._read_stored(rt.storage, "", name)

    def equivalents(self, a: Attributes) -> list[GVR]:
        return [(t.group, t.version, t.plural) for t in self.store.registry if t.storage == self.rt.storage]

    def kind_for(self, gvr: GVR) -> str:
        rt = self.store.registry.get(*gvr)
        return rt.kind if rt is not None else self.rt.kind

    def _param_type(self, api_version: str, kind: str) -> ResourceType | None:
        try:
            return self.store.registry.for_kind(api_version, kind)
        except errors.NotFound:
            return None

    def param_kind(self, api_version: str, kind: str) -> bool | None:
        rt = self._param_type(api_version, kind)
        return None if rt is None else rt.namespaced

    def authorizer(self) -> Any:
        return self.store.authorizer

    def params(self, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        rt = self._param_type(api_version, kind)
        if rt is None:
            return []
        return self.store._list_stored(rt.storage, namespace if rt.namespaced else None)


def _user(entry: AuditEntry, user: UserInfo | None) -> UserInfo:
    """Who asks: the front's authenticated user, else the in-process caller's ``actor`` name."""
    if user is not None and (user != ANONYMOUS or entry.request is not None):
        return user
    request = entry.request
    if request is not None and request.user:
        return UserInfo(request.user, request.uid, tuple(request.groups),
                        {k: tuple(v) for k, v in request.extra.items()})
    return UserInfo(entry.actor)


def _shown(store: Any, rt: ResourceType, obj: dict[str, Any] | None,
           kind_gv: tuple[str, str] | None) -> dict[str, Any] | None:
    """The object in the request's version (a copy: the stored one is not touched)."""
    if obj is None or kind_gv is not None:
        return obj
    return store._convert_out(rt, dict(obj))


class _MutatingView(_View):
    KIND = "mutatingadmissionpolicies"


class AdmissionVerbs:
    """Mixin of fakekube.store.Store."""

    def _mutating_policies_configured(self, rt: ResourceType) -> bool:
        return bool(_MutatingView(self, rt).bindings())

    def _policy_mutation(self, entry: AuditEntry, operation: str, rt: ResourceType, obj: dict[str, Any] | None,
                         old: dict[str, Any] | None, subresource: str | None, dry_run: bool, user: UserInfo | None,
                         state: mutating.Reinvocation, *, name: str = "", namespace: str | None = None,
                         reinvoke: bool = False) -> None:
        """MutatingAdmissionPolicy on one write: ``obj`` is changed in place; raise the refusal. ``state``: the
        reinvocation context shared by the rounds of one request."""
        store: Any = self
        view = _MutatingView(store, rt)
        if subresource is not None and entry.subresource == "scale":
            return  # (a Scale's own kind is not mutated here: docs/admission.md)
        meta = (obj if obj is not None else old or {}).get("metadata") or {}
        shown = _shown(store, rt, json_copy(obj), None) if obj is not None else None
        a = Attributes(operation, rt.group, rt.version, rt.plural, rt.kind, subresource or "",
                       (namespace or str(meta.get("namespace") or "")) if rt.namespaced else "",
                       str(meta.get("name") or name), shown, _shown(store, rt, json_copy(old), None)
                       if old is not None else None, _user(entry, user), dry_run,
                       {"dryRun": ["All"]} if dry_run else {}, rt.namespaced, None)
        storage = store.storage_type(rt.storage)
        target = mutating.Target(rt.patch_schema, storage.strategy.default)
        before = json_copy(shown)
        mutating.admit(view, a, target, state, reinvoke)
        if obj is None or a.obj is None or a.obj == before:
            return
        new = a.obj
        if rt.to_storage is not None and new.get("apiVersion") != obj.get("apiVersion"):
            new = rt.to_storage(new)
        new["apiVersion"] = obj.get("apiVersion", new.get("apiVersion"))
        mutating.replace(obj, new)

    def _validating_admission(self, entry: AuditEntry, operation: str, rt: ResourceType,
                              obj: dict[str, Any] | None, old: dict[str, Any] | None, subresource: str | None,
                              dry_run: bool, user: UserInfo | None = None, *,
                              request_kind: tuple[str, str, str] | None = None,
                              namespace: str | None = None) -> None:
        """Validating admission of one write: raise its refusal; its warnings and audit annotations go on the
        request's ``entry``. ``obj``/``old``: the new and the stored object (None where the operation has none).
        ``request_kind``: the group, version and kind of a subresource's own object (a pod's Eviction,
        Binding), shown as it is; ``namespace``: the request's, where the object may not say it."""
        store: Any = self
        view = _View(store, rt)
        if not view.bindings():  # the common case: nothing to do, at the cost of one lookup
            return
        kind, kind_gv = rt.kind, None
        if request_kind is not None:
            kind, kind_gv = request_kind[2], request_kind[:2]
            obj = json_copy(obj) if obj is not None else None  # plain JSON (a decoded body is a dict subclass)
        if subresource is None and entry.subresource == "scale" and rt.scale is not None:
            # A scale write goes through the parent's update: admission sees the request's Scale objects.
            subresource, kind, kind_gv = "scale", "Scale", ("autoscaling", "v1")
            obj = store._scale_of(rt, obj) if obj is not None else None
            old = store._scale_of(rt, old) if old is not None else None
        meta = (obj if obj is not None else old or {}).get("metadata") or {}
        # A create's attributes carry the name the request gave: none for a generated one (whose object,
        # named by now, still names the refusal).
        name = "" if operation == "CREATE" and entry.generate_name else str(meta.get("name") or "")
        a = Attributes(operation, rt.group, rt.version, rt.plural, kind, subresource or "",
                       (namespace or str(meta.get("namespace") or "")) if rt.namespaced else "", name,
                       _shown(store, rt, obj, kind_gv), _shown(store, rt, old, kind_gv),
                       _user(entry, user), dry_run,
                       {"dryRun": ["All"]} if dry_run else {}, rt.namespaced, kind_gv)
        outcome = policy.admit(view, a)
        entry.warnings.extend(outcome.warnings)
        if outcome.annotations:
            if entry.request is None:
                entry.request = AuditRequest()
            entry.request.annotations.update(outcome.annotations)
        if outcome.error is not None:
            raise outcome.error
