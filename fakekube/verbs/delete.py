"""DELETE and delete-collection: preconditions, finalizers, graceful deletion, propagation policy."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.clock import parse_rfc3339, rfc3339
from fakekube.crdcontrollers import CLEANUP_FINALIZER, set_condition
from fakekube.jsonvalues import json_copy
from fakekube.records import (
    CRD_STORAGE,
    GC_FINALIZERS,
    Record,
    record_key,
    sort_key,
)
from fakekube.resources import ResourceType


class DeleteVerbs:
    """``delete`` and ``delete_collection``."""

    # -- delete ----------------------------------------------------------------------------------------

    def delete(self, resource: str | ResourceType, name: str, namespace: str | None = None, *,
               propagation_policy: str | None = None, grace_period_seconds: int | None = None,
               preconditions: dict[str, str] | None = None, orphan_dependents: bool | None = None,
               dry_run: bool = False, actor: str = "fakekube") -> dict[str, Any]:
        """DELETE: the object while it is kept for finalizers (or graceful deletion), else a Success Status."""
        rt = self.resolve(resource)
        self._namespace_given(rt, namespace, name, "delete")
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
            grace = 1  # BeforeDelete: a negative period is read as 1s
        self._warn_on_delete(rt, entry, policy, orphan_dependents)
        record = self._lookup(rt, namespace, name)
        obj = record.obj
        meta = obj["metadata"]
        entry.rv_before = record.rv
        entry.uid = meta["uid"]
        if rt.conversion is not None:
            self._webhook_live(rt, record, record_key(rt, obj), deleting=True)  # etcd3 Delete decodes it first
        self._validating_admission(entry, "DELETE", rt, None, obj, None, dry_run)
        if rt.storage == "/namespaces":
            answer = self._delete_namespace(rt, record, entry, policy, preconditions, orphan_dependents, dry_run)
            if answer is not None:
                return answer
        elif rt.storage == CRD_STORAGE:
            answer = self._delete_crd(rt, record, entry, preconditions, dry_run)
            if answer is not None:
                return answer
        # rest.BeforeDelete names the refusal by the internal object's kind: the storage's group, not the request's
        # (an events.k8s.io Event is a core Event)
        kind_group = self.storage_type(rt.storage).group if rt.to_storage else rt.group
        if preconditions.get("uid") and preconditions["uid"] != meta["uid"]:
            raise errors.Conflict(rt.kind, kind_group, name,
                                  f"the UID in the precondition ({preconditions['uid']}) does not match the UID in "
                                  f"record ({meta['uid']}). The object might have been deleted and then recreated")
        if preconditions.get("resourceVersion") and preconditions["resourceVersion"] != record.rv:
            raise errors.Conflict(rt.kind, kind_group, name,
                                  f"the ResourceVersion in the precondition ({preconditions['resourceVersion']}) does "
                                  f"not match the ResourceVersion in record ({record.rv}). The object might have "
                                  "been modified")
        if self._webhooks_configured():
            # Mutating, then validating admission, both with the stored object as oldObject and none as object
            # (observed on kube-apiserver v1.37.2), after the preconditions.
            self._mutating_admission(rt, "DELETE", None, json_copy(obj), namespace, None, dry_run, entry, None,
                                     name=name)
            self._validating_webhooks(rt, "DELETE", None, json_copy(obj), namespace, name, None, dry_run, entry,
                                      None)
            self._check_not_moved(rt, record_key(rt, obj), record)
        finalizers = list(meta.get("finalizers") or [])
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
        elif rt.strategy.orphans_dependents_by_default and not any(f in GC_FINALIZERS for f in finalizers):
            # shouldOrphanDependents (generic/registry/store.go): no policy and no GC finalizer → the default.
            finalizers.append("orphan")
        already_deleting = bool(meta.get("deletionTimestamp"))
        current_grace = meta.get("deletionGracePeriodSeconds")
        # rest.BeforeDelete (apiserver pkg/registry/rest/delete.go): a graceful kind (pods) is first updated with
        # its deletion (timestamp, grace period, generation) even when the period is 0; an already-deleting
        # object may only have its period shortened, and one whose period is 0 is deleted outright.
        graceful = False
        grace_seconds = 0
        if rt.strategy.graceful_delete:
            if not already_deleting:
                graceful, grace_seconds = True, rt.strategy.grace_period(obj, grace)
            elif current_grace:
                if grace is None or grace >= current_grace:
                    return self._present(rt, record)  # a pending graceful deletion: the object unchanged
                graceful, grace_seconds = True, grace
        if not graceful and not finalizers:
            entry.code = 200
            if not dry_run:
                self._commit(rt, record_key(rt, obj), None, record, entry)
            return self._deleted_answer(rt, record, entry, dry_run)
        # The object stays (or, graceful with period 0, is updated before it goes): a copy carries the deletion.
        new = _with_finalizers(obj, finalizers)
        new_meta = new["metadata"]
        now = self.clock.now()
        if graceful:
            if already_deleting:
                # Shortened: the old deadline moved back by the old period and forward by the new one,
                # never into the past.
                old_deadline = parse_rfc3339(meta["deletionTimestamp"])
                deadline = old_deadline - timedelta(seconds=current_grace) + timedelta(seconds=grace_seconds)
                if deadline < now:
                    deadline = now
                    if grace_seconds != 0:
                        grace_seconds = 1
            else:
                deadline = now + timedelta(seconds=grace_seconds)
            new_meta["deletionTimestamp"] = rfc3339(deadline)
            new_meta["deletionGracePeriodSeconds"] = grace_seconds
        else:
            # markAsDeleting (generic/registry/store.go): deleting now, at the latest.
            if not already_deleting or parse_rfc3339(meta["deletionTimestamp"]) > now:
                new_meta["deletionTimestamp"] = rfc3339(now)
            new_meta["deletionGracePeriodSeconds"] = 0
        if not already_deleting and "generation" in new_meta and new_meta["generation"] > 0:
            new_meta["generation"] += 1
        delete_now = graceful and grace_seconds == 0 and not finalizers
        if dry_run:
            return self._convert_out(rt, new)
        if new == obj:
            if not delete_now:
                return self._present(rt, record)
            new_record = record
        else:
            new_record = self._commit(rt, record_key(rt, obj), new, record, entry)
            assert new_record is not None
        if not delete_now:
            return self._present(rt, new_record)
        entry.code = 200
        self._commit(rt, record_key(rt, obj), None, new_record, entry)
        return self._deleted_answer(rt, new_record, entry, dry_run)

    def _deleted_answer(self, rt: ResourceType, record: Record, entry: AuditEntry, dry_run: bool) -> dict[str, Any]:
        """The answer to a DELETE that removed the object: the object itself where the registry returns it
        (decoded by the etcd3 store's conditionalDelete at the delete's own revision, apiserver
        pkg/storage/etcd3/store.go: the new resourceVersion), else a Success Status."""
        if not rt.strategy.returns_deleted_object:
            return self._success(rt, record.obj["metadata"]["name"], record.obj["metadata"]["uid"])
        shown = self._present(rt, record)
        if not dry_run:
            shown["metadata"]["resourceVersion"] = entry.rv_after
        return shown

    def _delete_namespace(self, rt: ResourceType, record: Record, entry: AuditEntry, policy: str | None,
                          preconditions: dict[str, str], orphan_dependents: bool | None,
                          dry_run: bool) -> dict[str, Any] | None:
        """The namespace registry's own DELETE (kubernetes pkg/registry/core/namespace/storage/storage.go): its
        precondition messages; the first DELETE only marks the namespace (deletionTimestamp, phase Terminating,
        the orphan / foregroundDeletion finalizer the options ask for: no deletionGracePeriodSeconds, unlike the
        generic store); a later one answers the namespace unchanged while ``spec.finalizers`` remain. None: the
        namespace is finalized, so the generic store's DELETE follows."""
        obj = record.obj
        meta = obj["metadata"]
        _check_registry_preconditions(rt, record, preconditions, "Precondition")
        if meta.get("deletionTimestamp"):
            return self._present(rt, record) if (obj.get("spec") or {}).get("finalizers") else None
        finalizers = list(meta.get("finalizers") or [])
        # shouldHaveOrphanFinalizer / shouldHaveDeleteDependentsFinalizer: orphanDependents=false asks for
        # foreground deletion here (the generic store reads it as background).
        if orphan_dependents is not None:
            wanted = {"orphan": orphan_dependents, "foregroundDeletion": not orphan_dependents}
        elif policy is not None:
            wanted = {"orphan": policy == "Orphan", "foregroundDeletion": policy == "Foreground"}
        else:
            wanted = {}
        for finalizer, present in wanted.items():
            if present and finalizer not in finalizers:
                finalizers.append(finalizer)
            elif not present and finalizer in finalizers:
                finalizers.remove(finalizer)
        new = _with_finalizers(obj, finalizers)
        new_meta = new["metadata"]
        new_meta["deletionTimestamp"] = rfc3339(self.clock.now())
        new.setdefault("status", {})["phase"] = "Terminating"
        if dry_run:
            return self._convert_out(rt, new)
        new_record = self._commit(rt, record_key(rt, obj), new, record, entry)
        assert new_record is not None
        return self._present(rt, new_record)

    def _delete_crd(self, rt: ResourceType, record: Record, entry: AuditEntry, preconditions: dict[str, str],
                    dry_run: bool) -> dict[str, Any] | None:
        """The CRD registry's own DELETE (apiextensions-apiserver pkg/registry/customresourcedefinition/etcd.go):
        the first one marks the CRD (deletionTimestamp, the cleanup finalizer, Terminating), whatever the
        propagation policy; the finalizer controller then deletes its custom resources and lets it go
        (fakekube.crdcontrollers). None: already marked, the generic store's DELETE follows."""
        obj = record.obj
        meta = obj["metadata"]
        _check_registry_preconditions(rt, record, preconditions, "precondition")
        if meta.get("deletionTimestamp"):
            return None
        new = json_copy(obj)
        new_meta = new["metadata"]
        now = rfc3339(self.clock.now())
        new_meta["deletionTimestamp"] = now
        if CLEANUP_FINALIZER not in (new_meta.get("finalizers") or ()):
            new_meta["finalizers"] = [*(new_meta.get("finalizers") or ()), CLEANUP_FINALIZER]
        status = new.setdefault("status", {})
        set_condition(status, {"type": "Terminating", "status": "True", "reason": "InstanceDeletionPending",
                               "message": "CustomResourceDefinition marked for deletion; CustomResource deletion "
                                          "will begin soon"}, now)
        if dry_run:
            return self._convert_out(rt, new)
        new_record = self._commit(rt, record_key(rt, obj), new, record, entry)
        assert new_record is not None
        return self._present(rt, new_record)

    def _success(self, rt: ResourceType, name: str, uid: str) -> dict[str, Any]:
        # StatusDetails' field order: name, group, kind, uid (group omitted when empty)
        details = ({"name": name, "group": rt.group, "kind": rt.plural, "uid": uid} if rt.group
                   else {"name": name, "kind": rt.plural, "uid": uid})
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}

    @staticmethod
    def _warn_on_delete(rt: ResourceType, entry: AuditEntry, policy: str | None,
                        orphan_dependents: bool | None) -> None:
        """The warning the kind's REST storage adds to a delete that names no policy, before the lookup
        (fakekube.strategywarnings.DELETE_WARNINGS)."""
        warning = rt.strategy.delete_warning
        if warning is not None and policy is None and orphan_dependents is None:
            entry.warnings.append(warning)

    def delete_collection(self, resource: str | ResourceType, namespace: str | None = None, *,
                          label_selector: str | None = None, field_selector: str | None = None,
                          propagation_policy: str | None = None, grace_period_seconds: int | None = None,
                          dry_run: bool = False, actor: str = "fakekube") -> dict[str, Any]:
        """DELETE on a collection: deletes every match; returns the list of what was deleted."""
        rt = self.resolve(resource)

        def serve(entry: AuditEntry) -> dict[str, Any]:
            matches = self._matcher(rt, namespace, label_selector, field_selector)
            self._warn_on_delete(rt, entry, propagation_policy, None)
            keys = sorted((k for k, r in self._bucket(rt).items() if matches(r.obj)), key=sort_key)
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


def _check_registry_preconditions(rt: ResourceType, record: Record, preconditions: dict[str, str],
                                  word: str) -> None:
    """The uid and resourceVersion preconditions of a registry's own DELETE: the namespace registry writes
    "Precondition failed", the CRD registry "precondition failed" (each observed on kube-apiserver v1.37.2)."""
    meta = record.obj["metadata"]
    uid = preconditions.get("uid")
    if uid and uid != meta["uid"]:
        raise errors.Conflict(rt.plural, rt.group, meta["name"], f"{word} failed: UID in precondition: {uid}, "
                                                                 f"UID in object meta: {meta['uid']}")
    rv = preconditions.get("resourceVersion")
    if rv and rv != record.rv:
        raise errors.Conflict(rt.plural, rt.group, meta["name"], f"{word} failed: ResourceVersion in precondition: "
                                                                 f"{rv}, ResourceVersion in object meta: {record.rv}")


def _with_finalizers(obj: dict[str, Any], finalizers: list[str]) -> dict[str, Any]:
    """A copy of ``obj`` holding ``finalizers`` (none: the field left out, as Go's omitempty writes it)."""
    new = json_copy(obj)
    if finalizers:
        new["metadata"]["finalizers"] = finalizers
    else:
        new["metadata"].pop("finalizers", None)
    return new
