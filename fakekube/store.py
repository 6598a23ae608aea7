"""The one versioned store: every front (in-process, simulation, HTTP) calls these verbs.

Semantics follow kube-apiserver's generic registry on etcd (kubernetes/apiserver
``pkg/registry/generic/registry/store.go``, ``pkg/registry/rest/*``, ``pkg/storage/etcd3/*``); each rule is
listed with its source in docs/semantics.md. In short:

- one global resourceVersion counter, bumped only by a real change; a no-op write keeps it and emits nothing;
- PUT needs the current resourceVersion (409 otherwise), or none where the kind allows unconditional updates;
- PATCH has no precondition unless the patched object carries a resourceVersion of its own;
- status rules, generation and deletion come from the kind's strategy (fakekube.strategies);
- objects are plain JSON dicts; stored ones are never mutated and never handed out (callers get copies).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fakekube import decoding, errors, namerules, validation
from fakekube.allocators import DEFAULT_NODE_PORT_RANGE, DEFAULT_SERVICE_CIDR, ServiceAllocators
from fakekube.apfconfig import APF_STORAGES, ApfConfigConsumer
from fakekube.apimodel import KubernetesVersion
from fakekube.audit import AuditEntry, AuditLog
from fakekube.audit.log import NO_BODY  # noqa: F401  (re-exported: tools wrap Store._run with it)
from fakekube.builtins import builtin_registry
from fakekube.clock import Clock, RealClock, rfc3339
from fakekube.crdcontrollers import CrdControllers
from fakekube.crscale import scale_errors
from fakekube.decoding import FieldReport, check_type_meta
from fakekube.faults import FaultInjector
from fakekube.gc import GarbageCollector
from fakekube.identity import Authorizer, UserInfo
from fakekube.jsonvalues import json_copy
from fakekube.kinds.context import WriteContext
from fakekube.patch.managed_fields import record_update
from fakekube.patch.zero import zero_object
from fakekube.pods.execution import ExecHandler, ExecRegistry
from fakekube.records import CRD_STORAGE, Key, Record, sort_key
from fakekube.requestcycle import RequestCycle
from fakekube.resources import Registry, ResourceType, load_manifests
from fakekube.serviceaccounts import ServiceAccountController
from fakekube.tokens import TokenAuthority
from fakekube.uids import uuid4_text
from fakekube.verbs.admission import AdmissionVerbs
from fakekube.verbs.binding import BindingVerbs
from fakekube.verbs.conversion_webhook import ConversionWebhookVerbs, key_of
from fakekube.verbs.crds import CrdVerbs
from fakekube.verbs.create import CreateVerbs
from fakekube.verbs.delete import DeleteVerbs
from fakekube.verbs.eviction import EvictionVerbs
from fakekube.verbs.read import ReadVerbs
from fakekube.verbs.scale import ScaleVerbs
from fakekube.verbs.unchanged import decode_update_body, same_as_stored
from fakekube.verbs.watching import WatchVerbs
from fakekube.verbs.webhook_admission import ObjectMoved, WebhookVerbs
from fakekube.verbs.write import WriteVerbs
from fakekube.watch import ADDED, DELETED, MODIFIED, Change, Hub

CommitHook = Callable[[AuditEntry, "dict[str, Any] | None", "dict[str, Any] | None"], None]

DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_NAME_VALIDATORS = {
    "subdomain": namerules.name_is_dns_subdomain,
    "label": namerules.name_is_dns_label,
    "dns1035": namerules.name_is_dns1035_label,
    "path_segment": namerules.name_is_path_segment,
    "ip": namerules.name_is_ip,
    "any": namerules.name_is_anything,
}


def custom_type_meta(rt: ResourceType, obj: dict[str, Any]) -> None:
    """apiextensions-apiserver ``customResourceValidator.ValidateTypeMeta``: a custom resource must be of the
    endpoint's kind and group version, and only these errors are reported when it is not (the object's own
    kind and group qualify the 422)."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    errs = []
    if kind != rt.kind:
        errs.append(errors.invalid("kind", kind, f"must be {rt.kind}"))
    if api_version != rt.api_version:
        errs.append(errors.invalid("apiVersion", api_version, f"must be {rt.api_version}"))
    if errs:
        group = str(api_version).rpartition("/")[0] if isinstance(api_version, str) else ""
        meta = obj.get("metadata") or {}
        raise errors.Invalid(str(kind), group, meta.get("name") or meta.get("generateName") or "", errs)


class Store(RequestCycle, CreateVerbs, ReadVerbs, WriteVerbs, ScaleVerbs, DeleteVerbs, WatchVerbs, CrdVerbs,
            BindingVerbs, EvictionVerbs, AdmissionVerbs, WebhookVerbs, ConversionWebhookVerbs):
    """An in-memory kube-apiserver: verbs take the resource (plural, Kind, ``plural.group`` or a
    ResourceType), an optional namespace, and who is asking (``actor``, shown in the audit log)."""

    def __init__(
        self,
        *,
        registry: Registry | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
        watch_history: int = 10_000,
        gc: str = "sync",
        require_namespaces: bool = True,
        namespaces: Iterable[str] = DEFAULT_NAMESPACES,
        managed_fields: bool = True,
        audit: bool = True,
        service_accounts: bool = True,
        service_cidr: str = DEFAULT_SERVICE_CIDR,
        node_port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE,
        kubernetes_version: str | KubernetesVersion | None = None,
        webhook_services: dict[str, str] | None = None,
    ) -> None:
        """``kubernetes_version`` ("1.30"; default: see ``fakekube.apimodel.DEFAULT_KUBERNETES_VERSION``) picks
        the built-in API the store emulates: only kinds that exist in that release are served.
        ``webhook_services``: where admission webhooks' Service references go, ``{"NAMESPACE/NAME[:PORT]":
        "HOST:PORT"}`` (also ``set_webhook_service``; docs/admission.md, "Admission webhooks")."""
        if registry is not None and kubernetes_version is not None:
            raise ValueError("pass either a registry or a kubernetes_version, not both")
        self.registry = registry or builtin_registry(kubernetes_version)
        self.clock: Clock = clock or RealClock()
        self.rng = random.Random(seed)  # uids
        self.name_rng = random.Random(f"{seed}/names")  # generateName suffixes
        self.admission_rng = random.Random(f"{seed}/admission")  # names admission plugins generate
        self.allocators = ServiceAllocators(seed, service_cidr=service_cidr, node_port_range=node_port_range)
        self.audit = AuditLog(enabled=audit)
        self.faults = FaultInjector(seed)
        self.hub = Hub(watch_history)
        self.require_namespaces = require_namespaces
        # Admission plugins switched off, as kube-apiserver's --disable-admission-plugins (only "ServiceAccount"
        # is honoured: envtest runs its server without it, so pods need no ServiceAccount there).
        self.disabled_admission_plugins: frozenset[str] = frozenset()
        self.track_managed_fields = managed_fields
        self._versions_by_storage: dict[tuple[str, int], frozenset[str]] = {}
        self.commit_hooks: list[CommitHook] = []
        # What pods' containers do when a client execs into them (fakekube.pods; ``on_exec``).
        self.pod_exec = ExecRegistry()
        self.pod_exec.container_log = self._container_log
        # Who may do what and which bearer tokens are valid, for the review APIs (fakekube/kinds/authorization.py,
        # authentication.py). The store never enforces either; None is AlwaysAllow.
        self.authorizer: Authorizer | None = None
        self.tokens = TokenAuthority(self, seed)
        self.delay_hook: Callable[[float], None] = time.sleep
        self._data: dict[str, dict[Key, Record]] = {}
        # uid -> the raw members stored in other than compact spelling (fakekube.verbs.rawdata)
        self.raw_spellings: dict[str, dict[str, str]] = {}
        # uids of objects not updated since their create stored them without their read defaults
        # (Strategy.created_without_read_defaults): their next update is never a no-op
        self.unwritten_defaults: set[str] = set()
        self._order: dict[str, list[Key]] = {}  # sorted keys per storage, dropped when keys come or go
        self._labels: dict[str, dict[tuple[str, str], set[Key]]] = {}  # storage -> (label, value) -> keys
        self._by_uid: dict[str, tuple[str, Key]] = {}
        self._dependents: dict[str, set[tuple[str, Key]]] = {}
        self._rv = 0
        self._init_request_cycle()
        self._init_webhooks(seed)
        for service, address in (webhook_services or {}).items():
            self.webhook_services.parse_flag(f"{service}={address}")
        self.gc = GarbageCollector(self)
        self.gc_mode = gc
        self.crd_controllers = CrdControllers(self)
        self.apf_config = ApfConfigConsumer(self)
        # kube-controller-manager's service-account controller; None when turned off.
        self.service_accounts: ServiceAccountController | None = (
            ServiceAccountController(self) if service_accounts else None)
        for name in namespaces:
            self.create("namespaces", {"metadata": {"name": name}}, actor="fakekube")
        if self.service_accounts is not None:
            self.service_accounts.collect()  # a running cluster's namespaces have theirs already
        self.audit.clear()
        self._seq = 0

    # -- plumbing --------------------------------------------------------------------------------------

    @property
    def resource_version(self) -> str:
        """The latest committed resourceVersion (etcd's revision)."""
        return str(self._rv)

    def resolve(self, resource: str | ResourceType) -> ResourceType:
        return self.registry.resolve(resource)

    def _bucket(self, rt: ResourceType) -> dict[Key, Record]:
        bucket = self._data.get(rt.storage)
        if bucket is None:
            bucket = self._data[rt.storage] = {}
        return bucket

    def _key(self, rt: ResourceType, namespace: str | None, name: str) -> Key:
        return (namespace or "", name) if rt.namespaced else ("", name)

    def _now(self) -> str:
        return rfc3339(self.clock.now())  # rfc3339 keeps the current second's text: writes come many to a second

    def _new_uid(self) -> str:
        return uuid4_text(self.rng)

    def _write_context(self, namespace: str | None, subresource: str | None = None,
                       dry_run: bool = False, user: UserInfo | None = None) -> WriteContext:
        """What a write's strategy hooks may see of this store (fakekube.kinds.context)."""
        return WriteContext(read=self._read_stored, listing=self._list_stored, allocators=self.allocators,
                            rng=self.admission_rng, now=self._now, namespace=namespace, subresource=subresource,
                            dry_run=dry_run, disabled_admission=self.disabled_admission_plugins, user=user)

    def _read_stored(self, storage: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.stored_object(storage, (namespace, name))

    def _list_stored(self, storage: str, namespace: str | None) -> list[dict[str, Any]]:
        return [r.obj for k, r in self._data.get(storage, {}).items() if namespace is None or k[0] == namespace]

    def _present(self, rt: ResourceType, record: Record) -> dict[str, Any]:
        """A caller's copy of a stored object, shown through ``rt``."""
        return self._convert_out(rt, record.copy())

    def _convert_out(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` (the caller's copy) shown through ``rt``; a conversion webhook is called without the lock."""
        if rt.from_storage is not None:
            return rt.from_storage(obj)
        if obj.get("apiVersion") != rt.api_version:
            if rt.conversion is not None:
                return self._webhook_read(rt, obj, key_of(rt, obj))
            obj["apiVersion"] = rt.api_version
        return obj

    def _in_storage_version(self, rt: ResourceType, new: dict[str, Any]) -> dict[str, Any]:
        """A custom resource written through another version than its storage one, as stored: converted
        (conversion None changes only the apiVersion, which reads rewrite anyway) and pruned by the storage
        version's schema, so a default only the request's version has is not kept (apiextensions-apiserver
        customresource_handler.go schemaCoercingConverter; observed on kube-apiserver v1.37.2)."""
        stored = self.registry.storage_type(rt.storage)
        if rt.conversion is not None and new.get("apiVersion") != stored.api_version:
            # (the write paths convert before they commit; what else writes through another version converts
            # here, with the lock held)
            new = self._webhook_to_storage(rt, new)
        if stored is rt or stored.schema is None or not stored.schema.would_prune(new):
            return new
        copy = json_copy(new)
        stored.schema.prune(copy)
        return copy

    def _view(self, rt: ResourceType) -> Callable[[dict[str, Any]], dict[str, Any]]:
        """How a stored object is shown through ``rt`` without copying (for watch events)."""
        if rt.from_storage is not None:
            return rt.from_storage
        if rt.conversion is not None:
            return _as_stored  # each watcher converts what it takes (fakekube.verbs.conversion_webhook)
        api_version = rt.api_version
        return lambda obj: obj if obj.get("apiVersion") == api_version else {**obj, "apiVersion": api_version}

    def _commit(self, rt: ResourceType, key: Key, new: dict[str, Any] | None, old: Record | None,
                entry: AuditEntry, checked: Any = None) -> Record | None:
        """Write (or delete, when ``new`` is None) one object at the next resourceVersion; ``checked`` as
        ``_validate`` returns it."""
        rv = self._rv = self._rv + 1
        text = entry.rv_after = str(rv)
        storage = rt.storage
        bucket = self._bucket(rt)
        old_obj = old.obj if old is not None else None
        record = None
        if new is None:
            del bucket[key]
            self._order.pop(storage, None)
            change_type = DELETED
            self._unindex(rt, key, old_obj)
            if self.raw_spellings and old_obj is not None:
                # The object's raw-member spellings (verbs.rawdata) go with it.
                self.raw_spellings.pop((old_obj.get("metadata") or {}).get("uid"), None)
            if self.unwritten_defaults and old_obj is not None:
                self.unwritten_defaults.discard((old_obj.get("metadata") or {}).get("uid"))
        else:
            if rt.custom:
                new = self._in_storage_version(rt, new)
            new["metadata"]["resourceVersion"] = text
            record = Record(new, checked)
            bucket[key] = record
            if old_obj is None:
                self._order.pop(storage, None)
                change_type = ADDED
                if rt.strategy.created_without_read_defaults:
                    self.unwritten_defaults.add(new["metadata"]["uid"])
                self._index(rt, key, new)
            else:
                change_type = MODIFIED
                if self.unwritten_defaults:
                    self.unwritten_defaults.discard(new["metadata"].get("uid"))
                if _index_fields_differ(old_obj["metadata"], new["metadata"]):
                    self._unindex(rt, key, old_obj)
                    self._index(rt, key, new)
        self.hub.publish(Change(rv, storage, change_type, new, old_obj))
        self.gc.observe(rt, key, new, old_obj)
        accounts = self.service_accounts
        if accounts is not None and storage in accounts.observed:
            accounts.observe(rt, key, new, old_obj)
        if new is None and rt.strategy.releases_on_delete:
            assert old_obj is not None
            rt.strategy.after_delete(old_obj, self._write_context(key[0] or None))
        for hook in self.commit_hooks:
            hook(entry, old_obj, new)
        if rt.storage == CRD_STORAGE:
            # After the CRD's own change is published, so the cleanup's revisions come after it.
            self._crd_changed(new, old_obj)
        elif rt.custom and new is None:
            self._custom_resource_gone(rt)
        elif storage in APF_STORAGES:
            self.apf_config.observe(storage, new, old_obj)
        return record

    def _index(self, rt: ResourceType, key: Key, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        self._by_uid[meta["uid"]] = (rt.storage, key)
        for ref in meta.get("ownerReferences") or ():
            self._dependents.setdefault(ref.get("uid", ""), set()).add((rt.storage, key))
        labels = self._labels.setdefault(rt.storage, {})
        for pair in (meta.get("labels") or {}).items():
            labels.setdefault(pair, set()).add(key)

    def _unindex(self, rt: ResourceType, key: Key, obj: dict[str, Any] | None) -> None:
        if obj is None:
            return
        meta = obj["metadata"]
        self._by_uid.pop(meta["uid"], None)
        labels = self._labels.get(rt.storage, {})
        for pair in (meta.get("labels") or {}).items():
            keys = labels.get(pair)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del labels[pair]
        for ref in meta.get("ownerReferences") or ():
            deps = self._dependents.get(ref.get("uid", ""))
            if deps is not None:
                deps.discard((rt.storage, key))
                if not deps:
                    del self._dependents[ref.get("uid", "")]

    # -- lookups used by the garbage collector and adapters ----------------------------------------------

    def _lookup(self, rt: ResourceType, namespace: str | None, name: str) -> Record:
        record = self._bucket(rt).get(self._key(rt, namespace, name))
        if record is None:
            raise errors.NotFound(rt.plural, rt.group, name)
        return record

    def objects_of(self, storage: str) -> list[tuple[Key, dict[str, Any]]]:
        """Every stored object of a storage key, read-only (for the controllers), in key order."""
        bucket = self._data.get(storage, {})
        return [(key, bucket[key].obj) for key in sorted(bucket)]

    def served_types_of_crd(self, name: str) -> list[ResourceType]:
        """The resource types a CustomResourceDefinition serves (one per served version)."""
        return [t for t in self.registry if t.custom and f"{t.plural}.{t.group}" == name]

    def stored_object(self, storage: str, key: Key) -> dict[str, Any] | None:
        """The stored object itself, read-only (for the garbage collector), or None."""
        record = self._data.get(storage, {}).get(key)
        return record.obj if record is not None else None

    def object_by_uid(self, uid: str) -> tuple[str, Key, dict[str, Any]] | None:
        """(storage, key, stored object) — read-only access for the garbage collector."""
        located = self._by_uid.get(uid)
        if located is None:
            return None
        storage, key = located
        return storage, key, self._data[storage][key].obj

    def dependents_of(self, uid: str) -> list[tuple[str, Key, dict[str, Any]]]:
        return [(s, k, self._data[s][k].obj) for s, k in sorted(self._dependents.get(uid, ()))
                if k in self._data.get(s, {})]

    def storage_type(self, storage: str) -> ResourceType:
        return self.registry.storage_type(storage)

    def keys_in_namespace(self, namespace: str) -> list[tuple[str, Key]]:
        return [(s, k) for s, bucket in sorted(self._data.items()) for k in sorted(bucket) if k[0] == namespace]

    # -- namespaces ------------------------------------------------------------------------------------

    def _namespace_given(self, rt: ResourceType, namespace: Any, name: Any, verb: str) -> None:
        """A namespaced resource addressed without a namespace is a mistake of the calling code, not a request
        the API server could receive (its URL always names one): say so, rather than answer the misleading
        ``namespaces "" not found`` or ``configmaps "x" not found``."""
        if rt.namespaced and not namespace and self.require_namespaces:
            what = f'{rt.plural} "{name}"' if isinstance(name, str) and name else rt.plural
            raise errors.BadRequest(
                f"{verb} {what}: {errors.qualified(rt.plural, rt.group)} is namespaced, and neither the "
                f'namespace argument (namespace="default") nor the body\'s metadata.namespace names one')

    def _check_namespace(self, rt: ResourceType, namespace: str, *, creating: bool, name: str = "") -> None:
        """NamespaceLifecycle admission: the namespace must exist; a create in one whose phase is Terminating is
        refused, naming the object as ``admission.NewForbidden`` does (its name, else its generateName, else
        ``Unknown``: the name is not generated yet)."""
        if not self.require_namespaces or not rt.namespaced:
            return
        ns = self._data.get("/namespaces", {}).get(("", namespace))
        if ns is None:
            raise errors.NotFound("namespaces", "", namespace)
        if creating and (ns.obj.get("status") or {}).get("phase") == "Terminating":
            name = name or "Unknown"
            raise errors.Forbidden(
                f'{errors.qualified(rt.plural, rt.group)} "{name}" is forbidden: unable to create new '
                f"content in namespace {namespace} because it is being terminated",
                {"name": name, "group": rt.group, "kind": rt.plural,
                 "causes": [{"reason": "NamespaceTerminating",
                             "message": f"namespace {namespace} is being terminated",
                             "field": "metadata.namespace"}]},
            )

    def finalize_namespace(self, name: str, *, actor: str = "namespace-controller") -> dict[str, Any]:
        """What the namespace controller does once a terminating namespace is empty (kubernetes
        pkg/controller/namespace/deletion ``finalizeNamespace``): PUT ``/finalize`` with its own finalizer,
        ``kubernetes``, taken out of ``spec.finalizers`` (the rest sorted). The namespace goes when no finalizer
        of either kind remains."""
        current = self.get("namespaces", name, actor=actor)
        spec = current.get("spec") or {}
        remaining = sorted({f for f in spec.get("finalizers") or [] if f != "kubernetes"})
        body = {**current, "spec": {**spec, "finalizers": remaining}}
        if not remaining:
            body["spec"].pop("finalizers")
        return self.update("namespaces", body, name=name, subresource="finalize", actor=actor)

    def ensure_namespace(self, name: str) -> None:
        """Create namespace ``name`` if it does not exist (a convenience for tests)."""
        if ("", name) not in self._data.get("/namespaces", {}):
            self.create("namespaces", {"metadata": {"name": name}}, actor="fakekube")

    # -- validation ------------------------------------------------------------------------------------

    def _validate(self, rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None,
                  subresource: str | None = None, old_checked: Any = None, *,
                  request: ResourceType | None = None, extra: list[Any] | None = None,
                  warnings: list[str] | None = None) -> Any:
        """Raise the write's 422, if any; return the custom resource schema the whole of ``obj`` is now known
        to pass (``Record.checked``), or None. ``old_checked``: the old version's ``Record.checked``.
        ``request``: the type a create came through; one stored in another shape (events.k8s.io Events) has
        its own name rule and create validation (upstream: the strategy sees the request's version).
        ``extra``: field errors found before, reported after the strategy's. ``warnings``: where the CRD
        validation rules' ratcheted errors go (the request's Warning headers)."""
        meta = obj["metadata"]
        shape = request if request is not None and request.to_storage is not None else rt
        if rt.custom:
            custom_type_meta(rt, obj)
        if old is None:
            name_rule = shape.strategy.name_rule(obj) or _NAME_VALIDATORS[shape.name_rule]
            errs = validation.validate_object_meta(meta, namespaced=rt.namespaced, name_validator=name_rule)
        elif (passes := rt.strategy.meta_update_passes(subresource)) is not None:
            errs = validation.object_meta_update_passes(meta, old["metadata"], passes)
        else:
            errs = validation.validate_object_meta_update(meta, old["metadata"])
        if meta.get("finalizers") and validation.checks_kube_finalizer_names(rt.group, rt.custom):
            errs += validation.validate_kube_finalizer_names(meta["finalizers"])
        if old is None and not shape.strategy.validates_own_metadata:
            own = shape.strategy.validate(obj)
            errs = own or errs
        elif old is None:
            errs += shape.strategy.validate(obj)
        else:
            errs += rt.strategy.validate_update(obj, old, subresource)
        if extra:
            errs += extra
        checked = None
        if rt.schema is not None:
            schema_errs, whole = rt.schema.check(obj, old, old_checked is rt.schema)
            errs += schema_errs
        if rt.custom and rt.scale is not None:
            errs += scale_errors(obj, rt.scale.spec_replicas_path, rt.scale.status_replicas_path,
                                 rt.scale.label_selector_path, status_write=subresource == "status")
        if rt.schema is not None:
            if rt.schema.rules_count_cost():
                errs += self._costly_rule_errors(rt, errs, obj, old, warnings)
            else:
                errs += rt.schema.rule_errors(errs, obj, old, warnings)
            checked = rt.schema if whole else None
        if errs:
            raise errors.Invalid(rt.kind, rt.group, meta.get("name") or meta.get("generateName") or "", errs)
        return checked

    def _container_log(self, pod: dict[str, Any], container: str) -> Any:
        """The container's current log instance (fakekube.pods.logs): an exec'd command's ``> /proc/1/fd/1``
        appends to it, an attach streams it."""
        from fakekube.pods.logs import pod_logs

        return pod_logs(self).instance(pod["metadata"]["uid"], container)

    def _costly_rule_errors(self, rt: ResourceType, errs: list[errors.FieldError], obj: dict[str, Any],
                            old: dict[str, Any] | None, warnings: list[str] | None) -> list[errors.FieldError]:
        """CEL rules that may spend their whole runtime budget (seconds, counted in Python) run without the
        store's lock, as admission webhooks do (fakekube.verbs.webhook_admission): they read only the object and
        its old self, and other clients must not wait on one object's rules. An update whose object moved
        meanwhile starts over from the new object; a create's name is checked for existence after this anyway."""
        schema = rt.schema
        assert schema is not None
        meta = obj["metadata"]
        key = self._key(rt, meta.get("namespace"), meta.get("name") or "") if old is not None else None
        before = self._bucket(rt).get(key) if key is not None else None
        with self._unlocked():
            found = schema.rule_errors(errs, obj, old, warnings)
        if key is not None and self._bucket(rt).get(key) is not before:
            raise ObjectMoved()
        return found

    def _check_body(self, rt: ResourceType, body: Any, report: FieldReport | None = None,
                    stored: Record | None = None, *, sends_stored: bool = False) -> dict[str, Any]:
        """The store's copy of a create or update body, decoded as the real server decodes it (fakekube.decoding):
        wrong JSON types are a 400, unknown fields are dropped and reported to ``report`` (fieldValidation).
        ``stored``: the object an update replaces, whose unchanged fields need no decoding (verbs.unchanged);
        ``sends_stored``: the body is that version itself (verbs.noop.sends_stored)."""
        if not isinstance(body, dict):
            raise errors.BadRequest(
                f"the body of the request must be a JSON object describing a {rt.kind}, not {type(body).__name__}"
            )
        check_type_meta(body)
        api_version = body.get("apiVersion")
        kind = body.get("kind")
        duplicates = list(getattr(body, "duplicate_fields", ()))
        if stored is not None and same_as_stored(rt, stored.obj):
            obj, unknown = decode_update_body(rt, body, stored, sends_stored)
        elif rt.model is not None:
            decoded = decoding.decode_body(rt, body)
            obj, unknown = decoded.value, decoded.unknown
        else:
            obj = json_copy(body)
            unknown = decoding.prune_custom(self.registry.kubernetes_version, rt, obj)
        if report is not None:
            report.body(rt, duplicates, unknown, list(getattr(body, "strict_problems", ())))
        if rt.to_storage is not None and api_version in (None, rt.api_version):
            obj = rt.to_storage({**obj, "apiVersion": rt.api_version, "kind": rt.kind})
            api_version, kind = obj["apiVersion"], obj["kind"]
            rt = self.storage_type(rt.storage)
        if api_version is not None and api_version != rt.api_version:
            served = {t.api_version for t in self.registry if t.storage == rt.storage}
            if api_version not in served:
                raise errors.BadRequest(
                    f"the API version in the data ({api_version}) does not match the expected API version "
                    f"({rt.api_version})"
                )
        if kind not in (None, "") and kind != rt.kind and not rt.custom:
            raise errors.BadRequest(f"the kind in the data ({kind}) does not match the expected kind ({rt.kind})")
        meta = obj.get("metadata")
        if meta is None:
            meta = {}
        elif not isinstance(meta, dict):
            raise errors.BadRequest("metadata must be an object")
        rest = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        # A custom resource keeps the kind it names: validation refuses another one (ValidateTypeMeta).
        kept_kind = kind if rt.custom and isinstance(kind, str) and kind else rt.kind
        return {"apiVersion": api_version or rt.api_version, "kind": kept_kind, "metadata": meta, **rest}

    def _prepare_schema(self, rt: ResourceType, obj: dict[str, Any]) -> None:
        """Defaults of a custom resource's schema (its unknown fields were pruned when the body or the patch's
        result was decoded)."""
        if rt.schema is not None:
            rt.schema.apply_defaults(obj)

    def _manager(self, actor: str, field_manager: str | None) -> str:
        if field_manager:
            return field_manager
        return (actor or "unknown").split("/", 1)[0]

    def _record_managed_fields(self, rt: ResourceType, old: dict[str, Any] | None, new: dict[str, Any],
                               manager: str | None, subresource: str | None,
                               request: ResourceType | None = None,
                               annotations: dict[str, str] | None = None, untyped: bool = False) -> None:
        """An ``Update`` entry for ``manager``; ``None`` means the write (an apply) has recorded its own.
        ``untyped``: the request's object did not convert to its typed form (``untyped_custom_status``).
        ``rt`` is the storage's type, ``request`` the one the write came through (its version is the entry's).
        ``annotations``: what the conversion to the versioned type writes into the new object
        (``Strategy.manager_annotations``; a create asks here, its object is as decoded still)."""
        if manager is None or not self.track_managed_fields:
            return
        if untyped:
            # apimachinery managedfields/internal/fieldmanager.go UpdateNoErrors: the object does not convert to
            # its typed form, so the write keeps the live object's entries (a create: none)
            kept = old.get("metadata", {}).get("managedFields") if old is not None else None
            if kept:
                new["metadata"]["managedFields"] = kept
            else:
                new["metadata"].pop("managedFields", None)
            return
        writer = request if request is not None and request.to_storage is not None else rt
        to_version = writer.from_storage if writer is not rt else None
        if old is None and annotations is None:
            annotations = rt.strategy.manager_annotations(new)
        if annotations:
            to_version = _with_annotations(new, annotations, to_version)
        record_update(old, new, manager=manager, api_version=writer.api_version, subresource=subresource,
                      now=self._now(), schema=writer.patch_schema,
                      zero=zero_object(writer.api_version, writer.kind) if old is None else None,
                      to_version=to_version, versions=self.managed_versions(writer))

    def managed_versions(self, rt: ResourceType) -> frozenset[str]:
        """The apiVersions whose managedFields entries survive a write through ``rt``: what its endpoint's field
        manager can convert to — every version of a custom resource, a built-in's own (the other group of
        Events included: its entries are dropped, as observed on kube-apiserver v1.37.2)."""
        if not rt.custom:
            own = _OWN_VERSION.get(rt.api_version)
            if own is None:
                own = _OWN_VERSION[rt.api_version] = frozenset((rt.api_version,))
            return own
        key = (rt.storage, self.registry.generation)
        known = self._versions_by_storage.get(key)
        if known is None:
            if len(self._versions_by_storage) > 256:
                self._versions_by_storage.clear()
            known = self._versions_by_storage[key] = frozenset(
                {t.api_version for t in self.registry if t.storage == rt.storage} | {rt.api_version})
        return known

    # -- conveniences ----------------------------------------------------------------------------------

    def on_exec(self, handler: ExecHandler, *, namespace: str | Iterable[str] | None = None,
                pod: str | Iterable[str] | None = None, labels: str | Mapping[str, str] | None = None,
                container: str | Iterable[str] | None = None) -> Callable[[], None]:
        """Answer ``pods/exec`` into the selected containers with ``handler(process) -> exit code`` (newest
        matching rule wins; without one, the built-in commands answer). Returns a function removing the rule.
        See docs/pods.md, "Exec and attach"."""
        return self.pod_exec.on_exec(handler, namespace=namespace, pod=pod, labels=labels, container=container)

    def on_port_forward(self, handler: Callable[[Any], None], *, port: int | Iterable[int] | None = None,
                        namespace: str | Iterable[str] | None = None, pod: str | Iterable[str] | None = None,
                        labels: str | Mapping[str, str] | None = None) -> Callable[[], None]:
        """Answer ``pods/portforward`` to ``port`` of the selected pods with ``handler(connection)``
        (``fakekube.pods.portforward``; ``forward_to(host, port)`` reaches a real address). Returns a function
        removing the rule. See docs/pods.md, "Port-forward"."""
        return self.pod_exec.port_forwards.on_port_forward(handler, port=port, namespace=namespace, pod=pod,
                                                           labels=labels)

    def load(self, source: str | Any, *, actor: str = "fakekube") -> list[dict[str, Any]]:
        """Create every object in a manifest (dict, list, YAML text or file); returns those that are not CRDs.

        CustomResourceDefinitions are registered first (created, or updated when they exist), so a file may
        list custom resources before the CRD that defines them.
        """
        docs = load_manifests(source)
        self.load_crds([d for d in docs if d.get("kind") == "CustomResourceDefinition"], actor=actor)
        created = []
        for doc in docs:
            if doc.get("kind") == "CustomResourceDefinition":
                continue
            rt = self.registry.for_kind(doc.get("apiVersion", ""), doc.get("kind", ""))
            ns = (doc.get("metadata") or {}).get("namespace")
            if rt.namespaced and not ns:
                ns = "default"
            if ns and rt.namespaced and self.require_namespaces:
                self.ensure_namespace(ns)
            created.append(self.create(rt, doc, ns, actor=actor))
        return created

    def objects(self, resource: str | ResourceType, namespace: str | None = None) -> list[dict[str, Any]]:
        """Copies of every stored object of a resource (no audit entry: for assertions in tests)."""
        rt = self.resolve(resource)
        with self._lock:
            records = [r for k, r in sorted(self._bucket(rt).items(), key=lambda kv: sort_key(kv[0]))
                       if namespace is None or k[0] == namespace]
        return [self._present(rt, r) for r in records]

    def count(self, resource: str | ResourceType) -> int:
        return len(self._bucket(self.resolve(resource)))


_OWN_VERSION: dict[str, frozenset[str]] = {}  # a built-in's apiVersion alone, made once (bounded by the kinds)


def _with_annotations(new: dict[str, Any], annotations: dict[str, str],
                      then: Callable[[dict[str, Any]], dict[str, Any]] | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The field manager's view: ``new`` with ``annotations`` written over its own (the live object is seen as
    stored: the conversion wrote them when it was stored), then ``then``."""
    def view(obj: dict[str, Any]) -> dict[str, Any]:
        if obj is new:
            meta = obj.get("metadata") or {}
            obj = {**obj, "metadata": {**meta, "annotations": {**(meta.get("annotations") or {}), **annotations}}}
        return then(obj) if then is not None else obj
    return view


def _as_stored(obj: dict[str, Any]) -> dict[str, Any]:
    return obj


def _index_fields_differ(old_meta: dict[str, Any], new_meta: dict[str, Any]) -> bool:
    """Whether the store's indexes (uid, labels, owners) must be rebuilt for a new version."""
    return (old_meta.get("labels") != new_meta.get("labels")
            or old_meta.get("ownerReferences") != new_meta.get("ownerReferences"))

