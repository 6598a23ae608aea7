"""The store's side of CRD conversion webhooks (fakekube.webhooks.conversion): where objects are converted, with
the store's lock let go for every call, and the Statuses a failed conversion answers.

Where kube-apiserver converts (apiextensions-apiserver ``pkg/apiserver/customresource_handler.go``, the storage
codec of each served version, and apiserver ``pkg/storage/etcd3/store.go``, v0.37.2), and what fakekube does:

- a write through another version than the storage one: its object is converted to the storage version when it
  is encoded for etcd (a failure is a 500 without reason: ``conversion webhook for <group>/<request version>,
  Kind=<Kind> failed: ...``). Here: after admission, before the commit, without the lock; a create then looks
  at its name again, an update whose object changed meanwhile starts over (as after admission webhooks).
  A dry run is not encoded, so not converted.
- a PATCH or apply through another version reads the live object in the request's version (converted
  without the lock, then the same "changed meanwhile" check).
- a read through another version: each stored object is decoded into that version (one ConversionReview per
  object, as the etcd3 store decodes objects one by one — observed on kube-apiserver v1.37.2: a list of two
  objects sends two reviews). A failure is the storage's corrupt-object error: a GET's 500 InternalError
  ``StorageError: corrupt object, ... object not decodable revision=<rv>: ...``, a LIST's 500 StorageReadError
  ``failed to read one or more <resource> from the storage: ... (and N more)``. Here: after the records are
  copied, without the lock.
- a watch: kube-apiserver's watch cache of each served version converts every change once, whoever watches.
  Here each watcher converts the events it takes, when it takes them (``Watch.convert``), on the consumer's
  thread, never inside the committing writer; a failure ends that watch with an ERROR event carrying the GET's
  Status (upstream the cache re-initialises and its watchers are ended; clients relist either way).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from fakekube import errors
from fakekube.jsonvalues import json_copy
from fakekube.records import Key, Record
from fakekube.resources import ResourceType
from fakekube.webhooks import conversion
from fakekube.webhooks.conversion import ConversionFailed


class ConversionWebhookVerbs:
    """Mixin of the Store (after WebhookVerbs: it uses its Service map, caller and ``_unlocked``)."""

    def _by_webhook(self, rt: ResourceType) -> bool:
        return rt.conversion is not None

    def _call_converter(self, rt: ResourceType, objects: list[dict[str, Any]], desired: str,
                        source: str) -> list[dict[str, Any]]:
        uid = next(self._uids())  # type: ignore[attr-defined]
        # Only the thread holding the lock lets it go (an admission webhook's worker converting an object for
        # its webhook runs while the request's thread has let it go already).
        owned = getattr(self._lock, "_is_owned", lambda: False)()  # type: ignore[attr-defined]
        with self._unlocked() if owned else contextlib.nullcontext():  # type: ignore[attr-defined]
            return conversion.convert(rt.conversion, objects, desired, source,
                                      self.webhook_services, self.webhook_caller, uid)  # type: ignore[attr-defined]

    def _webhook_to_storage(self, rt: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
        """A write's object in the storage version (the etcd encode); raises the write's 500."""
        storage = self.storage_type(rt.storage)  # type: ignore[attr-defined]
        if obj.get("apiVersion") == storage.api_version:
            return obj
        source = conversion.gvk_text(str(obj.get("apiVersion") or rt.api_version), rt.kind)
        try:
            return self._call_converter(rt, [obj], storage.api_version, source)[0]
        except ConversionFailed as exc:
            raise errors.InternalError(str(exc)) from None

    def _webhook_converted(self, rt: ResourceType, obj: dict[str, Any], desired: str) -> dict[str, Any]:
        """``obj`` in ``desired`` (another version of ``rt``'s CRD) for an admission webhook that matched that
        version (matchPolicy Equivalent); a failure is a 500 without reason."""
        source = conversion.gvk_text(str(obj.get("apiVersion") or rt.api_version), rt.kind)
        try:
            return self._call_converter(rt, [obj], desired, source)[0]
        except ConversionFailed as exc:
            raise errors.InternalError(str(exc)) from None

    def _webhook_read(self, rt: ResourceType, obj: dict[str, Any], key: Key) -> dict[str, Any]:
        """A stored object (a caller's copy) in ``rt``'s version; raises the GET's 500."""
        if obj.get("apiVersion") == rt.api_version:
            return obj
        try:
            return self._call_converter(rt, [obj], rt.api_version, _source(obj, rt))[0]
        except ConversionFailed as exc:
            raise _corrupt(rt, key, obj, str(exc), "") from None

    def _webhook_read_many(self, rt: ResourceType, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A list's items (callers' copies), each converted on its own; raises the LIST's 500."""
        out: list[dict[str, Any]] = []
        failed: list[tuple[str, str]] = []
        for obj in objects:
            if obj.get("apiVersion") == rt.api_version:
                out.append(obj)
                continue
            try:
                out.append(self._call_converter(rt, [obj], rt.api_version, _source(obj, rt))[0])
            except ConversionFailed as exc:
                key = key_of(rt, obj)
                failed.append((_storage_key(rt, key, "/registry"), _corrupt_text(rt, key, obj, str(exc), "/registry")))
        if failed:
            message = f"failed to read one or more {rt.group_resource} from the storage: {failed[0][1]}"
            if len(failed) > 1:
                message += f" (and {len(failed) - 1} more)"
            raise errors.ApiError(500, "StorageReadError", message, {
                "name": "list", "group": rt.group, "kind": rt.plural,
                "causes": [{"reason": "UnexpectedServerResponse", "message": text, "field": field}
                           for field, text in failed]})
        return out

    def _webhook_live(self, rt: ResourceType, record: Record, key: Key, *, deleting: bool = False) -> dict[str, Any]:
        """The live object a write starts from, in the request's version (etcd3 ``GuaranteedUpdate`` and
        ``Delete`` decode it so); the write starts over when the object changed during the call. A failure is
        a delete's GET-like 500, an update's bare 500 ``object not decodable revision=<rv>: ...`` (observed on
        kube-apiserver v1.37.2)."""
        from fakekube.verbs.webhook_admission import ObjectMoved

        obj = json_copy(record.obj)
        if obj.get("apiVersion") == rt.api_version:
            return obj
        try:
            shown = self._call_converter(rt, [obj], rt.api_version, _source(obj, rt))[0]
        except ConversionFailed as exc:
            if deleting:
                raise _corrupt(rt, key, obj, str(exc), "") from None
            revision = (obj.get("metadata") or {}).get("resourceVersion") or "0"
            raise errors.InternalError(f"object not decodable revision={revision}: {exc}") from None
        if self._bucket(rt).get(key) is not record:  # type: ignore[attr-defined]
            raise ObjectMoved()
        return shown

    def _watch_converter(self, rt: ResourceType) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        """What a watcher of ``rt`` applies to each event's object as it takes it (None: nothing)."""
        if rt.conversion is None:
            return None

        def convert(obj: dict[str, Any]) -> dict[str, Any]:
            if obj.get("apiVersion") == rt.api_version:
                return obj
            try:
                return conversion.convert(rt.conversion, [json_copy(obj)], rt.api_version, _source(obj, rt),
                                          self.webhook_services, self.webhook_caller,  # type: ignore[attr-defined]
                                          next(self._uids()))[0]  # type: ignore[attr-defined]
            except ConversionFailed as exc:
                raise _corrupt(rt, key_of(rt, obj), obj, str(exc), "") from None

        return convert


def _source(obj: dict[str, Any], rt: ResourceType) -> str:
    return conversion.gvk_text(str(obj.get("apiVersion") or ""), str(obj.get("kind") or rt.kind))


def key_of(rt: ResourceType, obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return (str(meta.get("namespace") or "") if rt.namespaced else "", str(meta.get("name") or ""))


def _storage_key(rt: ResourceType, key: Key, prefix: str) -> str:
    """etcd's key of an object: ``[/registry]/<group>/<plural>[/<namespace>]/<name>``."""
    where = f"/{key[0]}" if rt.namespaced and key[0] else ""
    return f"{prefix}/{rt.group}/{rt.plural}{where}/{key[1]}"


def _corrupt_text(rt: ResourceType, key: Key, obj: dict[str, Any], reason: str, prefix: str) -> str:
    """``storage.NewCorruptObjError`` of an object that did not decode (apiserver ``pkg/storage/errors.go``)."""
    revision = (obj.get("metadata") or {}).get("resourceVersion") or "0"
    return (f"StorageError: corrupt object, Code: 7, Key: {_storage_key(rt, key, prefix)}, ResourceVersion: 0, "
            f"AdditionalErrorMsg: object not decodable revision={revision}: {reason}")


def _corrupt(rt: ResourceType, key: Key, obj: dict[str, Any], reason: str, prefix: str) -> errors.ApiError:
    text = _corrupt_text(rt, key, obj, reason, prefix)
    return errors.ApiError(500, "InternalError", f"Internal error occurred: {text}", {"causes": [{"message": text}]})

