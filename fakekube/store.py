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

import base64
import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from fakekube import errors, validation
from fakekube.audit import AuditEntry, AuditLog
from fakekube.builtins import builtin_registry
from fakekube.clock import Clock, RealClock, rfc3339
from fakekube.faults import FaultInjector
from fakekube.jsoncopy import json_copy
from fakekube.patch import APPLY_PATCH, apply_patch, normalize_patch_type
from fakekube.resources import Registry, ResourceType, load_manifests
from fakekube.selectors import FieldSelector, LabelSelector
from fakekube.watch import ADDED, BOOKMARK, DELETED, MODIFIED, Change, Hub, Watch, WatchEvent

Key = tuple[str, str]  # (namespace or "", name)
CommitHook = Callable[[AuditEntry, "dict[str, Any] | None", "dict[str, Any] | None"], None]

DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
GC_FINALIZERS = ("orphan", "foregroundDeletion")
CRD_STORAGE = "apiextensions.k8s.io/customresourcedefinitions"
MAX_GENERATE_NAME_ATTEMPTS = 8  # maxNameGenerationCreateAttempts in store.go
_NAME_VALIDATORS = {
    "subdomain": validation.name_is_dns_subdomain,
    "label": validation.name_is_dns_label,
    "dns1035": validation.name_is_dns1035_label,
}


class Record:
    """A stored object and, lazily, its JSON text (decoding it is the fastest deep copy there is)."""

    __slots__ = ("obj", "_text")

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = json.dumps(self.obj, separators=(",", ":"))
        return self._text

    def copy(self) -> dict[str, Any]:
        return json.loads(self.text)

    @property
    def rv(self) -> str:
        return self.obj["metadata"]["resourceVersion"]


def _sort_key(key: Key) -> str:
    # etcd keys are /<prefix>/<namespace>/<name>: lists come back in that byte order.
    return f"{key[0]}/{key[1]}" if key[0] else key[1]


class Store:
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
    ) -> None:
        self.registry = registry or builtin_registry()
        self.clock: Clock = clock or RealClock()
        self.rng = random.Random(seed)  # uids
        self.name_rng = random.Random(f"{seed}/names")  # generateName suffixes
        self.audit = AuditLog(enabled=audit)
        self.faults = FaultInjector(seed)
        self.hub = Hub(watch_history)
        self.require_namespaces = require_namespaces
        self.track_managed_fields = managed_fields
        self.commit_hooks: list[CommitHook] = []
        self.delay_hook: Callable[[float], None] = time.sleep
        self._data: dict[str, dict[Key, Record]] = {}
        self._order: dict[str, list[Key]] = {}  # sorted keys per storage, dropped when keys come or go
        self._labels: dict[str, dict[tuple[str, str], set[Key]]] = {}  # storage -> (label, value) -> keys
        self._by_uid: dict[str, tuple[str, Key]] = {}
        self._dependents: dict[str, set[tuple[str, Key]]] = {}
        self._rv = 0
        self._seq = 0
        self._lock = threading.RLock()
        self._depth = 0
        self._collecting = False
        from fakekube.gc import GarbageCollector

        self.gc = GarbageCollector(self)
        self.gc_mode = gc
        for name in namespaces:
            self.create("namespaces", {"metadata": {"name": name}}, actor="fakekube")
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
        return rfc3339(self.clock.now())

    def _new_uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _begin(self, verb: str, rt: ResourceType, namespace: str | None, name: str | None,
               subresource: str | None, actor: str, **extra: Any) -> AuditEntry:
        self._seq += 1
        entry = AuditEntry(
            seq=self._seq, time=self.clock.now().timestamp(), actor=actor, verb=verb, group=rt.group,
            resource=rt.plural, namespace=namespace if rt.namespaced else None, name=name,
            subresource=subresource, **extra,
        )
        return entry

    def _inject_faults(self, entry: AuditEntry) -> None:
        outcome = self.faults.check(entry.verb, entry.resource, entry.namespace, entry.name, entry.subresource,
                                    entry.actor)
        if outcome is None:
            return
        if outcome.delay:
            self.delay_hook(outcome.delay)
        if outcome.error is not None:
            entry.notes.append("injected fault")
            raise outcome.error

    def _run(self, entry_factory: Callable[[], AuditEntry], body: Callable[[AuditEntry], Any]) -> Any:
        """Serve one request under the store lock and audit it, whatever its outcome."""
        entry: AuditEntry | None = None
        with self._lock:
            self._depth += 1
            try:
                entry = entry_factory()
                if self.faults:
                    self._inject_faults(entry)
                result = body(entry)
                if not entry.code:
                    entry.code = 200
                return result
            except errors.ApiError as exc:
                if entry is not None:
                    entry.code, entry.reason, entry.message = exc.code, exc.reason, exc.message
                raise
            finally:
                self._depth -= 1
                if entry is not None:
                    self.audit.record(entry)
                if self._depth == 0 and self.gc_mode == "sync" and self.gc.pending and not self._collecting:
                    # The collector's own requests come back here; one collection at a time.
                    self._collecting = True
                    try:
                        self.gc.collect()
                    finally:
                        self._collecting = False

    def _present(self, rt: ResourceType, record: Record | dict[str, Any]) -> dict[str, Any]:
        obj = record.copy() if isinstance(record, Record) else json_copy(record)
        return self._convert_out(rt, obj)

    def _convert_out(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        if rt.from_storage is not None:
            return rt.from_storage(obj)
        if obj.get("apiVersion") != rt.api_version:
            obj["apiVersion"] = rt.api_version
        return obj

    def _view(self, rt: ResourceType) -> Callable[[dict[str, Any]], dict[str, Any]]:
        """How a stored object is shown through ``rt`` without copying (for watch events)."""
        if rt.from_storage is not None:
            return rt.from_storage
        api_version = rt.api_version
        return lambda obj: obj if obj.get("apiVersion") == api_version else {**obj, "apiVersion": api_version}

    def _commit(self, rt: ResourceType, key: Key, new: dict[str, Any] | None, old: Record | None,
                entry: AuditEntry) -> Record | None:
        """Write (or delete, when ``new`` is None) one object at the next resourceVersion."""
        self._rv += 1
        rv = self._rv
        bucket = self._bucket(rt)
        old_obj = old.obj if old is not None else None
        record = None
        if new is None or old is None:
            self._order.pop(rt.storage, None)
        if new is None:
            del bucket[key]
            change_type = DELETED
            self._unindex(rt, key, old_obj)
        else:
            new["metadata"]["resourceVersion"] = str(rv)
            record = Record(new)
            bucket[key] = record
            change_type = MODIFIED if old is not None else ADDED
            if old_obj is None or _index_fields(old_obj) != _index_fields(new):
                self._unindex(rt, key, old_obj)
                self._index(rt, key, new)
        entry.rv_after = str(rv)
        if rt.storage == CRD_STORAGE:
            self._crd_changed(new, old_obj, entry)
        self.hub.publish(Change(rv, rt.storage, change_type, new, old_obj))
        self.gc.observe(rt, key, new, old_obj)
        for hook in self.commit_hooks:
            hook(entry, old_obj, new)
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

    def _crd_changed(self, new: dict[str, Any] | None, old: dict[str, Any] | None, entry: AuditEntry) -> None:
        """Serve (or stop serving) a CRD's kinds as soon as the CRD object is written."""
        if new is None:
            assert old is not None
            for rt in [t for t in self.registry if t.custom and f"{t.plural}.{t.group}" == old["metadata"]["name"]]:
                bucket = self._data.pop(rt.storage, {})
                self._order.pop(rt.storage, None)
                for key, record in sorted(bucket.items()):
                    self._rv += 1
                    self._unindex(rt, key, record.obj)
                    gone = {**record.obj, "metadata": {**record.obj["metadata"]}}
                    self.hub.publish(Change(self._rv, rt.storage, DELETED, None, gone))
            self.registry.unregister_crd(old["metadata"]["name"])
            return
        self.registry.register_crd(new)

    def _check_crd(self, obj: dict[str, Any]) -> None:
        from fakekube.resources import crd_resource_types

        types = crd_resource_types(obj)
        expected = f"{types[0].plural}.{types[0].group}" if types else ""
        if types and obj["metadata"].get("name") != expected:
            raise errors.Invalid("CustomResourceDefinition", "apiextensions.k8s.io", obj["metadata"].get("name", ""),
                                 [errors.invalid("metadata.name", obj["metadata"].get("name", ""),
                                                 "must be spec.names.plural+\".\"+spec.group")])
        names = (obj.get("spec") or {}).get("names") or {}
        obj["status"] = {
            "acceptedNames": {k: v for k, v in names.items()},
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": self._now()},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted", "lastTransitionTime": self._now()},
            ],
            "storedVersions": [v["name"] for v in (obj.get("spec") or {}).get("versions") or [] if v.get("storage")],
        }

    def load_crds(self, source: str | Any, *, actor: str = "fakekube") -> list[ResourceType]:
        """Register custom resources from CRD manifests (dict, YAML text or file) by creating the CRD objects."""
        registered: list[ResourceType] = []
        for doc in load_manifests(source):
            if doc.get("kind") != "CustomResourceDefinition":
                continue
            name = (doc.get("metadata") or {}).get("name", "")
            record = self._data.get(CRD_STORAGE, {}).get(("", name))
            if record is None:
                self.create("customresourcedefinitions", doc, actor=actor)
            else:
                self.update("customresourcedefinitions",
                            {**doc, "metadata": {**doc["metadata"], "resourceVersion": record.rv}}, actor=actor)
            registered.extend(t for t in self.registry if t.custom and f"{t.plural}.{t.group}" == name)
        return registered

    # -- lookups used by the garbage collector and adapters ----------------------------------------------

    def _lookup(self, rt: ResourceType, namespace: str | None, name: str) -> Record:
        record = self._bucket(rt).get(self._key(rt, namespace, name))
        if record is None:
            raise errors.NotFound(rt.plural, rt.group, name)
        return record

    def exists_uid(self, uid: str) -> bool:
        return uid in self._by_uid

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
        for rt in self.registry:
            if rt.storage == storage and rt.from_storage is None:
                return rt
        raise KeyError(storage)

    def keys_in_namespace(self, namespace: str) -> list[tuple[str, Key]]:
        return [(s, k) for s, bucket in sorted(self._data.items()) for k in sorted(bucket) if k[0] == namespace]

    # -- namespaces ------------------------------------------------------------------------------------

    def _check_namespace(self, rt: ResourceType, namespace: str, *, creating: bool) -> None:
        if not self.require_namespaces or not rt.namespaced:
            return
        ns = self._data.get("/namespaces", {}).get(("", namespace))
        if ns is None:
            raise errors.NotFound("namespaces", "", namespace)
        if creating and ns.obj["metadata"].get("deletionTimestamp"):
            raise errors.Forbidden(
                f'{rt.plural}{"." + rt.group if rt.group else ""} "" is forbidden: unable to create new '
                f"content in namespace {namespace} because it is being terminated",
                {"name": "", "group": rt.group, "kind": rt.plural,
                 "causes": [{"reason": "NamespaceTerminating",
                             "message": f"namespace {namespace} is being terminated",
                             "field": "metadata.namespace"}]},
            )

    def finalize_namespace(self, name: str, *, actor: str = "namespace-controller") -> dict[str, Any]:
        """PUT namespaces/<name>/finalize with no finalizers left: a terminating namespace goes away."""
        rt = self.resolve("namespaces")

        def serve(entry: AuditEntry) -> dict[str, Any]:
            record = self._lookup(rt, None, name)
            entry.rv_before = record.rv
            obj = record.copy()
            obj.setdefault("spec", {})["finalizers"] = []
            if obj["metadata"].get("deletionTimestamp") and not obj["metadata"].get("finalizers"):
                self._commit(rt, ("", name), None, record, entry)
                return obj
            new_record = self._commit(rt, ("", name), obj, record, entry)
            assert new_record is not None
            return self._present(rt, new_record)

        return self._run(lambda: self._begin("update", rt, None, name, "finalize", actor), serve)

    def ensure_namespace(self, name: str) -> None:
        """Create namespace ``name`` if it does not exist (a convenience for tests)."""
        if ("", name) not in self._data.get("/namespaces", {}):
            self.create("namespaces", {"metadata": {"name": name}}, actor="fakekube")

    # -- validation ------------------------------------------------------------------------------------

    def _validate(self, rt: ResourceType, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta = obj["metadata"]
        if old is None:
            name_rule = _NAME_VALIDATORS[rt.name_rule]
            errs = validation.validate_object_meta(meta, namespaced=rt.namespaced, name_validator=name_rule)
        else:
            errs = validation.validate_object_meta_update(meta, old["metadata"])
        if rt.schema is not None:
            errs += rt.schema.validate(obj)
        if errs:
            raise errors.Invalid(rt.kind, rt.group, meta.get("name") or meta.get("generateName") or "", errs)

    def _check_body(self, rt: ResourceType, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise errors.BadRequest(
                f"the body of the request must be a JSON object describing a {rt.kind}, not {type(body).__name__}"
            )
        obj = json_copy(body)
        api_version = obj.get("apiVersion")
        kind = obj.get("kind")
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
        if kind is not None and kind != rt.kind:
            raise errors.BadRequest(f"the kind in the data ({kind}) does not match the expected kind ({rt.kind})")
        meta = obj.get("metadata")
        if meta is None:
            meta = {}
        elif not isinstance(meta, dict):
            raise errors.BadRequest("metadata must be an object")
        rest = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        return {"apiVersion": api_version or rt.api_version, "kind": rt.kind, "metadata": meta, **rest}

    def _prepare_schema(self, rt: ResourceType, obj: dict[str, Any]) -> None:
        if rt.schema is not None:
            rt.schema.prune(obj)
            rt.schema.apply_defaults(obj)

    def _manager(self, actor: str, field_manager: str | None) -> str:
        if field_manager:
            return field_manager
        return (actor or "unknown").split("/", 1)[0]

    def _record_managed_fields(self, rt: ResourceType, old: dict[str, Any] | None, new: dict[str, Any],
                               manager: str, subresource: str | None) -> None:
        if not self.track_managed_fields:
            return
        try:
            from fakekube.patch.managed_fields import record_update
        except ImportError:
            return
        record_update(old, new, manager=manager, api_version=rt.api_version, subresource=subresource,
                      now=self._now(), schema=rt.patch_schema)

    # -- create ----------------------------------------------------------------------------------------

    def create(self, resource: str | ResourceType, body: dict[str, Any], namespace: str | None = None, *,
               actor: str = "fakekube", dry_run: bool = False, field_manager: str | None = None) -> dict[str, Any]:
        """POST: returns the stored object (201)."""
        rt = self.resolve(resource)
        ns = namespace or (body.get("metadata") or {}).get("namespace") if isinstance(body, dict) else namespace
        name = (body.get("metadata") or {}).get("name") if isinstance(body, dict) else None
        return self._run(
            lambda: self._begin("create", rt, ns, name, None, actor, dry_run=dry_run),
            lambda entry: self._create(rt, body, namespace, entry, dry_run, self._manager(actor, field_manager)),
        )

    def _create(self, rt: ResourceType, body: Any, namespace: str | None, entry: AuditEntry, dry_run: bool,
                manager: str) -> dict[str, Any]:
        obj = self._check_body(rt, body)
        target = self.storage_type(rt.storage) if rt.to_storage else rt
        meta = obj["metadata"]
        if target.namespaced:
            body_ns = meta.get("namespace")
            if namespace and body_ns and body_ns != namespace:
                raise errors.BadRequest(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            if namespace:
                meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        if meta.get("resourceVersion") not in (None, "") and str(meta["resourceVersion"]).isdigit():
            raise errors.InternalError("resourceVersion should not be set on objects to be created")
        meta.pop("resourceVersion", None)
        for system_field in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            meta.pop(system_field, None)
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = self._now()
        meta.pop("generation", None)
        target.strategy.prepare_for_create(obj)
        self._prepare_schema(target, obj)
        if target.storage == CRD_STORAGE:
            self._check_crd(obj)
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            meta["name"] = validation.generate_name(str(meta["generateName"]), self.name_rng)
        self._validate(target, obj, None)
        entry.namespace = meta.get("namespace") if target.namespaced else None
        self._check_namespace(target, meta.get("namespace", ""), creating=True)
        bucket = self._bucket(target)
        attempts = 1
        while True:
            key = self._key(target, meta.get("namespace"), meta["name"])
            existing = bucket.get(key)
            if existing is None:
                break
            if not generated:
                raise errors.AlreadyExists(target.plural, target.group, meta["name"],
                                           deleting=bool(existing.obj["metadata"].get("deletionTimestamp")))
            if attempts >= MAX_GENERATE_NAME_ATTEMPTS:
                raise errors.GenerateNameConflict(target.plural, target.group, meta["name"])
            attempts += 1
            meta["name"] = validation.generate_name(str(meta["generateName"]), self.name_rng)
        entry.name = meta["name"]
        entry.uid = meta["uid"]
        self._record_managed_fields(target, None, obj, manager, None)
        entry.code = 201
        if dry_run:
            return self._convert_out(rt, json_copy(obj))
        record = self._commit(target, key, obj, None, entry)
        assert record is not None
        return self._present(rt, record)

    # -- read ------------------------------------------------------------------------------------------

    def get(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
            subresource: str | None = None, actor: str = "fakekube") -> dict[str, Any]:
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            self._check_subresource(rt, subresource, "get")
            record = self._lookup(rt, namespace, name)
            entry.rv_before = entry.rv_after = record.rv
            if subresource == "scale":
                return self._scale_of(rt, record.obj)
            return self._present(rt, record)

        return self._run(lambda: self._begin("get", rt, namespace, name, subresource, actor), serve)

    def _check_subresource(self, rt: ResourceType, subresource: str | None, verb: str) -> None:
        if subresource and not rt.has_subresource(subresource):
            raise errors.NotFound(
                f"{rt.plural}/{subresource}", rt.group, "",
                message=f"the server could not find the requested resource ({verb} {rt.plural}/{subresource})",
            )

    def list(self, resource: str | ResourceType, namespace: str | None = None, *,
             label_selector: str | LabelSelector | None = None, field_selector: str | FieldSelector | None = None,
             limit: int | None = None, continue_: str | None = None, resource_version: str | None = None,
             resource_version_match: str | None = None, actor: str = "fakekube") -> dict[str, Any]:
        """LIST: a ``<Kind>List`` with ``metadata.resourceVersion`` (and ``continue`` when paginated)."""
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            labels = label_selector if isinstance(label_selector, LabelSelector) else LabelSelector.parse(
                label_selector)
            matches = self._matcher(rt, namespace, labels, field_selector)
            start = ""
            list_rv = self._rv
            if continue_:
                list_rv, start = self._decode_continue(continue_)
            elif resource_version not in (None, "", "0"):
                requested = self._parse_rv(resource_version)
                if requested > self._rv:
                    raise errors.Timeout(f"Too large resource version: {requested}, current: {self._rv}", 1)
                if resource_version_match == "Exact":
                    list_rv = requested
            objects = self._snapshot(rt, list_rv)
            if objects is None:
                if continue_:
                    raise errors.Expired(
                        "The provided continue parameter is too old to display a consistent list result. You "
                        "can start a new list without the continue parameter, or use the continue token in "
                        "this response to retrieve the remainder of the results. Continuing with the provided "
                        "token results in an inconsistent list - objects that were created, modified, or "
                        "deleted between the time the first chunk was returned and now may show up in the list."
                    )
                raise errors.Expired("The resourceVersion for the provided list is too old.")
            if list_rv < self._rv:
                keys = sorted(objects, key=_sort_key)
            else:
                candidates = self._label_candidates(rt, labels)
                keys = self._sorted_keys(rt) if candidates is None else sorted(candidates, key=_sort_key)
            if start:
                keys = [k for k in keys if _sort_key(k) >= start]
            items: list[Record] = []
            next_key = None
            for key in keys:
                record = objects[key]
                if not matches(record.obj):
                    continue
                if limit and len(items) >= limit:
                    next_key = key
                    break
                items.append(record)
            meta: dict[str, Any] = {"resourceVersion": str(list_rv)}
            if next_key is not None:
                meta["continue"] = self._encode_continue(list_rv, _sort_key(next_key))
                if not label_selector and not field_selector:
                    meta["remainingItemCount"] = len(keys) - keys.index(next_key)
            entry.rv_after = str(list_rv)
            return {
                "apiVersion": rt.api_version,
                "kind": rt.list_kind,
                "metadata": meta,
                "items": [self._present(rt, record) for record in items],
            }

        return self._run(lambda: self._begin("list", rt, namespace, None, None, actor), serve)

    def _label_candidates(self, rt: ResourceType, selector: LabelSelector) -> set[Key] | None:
        """Keys that can match, from the label index, when the selector pins a label to one value."""
        index = self._labels.get(rt.storage, {})
        best: set[Key] | None = None
        for requirement in selector.requirements:
            value = selector.requires_exact_match(requirement.key)
            if value is None:
                continue
            keys = index.get((requirement.key, value), set())
            if best is None or len(keys) < len(best):
                best = keys
        return best

    def _sorted_keys(self, rt: ResourceType) -> list[Key]:
        keys = self._order.get(rt.storage)
        if keys is None:
            keys = self._order[rt.storage] = sorted(self._bucket(rt), key=_sort_key)
        return keys

    def _snapshot(self, rt: ResourceType, rv: int) -> dict[Key, Record] | None:
        """Objects of ``rt`` as they were at ``rv``, rebuilt from the change history; None if too old."""
        bucket = self._bucket(rt)
        if rv >= self._rv:
            return bucket
        changes = self.hub.since(rv, rt.storage)
        if changes is None:
            return None
        past = dict(bucket)
        for change in reversed(changes):
            obj = change.new if change.new is not None else change.old
            assert obj is not None
            key = self._key(rt, obj["metadata"].get("namespace"), obj["metadata"]["name"])
            if change.old is None:
                past.pop(key, None)
            else:
                past[key] = Record(change.old)
        return past

    def _parse_rv(self, value: str) -> int:
        try:
            parsed = int(value)
        except (TypeError, ValueError):
            raise errors.BadRequest(f'invalid resource version "{value}"') from None
        if parsed < 0:
            raise errors.BadRequest(f'invalid resource version "{value}"')
        return parsed

    @staticmethod
    def _encode_continue(rv: int, start: str) -> str:
        token = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
        return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")

    @staticmethod
    def _decode_continue(token: str) -> tuple[int, str]:
        try:
            padded = token + "=" * (-len(token) % 4)
            data = json.loads(base64.urlsafe_b64decode(padded.encode()))
            if data.get("v") != "meta.k8s.io/v1" or not isinstance(data.get("rv"), int):
                raise ValueError
            return data["rv"], str(data.get("start", ""))
        except (ValueError, TypeError, AttributeError):
            raise errors.BadRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)") from None

    def _matcher(self, rt: ResourceType, namespace: str | None, label_selector: Any,
                 field_selector: Any) -> Callable[[dict[str, Any]], bool]:
        labels = label_selector if isinstance(label_selector, LabelSelector) else LabelSelector.parse(label_selector)
        fields = field_selector if isinstance(field_selector, FieldSelector) else FieldSelector.parse(field_selector)
        getters = {}
        for label in fields.fields():
            getter = rt.selectable_fields.get(label)
            if getter is None:
                raise errors.BadRequest(f'field label not supported: {label}')
            getters[label] = getter
        ns = namespace if rt.namespaced and namespace else None
        view = self._view(rt) if rt.from_storage else None

        def matches(obj: dict[str, Any]) -> bool:
            meta = obj["metadata"]
            if ns is not None and meta.get("namespace") != ns:
                return False
            if not labels.empty and not labels.matches(meta.get("labels") or {}):
                return False
            if getters:
                shown = view(obj) if view else obj
                return fields.matches({label: get(shown) for label, get in getters.items()})
            return True

        return matches

    # -- update ----------------------------------------------------------------------------------------

    def update(self, resource: str | ResourceType, body: dict[str, Any], namespace: str | None = None, *,
               name: str | None = None, subresource: str | None = None, actor: str = "fakekube",
               dry_run: bool = False, field_manager: str | None = None, based_on: str | None = None,
               ) -> dict[str, Any]:
        """PUT (of the object or of its ``status``/``scale`` subresource)."""
        rt = self.resolve(resource)
        meta = (body.get("metadata") or {}) if isinstance(body, dict) and isinstance(body.get("metadata"), dict) else {}
        name = name or meta.get("name")
        ns = namespace or meta.get("namespace")

        def serve(entry: AuditEntry) -> dict[str, Any]:
            self._check_subresource(rt, subresource, "update")
            if not name:
                raise errors.BadRequest("name is required for an update")
            if subresource == "scale":
                return self._update_scale(rt, ns, name, body, entry, dry_run, self._manager(actor, field_manager))
            obj = self._check_body(rt, body)
            return self._update(rt, ns, name, obj, subresource, entry, dry_run, self._manager(actor, field_manager))

        return self._run(
            lambda: self._begin("update", rt, ns, name, subresource, actor, dry_run=dry_run, based_on=based_on),
            serve,
        )

    def _update(self, rt: ResourceType, namespace: str | None, name: str, obj: dict[str, Any],
                subresource: str | None, entry: AuditEntry, dry_run: bool, manager: str,
                *, current: Record | None = None) -> dict[str, Any]:
        """The shared write path of PUT and PATCH: preconditions, strategy, validation, commit."""
        target = self.storage_type(rt.storage) if rt.to_storage else rt
        if rt.to_storage is not None:
            obj = rt.to_storage(obj)
        meta = obj["metadata"]
        if meta.get("name", name) != name:
            raise errors.BadRequest(f"the name of the object ({meta.get('name')}) does not match the name on the URL ({name})")
        record = current or self._lookup(target, namespace, name)
        old = record.obj
        old_meta = old["metadata"]
        entry.rv_before = record.rv
        entry.uid = old_meta["uid"]
        if target.namespaced and namespace and meta.get("namespace", namespace) != namespace:
            raise errors.BadRequest(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        meta["name"] = name
        if target.namespaced:
            meta["namespace"] = old_meta.get("namespace")
        uid = meta.get("uid")
        if uid and uid != old_meta["uid"]:
            raise errors.Conflict(
                target.plural, target.group, name,
                f"StorageError: invalid object, Code: 4, Key: /registry/{target.plural}/"
                f"{old_meta.get('namespace', '') + '/' if target.namespaced else ''}{name}, ResourceVersion: 0, "
                f"AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in object meta: "
                f"{old_meta['uid']}",
            )
        rv = meta.get("resourceVersion")
        if rv in (None, "", "0", 0):
            if not target.strategy.allow_unconditional_update:
                raise errors.Invalid(
                    target.plural, target.group, name,
                    [errors.invalid("metadata.resourceVersion", 0, "must be specified for an update")],
                )
        else:
            try:
                requested = int(rv)
            except (TypeError, ValueError):
                raise errors.InternalError(f'invalid resource version "{rv}"') from None
            if requested != int(record.rv):
                raise errors.Conflict(target.plural, target.group, name)
        meta["resourceVersion"] = record.rv
        # rest.BeforeUpdate: system fields come from the stored object.
        meta["uid"] = old_meta["uid"]
        meta["creationTimestamp"] = old_meta.get("creationTimestamp")
        for carried in ("deletionTimestamp", "deletionGracePeriodSeconds"):
            if carried in old_meta:
                meta[carried] = old_meta[carried]
            else:
                meta.pop(carried, None)
        if "generation" in old_meta:
            meta["generation"] = old_meta["generation"]
        else:
            meta.pop("generation", None)
        if subresource == "status":
            target.strategy.prepare_for_status_update(obj, old)
        else:
            target.strategy.prepare_for_update(obj, old)
            self._prepare_schema(target, obj)
            if target.storage == CRD_STORAGE:
                self._check_crd(obj)
        self._validate(target, obj, old)
        self._record_managed_fields(target, old, obj, manager, subresource)
        if obj == old:
            # etcd3 GuaranteedUpdate: identical bytes are not written, the resourceVersion stays.
            entry.rv_after = record.rv
            entry.notes.append("no-op")
            return self._present(rt, record)
        if (old_meta.get("deletionTimestamp") and not meta.get("finalizers")
                and not old_meta.get("deletionGracePeriodSeconds")):
            # ShouldDeleteDuringUpdate: the last finalizer is gone, so the update becomes the delete.
            if dry_run:
                return self._convert_out(rt, obj)
            self._commit(target, record_key(target, old), None, record, entry)
            entry.notes.append("deleted: last finalizer removed")
            return self._convert_out(rt, json_copy(obj))
        if dry_run:
            return self._convert_out(rt, json_copy(obj))
        new_record = self._commit(target, record_key(target, old), obj, record, entry)
        assert new_record is not None
        return self._present(rt, new_record)

    # -- patch -----------------------------------------------------------------------------------------

    def patch(self, resource: str | ResourceType, name: str, body: Any, namespace: str | None = None, *,
              patch_type: str = "application/merge-patch+json", subresource: str | None = None,
              actor: str = "fakekube", dry_run: bool = False, field_manager: str | None = None,
              force: bool | None = None, based_on: str | None = None) -> dict[str, Any]:
        """PATCH with a JSON patch, merge patch, strategic merge patch or apply patch."""
        rt = self.resolve(resource)
        kind = normalize_patch_type(patch_type)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            self._check_subresource(rt, subresource, "patch")
            if force is not None and kind != APPLY_PATCH:
                raise errors.Invalid("PatchOptions", "meta.k8s.io", "",
                                     [errors.forbidden("force", "may not be specified for non-apply patch")])
            if kind == APPLY_PATCH:
                return self._apply(rt, namespace, name, body, subresource, entry, dry_run, actor,
                                   field_manager, bool(force))
            record = self._lookup(rt, namespace, name)
            entry.rv_before = record.rv
            if subresource == "scale":
                scale = self._scale_of(rt, record.obj)
                patched = apply_patch(scale, body, kind, schema=None, custom=rt.custom)
                return self._update_scale(rt, namespace, name, patched, entry, dry_run,
                                          self._manager(actor, field_manager))
            # The engines never mutate their input, so the stored object is patched without a copy first.
            patched = apply_patch(self._view(rt)(record.obj), body, kind, schema=rt.patch_schema, custom=rt.custom)
            if not isinstance(patched.get("metadata"), dict):
                raise errors.BadRequest("metadata must be an object")
            return self._update(rt, namespace, name, patched, subresource, entry, dry_run,
                                self._manager(actor, field_manager), current=record)

        return self._run(
            lambda: self._begin("patch", rt, namespace, name, subresource, actor, dry_run=dry_run,
                                patch_type=kind, based_on=based_on),
            serve,
        )

    def _apply(self, rt: ResourceType, namespace: str | None, name: str, body: Any, subresource: str | None,
               entry: AuditEntry, dry_run: bool, actor: str, field_manager: str | None, force: bool) -> dict[str, Any]:
        from fakekube.patch.apply import parse_apply_body, server_side_apply, validate_apply_request

        config = parse_apply_body(body)
        validate_apply_request(config, field_manager=field_manager, api_version=rt.api_version, kind=rt.kind)
        assert field_manager is not None
        record = self._bucket(rt).get(self._key(rt, namespace, name))
        live = self._present(rt, record) if record is not None else None
        result = server_side_apply(live, config, manager=field_manager, force=force, schema=rt.patch_schema,
                                   api_version=rt.api_version, subresource=subresource, now=self._now())
        if record is None:
            if subresource:
                raise errors.NotFound(rt.plural, rt.group, name)
            result.setdefault("metadata", {})["name"] = name
            if rt.namespaced and namespace:
                result["metadata"]["namespace"] = namespace
            saved, self.track_managed_fields = self.track_managed_fields, False
            try:
                return self._create(rt, result, namespace, entry, dry_run, field_manager)
            finally:
                self.track_managed_fields = saved
        entry.rv_before = record.rv
        saved, self.track_managed_fields = self.track_managed_fields, False
        try:
            return self._update(rt, namespace, name, result, subresource, entry, dry_run, field_manager,
                                current=record)
        finally:
            self.track_managed_fields = saved

    # -- scale -----------------------------------------------------------------------------------------

    def _scale_of(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        assert rt.scale is not None
        from fakekube.resources import path_getter

        meta = obj["metadata"]
        spec = path_getter(rt.scale.spec_replicas_path)(obj)
        status = path_getter(rt.scale.status_replicas_path)(obj)
        scale: dict[str, Any] = {
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": int(spec)} if spec else {},
            "status": {"replicas": int(status) if status else 0},
        }
        if rt.scale.label_selector_path:
            selector = path_getter(rt.scale.label_selector_path)(obj)
            if selector:
                scale["status"]["selector"] = selector
        elif rt.kind == "Deployment":
            match = ((obj.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
            if match:
                scale["status"]["selector"] = ",".join(f"{k}={v}" for k, v in sorted(match.items()))
        return scale

    def _update_scale(self, rt: ResourceType, namespace: str | None, name: str, body: Any, entry: AuditEntry,
                      dry_run: bool, manager: str) -> dict[str, Any]:
        assert rt.scale is not None
        if not isinstance(body, dict) or not isinstance((body.get("spec") or {}).get("replicas", 0), int):
            raise errors.BadRequest("the body of the request must be an autoscaling/v1 Scale")
        record = self._lookup(rt, namespace, name)
        obj = record.copy()
        rv = (body.get("metadata") or {}).get("resourceVersion")
        obj["metadata"]["resourceVersion"] = rv or record.rv
        target: dict[str, Any] = obj
        parts = [p for p in rt.scale.spec_replicas_path.split(".") if p]
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = (body.get("spec") or {}).get("replicas", 0)
        saved_unconditional = rt.strategy.allow_unconditional_update
        result = self._update(rt, namespace, name, obj, None, entry, dry_run, manager, current=record)
        rt.strategy.allow_unconditional_update = saved_unconditional
        return self._scale_of(rt, result)

    # -- delete ----------------------------------------------------------------------------------------

    def delete(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None, orphan_dependents: bool | None = None,
               dry_run: bool = False, actor: str = "fakekube") -> dict[str, Any]:
        """DELETE: the object while it is kept for finalizers (or graceful deletion), else a Success Status."""
        rt = self.resolve(resource)
        return self._run(
            lambda: self._begin("delete", rt, namespace, name, None, actor, dry_run=dry_run),
            lambda entry: self._delete(rt, namespace, name, entry, propagation_policy, grace_period_seconds,
                                       preconditions or {}, orphan_dependents, dry_run),
        )

    def _delete(self, rt: ResourceType, namespace: str | None, name: str, entry: AuditEntry,
                policy: str | None, grace: int | None, preconditions: dict[str, str],
                orphan_dependents: bool | None, dry_run: bool) -> dict[str, Any]:
        if policy not in (None, "Orphan", "Background", "Foreground"):
            raise errors.Invalid("DeleteOptions", "meta.k8s.io", "", [errors.not_supported(
                "propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"])])
        if policy is not None and orphan_dependents is not None:
            raise errors.Invalid("DeleteOptions", "meta.k8s.io", "", [errors.invalid(
                "propagationPolicy", policy, "orphanDependents and deletionPropagation cannot be both set")])
        if grace is not None and grace < 0:
            grace = 0
        record = self._lookup(rt, namespace, name)
        obj = record.obj
        meta = obj["metadata"]
        entry.rv_before = record.rv
        entry.uid = meta["uid"]
        kind_resource = errors.qualified(rt.kind, rt.group)
        if preconditions.get("uid") and preconditions["uid"] != meta["uid"]:
            raise errors.Conflict(rt.kind, rt.group, name,
                                  f"the UID in the precondition ({preconditions['uid']}) does not match the UID in "
                                  f"record ({meta['uid']}). The object might have been deleted and then recreated")
        if preconditions.get("resourceVersion") and preconditions["resourceVersion"] != record.rv:
            raise errors.Conflict(rt.kind, rt.group, name,
                                  f"the ResourceVersion in the precondition ({preconditions['resourceVersion']}) does "
                                  f"not match the ResourceVersion in record ({record.rv}). The object might have "
                                  "been modified")
        del kind_resource
        new = json_copy(obj)
        new_meta = new["metadata"]
        finalizers = list(new_meta.get("finalizers") or [])
        # deletionFinalizersForGarbageCollection: the policy decides the orphan / foregroundDeletion finalizer.
        if orphan_dependents is not None:
            policy = "Orphan" if orphan_dependents else "Background"
        if policy == "Orphan":
            finalizers = [f for f in finalizers if f != "foregroundDeletion"]
            if "orphan" not in finalizers:
                finalizers.append("orphan")
        elif policy == "Foreground":
            finalizers = [f for f in finalizers if f != "orphan"]
            if "foregroundDeletion" not in finalizers:
                finalizers.append("foregroundDeletion")
        elif policy == "Background":
            finalizers = [f for f in finalizers if f not in GC_FINALIZERS]
        is_namespace = rt.storage == "/namespaces"
        graceful = rt.strategy.graceful_delete
        grace_seconds = rt.strategy.grace_period(obj, grace) if graceful else 0
        already_deleting = bool(meta.get("deletionTimestamp"))
        keep = bool(finalizers) or grace_seconds > 0 or (is_namespace and (obj.get("spec") or {}).get("finalizers"))
        if not keep:
            entry.code = 200
            if dry_run:
                return self._success(rt, name, meta["uid"])
            self._commit(rt, record_key(rt, obj), None, record, entry)
            return self._success(rt, name, meta["uid"])
        if finalizers:
            new_meta["finalizers"] = finalizers
        else:
            new_meta.pop("finalizers", None)
        now = self.clock.now()
        if graceful and grace_seconds > 0:
            from datetime import timedelta

            deadline = rfc3339(now + timedelta(seconds=grace_seconds))
            current_grace = meta.get("deletionGracePeriodSeconds")
            if already_deleting and current_grace is not None and current_grace <= grace_seconds:
                return self._present(rt, record)  # a repeated graceful delete that does not shorten it
            new_meta["deletionTimestamp"] = deadline
            new_meta["deletionGracePeriodSeconds"] = grace_seconds
        else:
            if not already_deleting:
                new_meta["deletionTimestamp"] = rfc3339(now)
            new_meta["deletionGracePeriodSeconds"] = 0
        if not already_deleting and "generation" in new_meta and new_meta["generation"] > 0:
            new_meta["generation"] += 1
        if is_namespace:
            new.setdefault("status", {})["phase"] = "Terminating"
        if new == obj:
            return self._present(rt, record)
        if dry_run:
            return self._convert_out(rt, new)
        new_record = self._commit(rt, record_key(rt, obj), new, record, entry)
        assert new_record is not None
        return self._present(rt, new_record)

    def _success(self, rt: ResourceType, name: str, uid: str) -> dict[str, Any]:
        details = {"name": name, "kind": rt.plural, "uid": uid}
        if rt.group:
            details["group"] = rt.group
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}

    def delete_collection(self, resource: str | ResourceType, namespace: str | None = None, *,
                          label_selector: str | None = None, field_selector: str | None = None,
                          propagation_policy: str | None = None, grace_period_seconds: int | None = None,
                          dry_run: bool = False, actor: str = "fakekube") -> dict[str, Any]:
        """DELETE on a collection: deletes every match; returns the list of what was deleted."""
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            matches = self._matcher(rt, namespace, label_selector, field_selector)
            keys = sorted((k for k, r in self._bucket(rt).items() if matches(r.obj)), key=_sort_key)
            deleted = []
            for key in keys:
                record = self._bucket(rt).get(key)
                if record is None:
                    continue
                deleted.append(self._present(rt, record))
                self.delete(rt, key[1], key[0] or None, propagation_policy=propagation_policy,
                            grace_period_seconds=grace_period_seconds, dry_run=dry_run, actor=entry.actor)
            entry.rv_after = str(self._rv)
            return {"apiVersion": rt.api_version, "kind": rt.list_kind,
                    "metadata": {"resourceVersion": str(self._rv)}, "items": deleted}

        return self._run(lambda: self._begin("deletecollection", rt, namespace, None, None, actor,
                                             dry_run=dry_run), serve)

    # -- watch -----------------------------------------------------------------------------------------

    def watch(self, resource: str | ResourceType, namespace: str | None = None, *,
              label_selector: str | None = None, field_selector: str | None = None,
              resource_version: str | None = None, allow_bookmarks: bool = False,
              send_initial_events: bool | None = None, on_event: Callable[[WatchEvent], None] | None = None,
              actor: str = "fakekube") -> Watch:
        """WATCH from now (``resource_version`` N), or with synthetic ADDED events first (unset or "0").

        A too-old resourceVersion gives a watch whose only event is an ERROR carrying a 410 Expired Status,
        as the real server streams it.
        """
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> Watch:
            matches = self._matcher(rt, namespace, label_selector, field_selector)
            watch = Watch(self.hub, rt.storage, matches, self._view(rt), on_event)
            watch.allow_bookmarks = allow_bookmarks  # type: ignore[attr-defined]
            initial = resource_version in (None, "", "0") or bool(send_initial_events)
            if initial:
                for key in sorted(self._bucket(rt), key=_sort_key):
                    obj = self._bucket(rt)[key].obj
                    if matches(obj):
                        watch.send(WatchEvent(ADDED, self._view(rt)(obj)))
                if send_initial_events and allow_bookmarks:
                    watch.send(WatchEvent(BOOKMARK, self._bookmark(rt, initial_events_end=True)))
            else:
                since = self._parse_rv(resource_version or "0")
                changes = self.hub.since(since, rt.storage) if since < self._rv else []
                if changes is None:
                    oldest = self.hub.oldest_rv() or self._rv
                    watch.close_with_error(errors.Expired(
                        f"too old resource version: {since} ({oldest - 1})").status)
                    entry.notes.append("410 Expired")
                    return watch
                for change in changes:
                    watch.offer(change)
            self.hub.add(watch)
            entry.rv_after = str(self._rv)
            return watch

        return self._run(lambda: self._begin("watch", rt, namespace, None, None, actor), serve)

    def _bookmark(self, rt: ResourceType, *, initial_events_end: bool = False) -> dict[str, Any]:
        meta: dict[str, Any] = {"resourceVersion": str(self._rv)}
        if initial_events_end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return {"apiVersion": rt.api_version, "kind": rt.kind, "metadata": meta}

    def bookmark(self, resource: str | ResourceType) -> WatchEvent:
        """A BOOKMARK event at the current resourceVersion (fronts send these on idle watches).

        Taken under the store lock, so every change up to its resourceVersion has already been offered to the
        watchers: a front that sends its queued events first and then the bookmark never skips one."""
        rt = self.resolve(resource)
        with self._lock:
            return WatchEvent(BOOKMARK, self._bookmark(rt))

    def compact(self) -> None:
        """Forget the change history, as etcd compaction does: older resourceVersions now give 410."""
        with self._lock:
            self.hub.compact(self._rv)

    # -- conveniences ----------------------------------------------------------------------------------

    def load(self, source: str | Any, *, actor: str = "fakekube") -> list[dict[str, Any]]:
        """Create every object in a manifest (dict, list, YAML text or file); CRDs register their kinds."""
        created = []
        for doc in load_manifests(source):
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
            records = [r for k, r in sorted(self._bucket(rt).items(), key=lambda kv: _sort_key(kv[0]))
                       if namespace is None or k[0] == namespace]
        return [self._present(rt, r) for r in records]

    def count(self, resource: str | ResourceType) -> int:
        return len(self._bucket(self.resolve(resource)))


def _index_fields(obj: dict[str, Any]) -> tuple[Any, Any]:
    meta = obj["metadata"]
    return meta.get("labels"), meta.get("ownerReferences")


def record_key(rt: ResourceType, obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"]) if rt.namespaced else ("", meta["name"])
