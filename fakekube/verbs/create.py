"""POST: create, with generateName, system fields, the kind's create strategy and validation."""

from __future__ import annotations

from typing import Any

from fakekube import decoding, errors, namerules
from fakekube.audit import AuditEntry
from fakekube.decoding import FieldReport, check_type_meta
from fakekube.identity import ANONYMOUS, UserInfo
from fakekube.jsonvalues import json_copy
from fakekube.kinds.context import WriteContext
from fakekube.patch.managed_fields import record_update
from fakekube.patch.zero import zero_object
from fakekube.records import (
    MAX_GENERATE_NAME_ATTEMPTS,
)
from fakekube.resources import ResourceType
from fakekube.strategies import CreateRequest, Strategy
from fakekube.verbs import putcreate
from fakekube.verbs.custom_writes import untyped_custom_status
from fakekube.verbs.defaulted import decoded_defaulted, with_placeholders
from fakekube.verbs.rawdata import remember_spelling, spelled


class CreateVerbs:
    """``create``."""

    # -- create ----------------------------------------------------------------------------------------

    def create(self, resource: str | ResourceType, body: dict[str, Any], namespace: str | None = None, *,
               actor: str = "fakekube", dry_run: bool = False, field_manager: str | None = None,
               user: UserInfo | None = None, name: str | None = None,
               subresource: str | None = None, field_validation: str | None = None) -> dict[str, Any]:
        """POST: returns the stored object (201).

        ``user`` is who asks (anonymous when not given): the kinds whose create is answered rather than stored
        (reviews) answer for them. ``name`` and ``subresource`` address a create on a subresource of an object
        (``serviceaccounts``, ``name="builder"``, ``subresource="token"``: a TokenRequest).
        ``field_validation`` is the request's ``fieldValidation`` (``Ignore``, ``Warn`` — the default —,
        ``Strict``); warnings land on the request's audit entry.
        """
        rt = self.resolve(resource)
        answering = self._answering_strategy(rt, subresource)
        if answering is not None:
            meta = body.get("metadata") if isinstance(body, dict) else None
            body_namespace = meta.get("namespace") if isinstance(meta, dict) else None
            ns = (namespace or body_namespace) if rt.namespaced else None
            request = CreateRequest(self, ns, name, user or ANONYMOUS, dry_run)
            manager = self._manager(actor, field_manager)

            def answer(entry: AuditEntry) -> dict[str, Any]:
                report = FieldReport(decoding.field_validation(field_validation, "CreateOptions"), entry.warnings)
                return self._answer(rt, answering, body, request, entry, manager, subresource, report)

            return self._run(lambda: self._begin("create", rt, ns, name, subresource, actor, dry_run=dry_run),
                             answer)
        meta = body.get("metadata") if isinstance(body, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        ns = namespace or meta.get("namespace")
        name = meta.get("name")
        self._namespace_given(rt, ns, name or meta.get("generateName"), "create")

        def serve(entry: AuditEntry) -> dict[str, Any]:
            report = FieldReport(decoding.field_validation(field_validation, "CreateOptions"), entry.warnings)
            return self._create(rt, body, namespace, entry, dry_run, self._manager(actor, field_manager), report,
                                user=user)

        return self._run(lambda: self._begin("create", rt, ns, name, None, actor, dry_run=dry_run), serve,
                         request=body)

    def _answering_strategy(self, rt: ResourceType, subresource: str | None) -> Strategy | None:
        """The strategy that answers this create without storing, or None for an ordinary create."""
        if subresource is None:
            return rt.strategy if rt.strategy.answers_create else None
        strategy = rt.strategy.create_subresources.get(subresource)
        if strategy is None:
            raise errors.MethodNotSupported(f"{rt.plural}/{subresource}", rt.group, "create")
        return strategy

    def _answer(self, rt: ResourceType, strategy: Strategy, body: Any, request: CreateRequest,
                entry: AuditEntry, manager: str, subresource: str | None,
                report: FieldReport | None = None) -> dict[str, Any]:
        if request.name is not None:
            self._lookup(rt, request.namespace, request.name)  # a subresource of a missing object is a 404
            api_version, kind = strategy.body_api_version, strategy.body_kind
        else:
            api_version, kind = rt.api_version, rt.kind
        obj = _typed_body(body, api_version, kind)
        if request.name is None and rt.model is not None:
            # Decoded as any create body is (a review's unknown field is refused under Strict, dropped else).
            decoded = decoding.decode_body(rt, obj)
            obj = decoded.value
            if report is not None:
                report.body(rt, list(getattr(body, "duplicate_fields", ())), decoded.unknown,
                            list(getattr(body, "strict_problems", ())))
        strategy.default(obj)
        if self.track_managed_fields:
            # The create handler runs the field manager before the REST storage answers, so an answer that
            # keeps the request's metadata (a TokenRequest, a review) carries the requester's entry.
            record_update(None, obj, manager=manager, api_version=api_version, subresource=subresource,
                          now=self._now(), schema=rt.patch_schema if request.name is None else None,
                          zero=zero_object(api_version, kind))
        answer = strategy.answer(obj, request)
        entry.code = 201
        return answer

    def _create(self, rt: ResourceType, body: Any, namespace: str | None, entry: AuditEntry, dry_run: bool,
                manager: str | None, report: FieldReport | None = None, *,
                user: UserInfo | None = None, put_name: str | None = None) -> dict[str, Any]:
        """``put_name``: the create is a PUT to that missing name (the kind's AllowCreateOnUpdate,
        fakekube.verbs.putcreate)."""
        # A template's repeated spec is decoded and defaulted once (verbs.defaulted); the rest as usual.
        defaulted = decoded_defaulted(rt, body)
        if defaulted is None:
            obj = self._check_body(rt, body, report)
        else:
            obj = self._check_body(rt, with_placeholders(body, defaulted), report)
            obj.update(defaulted)
        target = self.storage_type(rt.storage) if rt.to_storage else rt
        meta = obj["metadata"]
        if put_name is not None:
            putcreate.check_put_create(target, namespace, put_name, meta)
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
        # The storage layer, not the handler, refuses a resourceVersion (after validation), and a dry run never
        # reaches it: its answer keeps the one given. A generation stays unless the kind's strategy sets it.
        given_rv = meta.pop("resourceVersion", None)
        stored_rv = given_rv if put_name is None else None  # the update path's storage drops it without a word
        for system_field in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            meta.pop(system_field, None)
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = self._now()
        # rest.BeforeCreate leaves generation alone: a kind whose PrepareForCreate does not set it (ConfigMap,
        # Lease, ...) keeps the client's value; 0 is Go's zero, which omitempty leaves out.
        if not meta.get("generation"):
            meta.pop("generation", None)
        strategy = target.strategy
        if defaulted is None:
            strategy.default(obj)
        # A custom resource's schema defaults are applied as its body is decoded, so its writer owns them.
        self._prepare_schema(target, obj)
        # The field manager sees the decoded, defaulted request, before admission and the strategy change it
        # (a status the create drops is a reset field, not the manager's).
        reset = strategy.main_resets or (("status",) if strategy.has_status else ())
        untyped = untyped_custom_status(target, obj, None)
        untracked = {key: obj.pop(key) for key in reset if key in obj}
        self._record_managed_fields(target, None, obj, manager, None, request=rt, untyped=untyped)
        obj.update(untracked)
        ctx = self._write_context(meta.get("namespace") if target.namespaced else None, dry_run=dry_run,
                                  user=user or ANONYMOUS)
        try:
            return self._create_admitted(rt, target, obj, entry, dry_run, manager, ctx, given_rv, stored_rv,
                                         spelled(strategy.raw_extension_fields, body))
        except BaseException:
            ctx.rollback()
            raise

    def _create_admitted(self, rt: ResourceType, target: ResourceType, obj: dict[str, Any], entry: AuditEntry,
                         dry_run: bool, manager: str | None, ctx: WriteContext, given_rv: Any = None,
                         stored_rv: Any = None, raw_spelled: dict[str, str] | None = None) -> dict[str, Any]:
        """Mutating admission, the registry's BeginCreate and BeforeCreate, validation, the commit. What the
        write took from the store's allocators (``ctx``) goes back when it fails or is a dry run. ``given_rv``: the
        body's resourceVersion (a dry run's answer shows it); ``stored_rv``: the one storage sees (a 500);
        ``raw_spelled``: the raw members the body spelled in other than compact form (fakekube.verbs.rawdata)."""
        meta = obj["metadata"]
        strategy = target.strategy
        if target.custom:
            self._refuse_create_while_terminating(target, str(meta.get("name") or ""))
        # The namespace must exist before admission plugins look things up in it (NamespaceLifecycle runs first).
        self._check_namespace(target, meta.get("namespace", ""), creating=True,
                              name=str(meta.get("name") or meta.get("generateName") or ""))
        strategy.admit(obj, None, ctx)
        self._mutating_admission(rt, "CREATE", obj, None, meta.get("namespace"), None, dry_run, entry, ctx)
        # The registry draws a generated name after admission, before BeginCreate and PrepareForCreate, which
        # may use it (a Job's job-name labels): apiserver pkg/registry/generic/registry/store.go create.
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            entry.generate_name = str(meta["generateName"])
            meta["name"] = namerules.generate_name(entry.generate_name, self.name_rng)
        strategy.begin_create(obj, ctx)
        strategy.prepare_for_create(obj)
        self._prepare_schema(target, obj)
        checked = self._validate(target, obj, None, request=rt)
        if strategy.create_warnings is not None:
            entry.warnings.extend(strategy.create_warnings(obj))
        self._validating_admission(entry, "CREATE", rt, obj, None, None, dry_run, ctx.user)
        entry.namespace = meta.get("namespace") if target.namespaced else None
        self._validating_webhooks(rt, "CREATE", obj, None, meta.get("namespace"), str(meta["name"]), None, dry_run,
                                  entry, ctx)
        if not dry_run and _stored_version(stored_rv):
            # apiserver storage/etcd3 store.Create, before the key is looked at; a dry run stops in
            # registry/generic/registry/dryrun.go DryRunnableStorage.Create, which has no such check.
            raise errors.InternalError("resourceVersion should not be set on objects to be created")
        if target.conversion is not None and not dry_run:
            # The etcd encode converts to the storage version (without the lock: the name is looked at after).
            obj = self._webhook_to_storage(target, obj)
            meta = obj["metadata"]
        bucket = self._bucket(target)
        attempts = 1
        while True:
            key = self._key(target, meta.get("namespace"), meta["name"])
            existing = bucket.get(key)
            if existing is None:
                break
            if not generated:
                # the requested resource names the refusal (store.go qualifiedResourceFromContext), not the storage
                raise errors.AlreadyExists(rt.plural, rt.group, meta["name"],
                                           deleting=bool(existing.obj["metadata"].get("deletionTimestamp")))
            if attempts >= MAX_GENERATE_NAME_ATTEMPTS:
                raise errors.GenerateNameConflict(rt.plural, rt.group, meta["name"])
            attempts += 1
            meta["name"] = namerules.generate_name(str(meta["generateName"]), self.name_rng)
        entry.name = meta["name"]
        entry.uid = meta["uid"]
        entry.code = 201
        if dry_run:
            ctx.rollback()
            answer = json_copy(obj)
            if given_rv not in (None, ""):
                answer["metadata"]["resourceVersion"] = given_rv
            return self._convert_out(rt, answer)
        record = self._commit(target, key, obj, None, entry, checked)
        ctx.commit()
        assert record is not None
        if raw_spelled is not None:
            remember_spelling(self.raw_spellings, meta["uid"], raw_spelled)
        return self._present(rt, record)


def _typed_body(body: Any, api_version: str, kind: str) -> dict[str, Any]:
    """A copy of an answered create's body, with its apiVersion and kind checked and filled in."""
    if not isinstance(body, dict):
        raise errors.BadRequest(f"the body of the request must be a JSON object describing a {kind}, "
                                f"not {type(body).__name__}")
    obj = json_copy(body)
    check_type_meta(obj)
    if obj.get("apiVersion") not in (None, "", api_version):
        raise errors.BadRequest(f"the API version in the data ({obj['apiVersion']}) does not match the expected "
                                f"API version ({api_version})")
    if obj.get("kind") not in (None, "", kind):
        raise errors.BadRequest(f"the kind in the data ({obj['kind']}) does not match the expected kind ({kind})")
    meta = obj.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise errors.BadRequest("metadata must be an object")
    rest = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": api_version, "kind": kind, "metadata": meta or {}, **rest}


def _stored_version(rv: Any) -> bool:
    """Whether the storage's versioner reads ``rv`` as a version (``strconv.ParseUint``, not 0)."""
    text = str(rv) if rv is not None else ""
    return text.isascii() and text.isdigit() and int(text) != 0
