"""PUT and PATCH, including server-side apply: the shared update path with preconditions and strategies."""

from __future__ import annotations

import json
from typing import Any

from fakekube import decoding, errors, gojson
from fakekube.audit import AuditEntry
from fakekube.decoding import FieldReport
from fakekube.identity import UserInfo
from fakekube.jsonvalues import json_copy, json_equal
from fakekube.kinds.context import WriteContext
from fakekube.patch import (
    APPLY_PATCH,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    apply_patch,
    normalize_patch_type,
)
from fakekube.patch.apply import parse_apply_body, server_side_apply, validate_apply_request
from fakekube.patch.jsonutil import go_json_kind
from fakekube.patch.zero import zero_object
from fakekube.records import (
    Record,
    record_key,
)
from fakekube.resources import ResourceType
from fakekube.strategies import Strategy, bump_generation_if
from fakekube.verbs import noop, patched_type, putcreate, rawdata
from fakekube.verbs.custom_writes import custom_may_share, custom_stale_put_is_plain, untyped_custom_status
from fakekube.verbs.scale import scale_type_error
from fakekube.verbs.shared_fields import (
    patch_leaves_managed_fields,
    put_back,
    stored_entries,
    with_placeholder,
)
from fakekube.verbs.shared_patch import may_share, own_top_levels
from fakekube.verbs.unchanged import (
    check_update_body,
    decode_patched_fields,
    json_patch_fields,
    same_as_stored,
)


class WriteVerbs:
    """``update`` and ``patch``."""

    # -- update ----------------------------------------------------------------------------------------

    def update(self, resource: str | ResourceType, body: dict[str, Any], namespace: str | None = None, *,
               name: str | None = None, subresource: str | None = None, actor: str = "fakekube",
               dry_run: bool = False, field_manager: str | None = None, based_on: str | None = None,
               field_validation: str | None = None, user: UserInfo | None = None) -> dict[str, Any]:
        """PUT (of the object or of its ``status``/``scale`` subresource); ``field_validation`` as for create;
        ``user`` as for create (a PUT to a missing object of a kind that allows it creates it)."""
        rt = self.resolve(resource)
        meta = (body.get("metadata") or {}) if isinstance(body, dict) and isinstance(body.get("metadata"), dict) else {}
        name = name or meta.get("name")
        ns = namespace or meta.get("namespace")
        self._namespace_given(rt, ns, name, "update")

        def serve(entry: AuditEntry) -> dict[str, Any]:
            self._check_subresource(rt, subresource, "update")
            if not name:
                raise errors.BadRequest("name is required for an update")
            for field, value in (("name", name), ("namespace", ns)):
                if value is not None and not isinstance(value, str):
                    raise errors.BadRequest(f"json: cannot unmarshal {go_json_kind(value)} into Go struct field "
                                            f"ObjectMeta.metadata.{field} of type string")
            sent_meta = body.get("metadata") if isinstance(body, dict) else None
            if subresource != "scale" and (sent_meta is None or isinstance(sent_meta, dict)) and not meta.get("name"):
                # checkName: the body must name the object (metadata of another type is a decoding error).
                raise patched_type.undeterminable(name)
            report = FieldReport(decoding.field_validation(field_validation, "UpdateOptions"), entry.warnings)
            if subresource == "scale":
                refused = scale_type_error(self.registry, rt, body)
                if refused is not None:
                    raise refused
                return self._update_scale(rt, ns, name, body, entry, dry_run, self._manager(actor, field_manager))
            stored = self._bucket(rt).get(self._key(rt, ns, name))
            if stored is None and subresource is None and self.storage_type(rt.storage).strategy.allow_create_on_update:
                # AllowCreateOnUpdate: the PUT becomes a create (fakekube.verbs.putcreate).
                return self._create(rt, body, ns, entry, dry_run, self._manager(actor, field_manager), report,
                                    user=user, put_name=name)
            noop_key = None
            sends_stored = stored is not None and noop.sends_stored(body, stored)
            if sends_stored:
                noop_key = noop.key(rt, subresource, report.directive, self.track_managed_fields, dry_run)
                # (a raw member's spelling, not in the key, may differ: fakekube.verbs.rawdata)
                if noop_key is not None and noop.repeats(stored, noop_key) and not rt.strategy.raw_extension_fields:
                    return self._repeat_noop(rt, stored, entry)
            elif stored is not None:  # (a body that is the stored version names its resourceVersion)
                self._refuse_stale_put(rt, stored, name, body, entry, report)
            old_shown = None
            if stored is not None and rt.conversion is not None:
                # GuaranteedUpdate decodes the live object into the request's version first.
                old_shown = self._webhook_live(rt, stored, self._key(rt, ns, name))
            obj = self._check_body(rt, body, report, stored, sends_stored=sends_stored)
            return self._update(rt, ns, name, obj, subresource, entry, dry_run, self._manager(actor, field_manager),
                                current=stored, noop_key=noop_key, old_shown=old_shown,
                                sent_empty=rt.strategy.sent_empty_list(body),
                                spelled=rawdata.spelled(rt.strategy.raw_extension_fields, body))

        rv = meta.get("resourceVersion")
        return self._run(
            lambda: self._begin("update", rt, ns, name, subresource, actor, dry_run=dry_run, based_on=based_on,
                                request_rv=rv if isinstance(rv, str) else None),
            serve, request=body,
        )

    def _refuse_stale_put(self, rt: ResourceType, record: Record, name: str, body: Any,
                          entry: AuditEntry, report: FieldReport) -> None:
        """Answer a PUT with a stale resourceVersion before copying its body (controllers send many).

        Only the plain case is short-cut — a decodable body for the URL's name whose resourceVersion is a
        number other than the stored one and whose uid (if any) matches — so errors the full path reports
        first (400s, the uid precondition) keep their order; everything else takes the full path.
        """
        meta = body.get("metadata") if isinstance(body, dict) else None
        if not isinstance(meta, dict) or rt.to_storage is not None or meta.get("name", name) != name:
            return
        rv = meta.get("resourceVersion")
        if not isinstance(rv, str) or not rv.isdigit() or int(rv) in (0, int(record.rv)):
            return  # (resourceVersion 0 is an unconditional update, or a 422 where the kind allows none)
        if meta.get("uid") not in (None, "", record.obj["metadata"]["uid"]):
            return
        for key in ("apiVersion", "kind"):
            if body.get(key) not in (None, rt.api_version if key == "apiVersion" else rt.kind):
                return
        if rt.model is not None:
            # What decoding the body reports comes first, as on the full path (a 400, or warnings).
            unknown = (check_update_body(rt, body, record, self.hub.stored_at(int(rv), rt.storage))
                       if same_as_stored(rt, record.obj) else decoding.check_body(rt, body))
            report.body(rt, list(getattr(body, "duplicate_fields", ())), unknown,
                        list(getattr(body, "strict_problems", ())))
        elif rt.custom and not custom_stale_put_is_plain(self.registry.kubernetes_version, rt, body, record):
            return  # what the full path reports first (a warning, a 400 or 422) would be lost
        entry.rv_before = record.rv
        entry.uid = record.obj["metadata"]["uid"]
        raise errors.Conflict(rt.plural, rt.group, name)

    def _repeat_noop(self, rt: ResourceType, record: Record, entry: AuditEntry) -> dict[str, Any]:
        """A PUT of ``record``'s version back over it that was a no-op before (see verbs.noop): what the full
        path answers and audits for it."""
        entry.rv_before = entry.rv_after = record.rv
        entry.uid = record.obj["metadata"]["uid"]
        entry.notes.append("no-op")
        return self._convert_out(rt, record.read())

    def _update(self, rt: ResourceType, namespace: str | None, name: str, obj: dict[str, Any],
                subresource: str | None, entry: AuditEntry, dry_run: bool, manager: str | None,
                *, current: Record | None = None, noop_key: tuple[Any, ...] | None = None,
                uid_precondition: bool = True, sent_empty: bool = False,
                spelled: dict[str, str] | None = None, old_shown: dict[str, Any] | None = None) -> dict[str, Any]:
        """The shared write path of PUT and PATCH: preconditions, strategy, validation, commit. ``noop_key``: the
        request is a PUT of ``current``'s version itself (verbs.noop), which is to remember a no-op.
        ``uid_precondition``: a PUT's uid is a precondition (a 409); a patch's is a field, which validation
        refuses to change (handlers ``patch.go`` passes no object to the update, so no preconditions).
        ``old_shown``: the live object converted to the request's version by the CRD's conversion webhook (the
        strategy, admission and validation compare the new object with it).
        ``sent_empty``: the decoded document held an empty list the strategy's reflect.DeepEqual sees
        (``Strategy.sent_empty_list``). ``spelled``: the raw members the new object holds in other than compact
        spelling (fakekube.verbs.rawdata; a patch re-encodes, so none); None keeps the stored ones (an apply)."""
        target = self.storage_type(rt.storage) if rt.to_storage else rt
        if rt.to_storage is not None:
            obj = rt.to_storage(obj)
        meta = obj["metadata"]
        if not isinstance(meta, dict):
            raise errors.BadRequest("metadata must be an object")
        if meta.get("name", name) != name:
            raise errors.BadRequest(f"the name of the object ({meta.get('name')}) does not match the name on the URL ({name})")
        record = current or self._lookup(target, namespace, name)
        old = old_shown if old_shown is not None else record.obj
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
        if uid and uid != old_meta["uid"] and uid_precondition:
            raise putcreate.uid_precondition_failed(target, old_meta.get("namespace"), name, uid, old_meta["uid"])
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
        # rest.BeforeUpdate: system fields come from the stored object (the uid only when none is given).
        if uid_precondition or not uid:
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
        strategy = target.strategy
        defaulted = strategy.defaulted_fields
        if defaulted is None or any(obj.get(key) != old.get(key) for key in defaulted):
            strategy.default_update(obj, old)
        # What the field manager sees of the conversion to the versioned type, before the hooks change the object.
        annotations = strategy.manager_annotations(obj) if manager is not None else None
        if not _hooks_take_context(strategy):
            # Nothing can reach the context (the base hooks ignore it), so there is nothing to undo or finish.
            return self._update_admitted(rt, target, obj, record, subresource, entry, dry_run, manager, None,
                                         noop_key, annotations, sent_empty, spelled, old_shown)
        ctx = self._write_context(old_meta.get("namespace") if target.namespaced else None, subresource, dry_run)
        try:
            result = self._update_admitted(rt, target, obj, record, subresource, entry, dry_run, manager, ctx,
                                           noop_key, annotations, sent_empty, spelled, old_shown)
        except BaseException:
            ctx.rollback()
            raise
        if dry_run:
            ctx.rollback()
        else:
            ctx.commit()
        return result

    def _update_admitted(self, rt: ResourceType, target: ResourceType, obj: dict[str, Any], record: Record,
                         subresource: str | None, entry: AuditEntry, dry_run: bool, manager: str | None,
                         ctx: WriteContext | None, noop_key: tuple[Any, ...] | None = None,
                         annotations: dict[str, str] | None = None, sent_empty: bool = False,
                         spelled: dict[str, str] | None = None,
                         old_shown: dict[str, Any] | None = None) -> dict[str, Any]:
        """Mutating admission, the registry's BeginUpdate and BeforeUpdate, validation, the commit."""
        old = old_shown if old_shown is not None else record.obj
        old_meta, meta = old["metadata"], obj["metadata"]
        strategy = target.strategy
        untyped = untyped_custom_status(target, obj, subresource)  # (the field manager sees the request's object)
        strategy.admit(obj, old, ctx)
        self._mutating_admission(rt, "UPDATE", obj, old, old_meta.get("namespace"), subresource, dry_run, entry, ctx)
        if subresource is not None and subresource in strategy.update_subresources:
            strategy.prepare_for_subresource_update(subresource, obj, old, ctx)
        elif subresource == "status":
            strategy.prepare_for_status_update(obj, old)
        elif subresource == "finalize":
            strategy.prepare_for_finalize_update(obj, old)
        else:
            strategy.begin_update(obj, old, ctx)
            strategy.prepare_for_update(obj, old)
            if sent_empty and strategy.tracks_generation and meta.get("generation") == old_meta.get("generation"):
                # The decoded object held an empty (non-nil) slice where the stored one, written without it,
                # decodes as nil: reflect.DeepEqual sees a change the JSON forms do not show.
                bump_generation_if(obj, old, True)
            self._prepare_schema(target, obj)
        # The field manager runs before validation (a handler transformer, then the registry's BeforeUpdate):
        # managedFields a body sent that do not decode are replaced by the stored ones, not refused.
        self._record_managed_fields(target, old, obj, manager, subresource, request=rt, annotations=annotations,
                                    untyped=untyped)
        raw_fields = strategy.raw_extension_fields if subresource is None and spelled is not None else ()
        raw_errors = (rawdata.immutable_errors(raw_fields, obj, old, spelled or {},
                                               self.raw_spellings.get(old_meta["uid"], {})) if raw_fields else None)
        checked = self._validate(target, obj, old, subresource, record.checked, extra=raw_errors,
                                 warnings=entry.warnings)
        if subresource is None and strategy.update_warnings is not None:
            entry.warnings.extend(strategy.update_warnings(obj, old))
        self._validating_admission(entry, "UPDATE", rt, obj, old, subresource, dry_run)
        self._validating_webhooks(rt, "UPDATE", obj, old, old_meta.get("namespace"), str(old_meta.get("name")),
                                  subresource, dry_run, entry, ctx)
        if target.conversion is not None and not dry_run:
            # The etcd encode converts to the storage version (without the lock; the object may move meanwhile).
            obj = self._webhook_to_storage(target, obj)
            meta = obj["metadata"]
            self._check_not_moved(target, record_key(target, old), record)
        elif self._webhooks_configured():
            self._check_not_moved(target, record_key(target, old), record)
        if (old_meta.get("deletionTimestamp") and not meta.get("finalizers")
                and not old_meta.get("deletionGracePeriodSeconds") and not strategy.holds_deleted(obj)):
            # ShouldDeleteDuringUpdate (before storage compares bytes: a namespace finalized by a write that
            # changes nothing else goes too): the last finalizer is gone, so the update becomes the delete.
            if dry_run:
                return self._convert_out(rt, obj)
            self._commit(target, record_key(target, old), None, record, entry)
            entry.notes.append("deleted: last finalizer removed")
            return self._convert_out(rt, json_copy(obj))
        if _same_json(obj, record) and old_meta.get("uid") not in self.unwritten_defaults:
            # etcd3 GuaranteedUpdate: identical bytes are not written, the resourceVersion stays.
            entry.rv_after = record.rv
            entry.notes.append("no-op")
            if noop_key is not None and not entry.warnings and (ctx is None or not ctx.used):
                record.noop = noop_key  # nothing but the request and this version decided it (verbs.noop)
            # Controllers send the same no-op write again and again: the answer's bytes are kept with the version.
            return self._convert_out(rt, record.read())
        if dry_run:
            return self._convert_out(rt, json_copy(obj))
        new_record = self._commit(target, record_key(target, old), obj, record, entry, checked)
        assert new_record is not None
        if raw_fields:
            rawdata.remember_spelling(self.raw_spellings, old_meta["uid"], spelled or {})
        if record.noop is not None:
            noop.carry(target, record, new_record)
        return self._present(rt, new_record)

    # -- patch -----------------------------------------------------------------------------------------

    def patch(self, resource: str | ResourceType, name: str, body: Any, namespace: str | None = None, *,
              patch_type: str | None = None, subresource: str | None = None,
              actor: str = "fakekube", dry_run: bool = False, field_manager: str | None = None,
              force: bool | None = None, based_on: str | None = None,
              field_validation: str | None = None, user: UserInfo | None = None) -> dict[str, Any]:
        """PATCH with a JSON patch, merge patch, strategic merge patch or apply patch; ``field_validation``
        as for create (a Strict patch that adds unknown fields is a 422 on ``patch``); ``user`` as for create
        (an apply may create). Without ``patch_type`` the body's shape chooses: a list is a JSON patch
        (``application/json-patch+json``), anything else a merge patch (``application/merge-patch+json``)."""
        rt = self.resolve(resource)
        if patch_type is None:
            patch_type = JSON_PATCH if isinstance(body, list) else MERGE_PATCH
        self._namespace_given(rt, namespace, name, "patch")
        kind = normalize_patch_type(patch_type)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            report = FieldReport(decoding.field_validation(field_validation, "PatchOptions"), entry.warnings)
            self._check_subresource(rt, subresource, "patch")
            if force is not None and kind != APPLY_PATCH:
                raise errors.Invalid("PatchOptions", "meta.k8s.io", "",
                                     [errors.forbidden("force", "may not be specified for non-apply patch")])
            if kind == APPLY_PATCH and subresource == "scale":
                return self._apply_scale(rt, namespace, name, body, entry, dry_run, field_manager, bool(force))
            if kind == APPLY_PATCH:
                return self._apply(rt, namespace, name, body, subresource, entry, dry_run, actor,
                                   field_manager, bool(force), user)
            parsed = decoding.parse_patch(body)  # a body that is not JSON is refused before the lookup
            record = self._lookup(rt, namespace, name)
            entry.rv_before = record.rv
            if subresource == "scale":
                scale = self._scale_of(rt, record.obj)
                patched = apply_patch(scale, parsed.doc if parsed is not None else body, kind, schema=None,
                                      custom=rt.custom, raw_body=body)
                return self._update_scale(rt, namespace, name, patched, entry, dry_run,
                                          self._manager(actor, field_manager))
            patch_doc, problems = decoding.read_patch(body, kind, report, parsed)
            if rt.custom and parsed is not None and (parsed.flags.floats or parsed.flags.big):
                try:  # the numbers a custom resource gets from the patch, as Go's unstructured decoding holds them
                    patch_doc = gojson.unstructured(patch_doc)
                except gojson.GoJSONError as exc:
                    raise errors.BadRequest(f"error decoding patch: {exc}") from None
            # The engines never mutate their input, so the stored object is patched without a copy first;
            # its managedFields list is carried over, not copied, when the patch leaves it alone.
            source = (self._webhook_live(rt, record, self._key(rt, namespace, name)) if rt.conversion
                      else self._view(rt)(record.obj))
            entries = stored_entries(source)
            if entries is not None and not patch_leaves_managed_fields(patch_doc, kind):
                entries = None
            base = with_placeholder(source) if entries else source
            # A (strategic) merge patch may even leave what it does not change shared (verbs.shared_patch).
            shared = rt.conversion is None and (
                (kind in (MERGE_PATCH, STRATEGIC_MERGE_PATCH) and may_share(rt, record.obj, subresource))
                or custom_may_share(rt, record.obj, subresource, kind))
            patched = apply_patch(base, patch_doc, kind, schema=rt.patch_schema, custom=rt.custom, share=shared,
                                  raw_body=body)
            if shared:
                # The top-level fields the patch changed; the others are still the stored ones (by identity).
                touched = {key for key, value in patched.items() if value is not base.get(key)}
                own_top_levels(patched, base)
            else:
                touched = json_patch_fields(patch_doc) if same_as_stored(rt, record.obj) else None
            if entries:
                put_back(patched, entries)
            if kind == STRATEGIC_MERGE_PATCH:
                patched_type.keep_type_meta(rt, patched, base)
            elif subresource != "scale":
                patched_type.check_type_meta(self.registry, rt, patched,
                                             lambda: decoding.shown_patch(kind, patched, patch_doc, rt.patch_schema,
                                                                                 rt.custom),
                                             report, name)
            if rt.custom:
                patched_type.check_custom_metadata(self.registry, rt, patched)
            if patched.get("metadata") is not None and not isinstance(patched["metadata"], dict) and rt.model is None:
                raise errors.BadRequest("metadata must be an object")
            sent_empty = rt.strategy.sent_empty_list(patched)  # (before decoding drops the empty lists)
            patched = self._decode_patched(rt, patched, kind, patch_doc, report, problems, touched, shared=shared)
            patched_type.check_name(patched, name)
            return self._update(rt, namespace, name, patched, subresource, entry, dry_run,
                                self._manager(actor, field_manager), current=record, uid_precondition=False,
                                old_shown=source if rt.conversion is not None else None,
                                sent_empty=sent_empty, spelled={})

        return self._run(
            lambda: self._begin("patch", rt, namespace, name, subresource, actor, dry_run=dry_run,
                                patch_type=kind, based_on=based_on),
            serve, request=body,
        )

    def _decode_patched(self, rt: ResourceType, patched: dict[str, Any], patch_type: str, patch: Any,
                        report: FieldReport, problems: list[str], touched: set[str] | None = None, *,
                        shared: bool = False) -> dict[str, Any]:
        """Decode a patch's result as the server decodes the patched document: wrong types are a 422 on
        ``patch``; unknown fields are dropped and reported (a Strict 422 shows the unpruned document).
        ``touched``: the only top-level fields that may differ from the stored object's (None: any).
        ``shared``: the result shares subtrees with the stored object (verbs.shared_patch). Returns the
        result to write on: ``patched``, or a copy of it when decoding had to change it in place."""
        if not self._patch_may_need_decoding(rt, patch_type, patch):
            report.patch("", problems)
            return patched
        if shared:
            # Decoding drops unknown fields where they are: never in the stored object's own subtrees (only
            # the touched fields are decoded, so only they need copies; a custom resource is pruned whole).
            whole = touched is None or rt.model is None
            patched = {key: json_copy(value) if whole or key in touched else value for key, value in patched.items()}
        shown = (decoding.shown_patch(patch_type, patched, patch, rt.patch_schema, rt.custom)
                 if report.directive == decoding.STRICT else "")
        if rt.model is not None:
            unknown = decode_patched_fields(rt, patched, touched,
                                            lambda: decoding.shown_patch(patch_type, patched, patch, rt.patch_schema),
                                            converter=patch_type == STRATEGIC_MERGE_PATCH)
        else:
            unknown = decoding.prune_custom(self.registry.kubernetes_version, rt, patched)
        report.patch(shown, problems + report.problems([], unknown))
        return patched

    def _patch_may_need_decoding(self, rt: ResourceType, patch_type: str, patch: Any) -> bool:
        """Whether a patch's result can hold something decoding refuses or drops (see
        ``decoding.patch_may_need_decoding``); for a custom resource, whether pruning the patch drops anything."""
        if rt.model is not None:
            return decoding.patch_may_need_decoding(rt, patch_type, patch)
        if not isinstance(patch, dict) or not patch_type.startswith("application/merge-patch"):
            return True
        return decoding.custom_would_prune(self.registry.kubernetes_version, rt, patch)

    def _apply(self, rt: ResourceType, namespace: str | None, name: str, body: Any, subresource: str | None,
               entry: AuditEntry, dry_run: bool, actor: str, field_manager: str | None, force: bool,
               user: UserInfo | None = None) -> dict[str, Any]:
        config = parse_apply_body(body)
        validate_apply_request(config, field_manager=field_manager, api_version=rt.api_version, kind=rt.kind)
        config_decoded = decoding.undeclared_apply_fields(rt, config)
        assert field_manager is not None
        # The strategy's reset fields (ResetFieldsStrategy.GetResetFields) are ignored by apply, so the applier
        # neither changes nor owns them: status on the main resource (a CSR's spec too), spec on /status. (Left
        # out of a new dict: the configuration may be the caller's own.)
        ignored = ("spec",) if subresource == "status" else ("status",) if rt.has_subresource("status") else ()
        untracked = (tuple(k for k in rt.strategy.main_resets if k not in ignored) if subresource is None
                     else rt.strategy.status_resets if subresource == "status" else ())
        if any(key in config for key in ignored):
            config = {key: value for key, value in config.items() if key not in ignored}
        record = self._bucket(rt).get(self._key(rt, namespace, name))
        sent = config.get("metadata")
        if isinstance(sent, dict) and "name" in sent and not sent["name"]:
            raise patched_type.undeterminable(name)  # a null name merges into the result: checkName finds none
        # server_side_apply copies what it changes, so the stored object is read without a copy first; for a
        # kind that allows it, the result keeps the stored subtrees it leaves alone (verbs.shared_patch).
        live = (None if record is None else self._webhook_live(rt, record, self._key(rt, namespace, name))
                if rt.conversion else self._view(rt)(record.obj))
        shared = may_share(rt, record.obj if record is not None else None, subresource)
        result = server_side_apply(live, config, manager=field_manager, force=force, schema=rt.patch_schema,
                                   api_version=rt.api_version, subresource=subresource, now=self._now(),
                                   live_is_stored=True, share_live=shared,
                                   # Without tracking, every object is untracked: no before-first-apply.
                                   zero=zero_object(rt.api_version, rt.kind) if self.track_managed_fields else None,
                                   ignored=ignored or None, untracked=untracked,
                                   versions=self.managed_versions(rt))
        sent_empty = rt.strategy.sent_empty_list(result)  # (before decoding drops the empty lists)
        if rt.model is not None:
            # What the configuration does not name comes from the live object, already decoded.
            same = record is not None and same_as_stored(rt, record.obj)
            if not (same and config_decoded):
                if shared:
                    result = json_copy(result)  # decoding drops unknown fields in place
                try:
                    decode_patched_fields(rt, result, set(config) if same else None,
                                          lambda: json.dumps(result, separators=(",", ":")))
                except errors.Invalid as exc:
                    raise _conversion_error(rt, config, exc) from None
            # else nothing to decode: every value of the result is the live object's (decoded when it was
            # stored) or the configuration's (just decoded without a finding), at the path it had there (apply
            # merges field by field, and list items by key, so a value keeps its type's place), or is one of
            # the managedFields entries the apply wrote, of declared fields and string values.
        else:
            decoding.prune_custom(self.registry.kubernetes_version, rt, result)
        if record is None:
            if subresource:
                raise errors.NotFound(rt.plural, rt.group, name)
            sent = config.get("metadata")
            if not (isinstance(sent, dict) and sent.get("name")):
                raise patched_type.undeterminable(name)  # checkName: a new object takes its name from the configuration
            if sent["name"] != name:
                raise errors.BadRequest(f"the name of the object ({sent['name']}) does not match the name on the URL "
                                        f"({name})")
            result.setdefault("metadata", {})["name"] = name
            if rt.namespaced and namespace:
                result["metadata"]["namespace"] = namespace
            return self._create(rt, result, namespace, entry, dry_run, None, user=user)
        entry.rv_before = record.rv
        # manager None: the apply has recorded its own managedFields entry.
        return self._update(rt, namespace, name, result, subresource, entry, dry_run, None, current=record,
                            sent_empty=sent_empty, old_shown=live if rt.conversion is not None else None)


def _conversion_error(rt: ResourceType, config: dict[str, Any], exc: errors.Invalid) -> errors.InternalError:
    """An apply whose merged result does not convert to the Go type (a value only the type's own decoder
    refuses, such as an IntOrString of 1.5): managedfields ``structuredmerge.go``'s 500, ``failed to convert new
    object (ns/name; gv, Kind=K) to proper version: unable to convert unstructured object to gv, Kind=K: ...``
    (observed on kube-apiserver v1.37.2)."""
    detail = exc.field_errors[0].detail if getattr(exc, "field_errors", None) else exc.message
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    gvk = f"{rt.group}/{rt.version}, Kind={rt.kind}"
    return errors.InternalError(f"failed to convert new object ({namespace}/{name}; {gvk}) to proper version: unable "
                                f"to convert unstructured object to {gvk}: {detail}")


_TAKES_CONTEXT: dict[type, bool] = {}


def _hooks_take_context(strategy: Strategy) -> bool:
    """Whether an update's hooks may use its WriteContext: ``admit``, ``begin_update`` and
    ``prepare_for_subresource_update`` receive it."""
    kind = type(strategy)
    known = _TAKES_CONTEXT.get(kind)
    if known is None:
        known = _TAKES_CONTEXT[kind] = (kind.admit is not Strategy.admit or kind.begin_update is not Strategy.begin_update
                                        or bool(kind.update_subresources))
    return known


def _same_json(obj: dict[str, Any], record: Record) -> bool:
    """Whether ``obj`` would be stored as the bytes ``record`` holds (etcd3's no-op test compares bytes):
    Python's ``==`` alone also says ``true == 1``, which a free-form field of a custom resource can hold."""
    if obj != record.obj:
        return False
    # The bytes are kept: the no-op's answer is read from them. Keys in another order, or a value orjson cannot
    # write, are compared as JSON.
    return record.same_text(obj) or json_equal(obj, record.obj)

