"""A PUT that creates: the kinds whose strategy allows it (``AllowCreateOnUpdate``, data in
fakekube.kinds.updaterules) answer a PUT to a missing object by creating it, with 201.

apiserver v0.37.2 ``pkg/registry/generic/registry/store.go`` ``Update``: when the key is missing and the strategy
allows it, the object goes the create path (system fields wiped and filled, ``BeforeCreate``, the create
admission and validation); the handler (``pkg/endpoints/handlers/update.go``) ran the field manager over the
empty live object (an ``Update`` entry, as a POST records) and answers 201. What differs from a POST: the body
must carry the URL's name (``checkName``), a uid in the body is a storage precondition the missing object fails
(409), and a resourceVersion in the body is dropped by the storage's versioner, never refused (a dry run's
answer still shows it: ``DryRunnableStorage.GuaranteedUpdate`` hands back the updated object as it is).
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.resources import ResourceType

# Where upstream's storage keeps a resource when not under its plural (pkg/registry/core/*/storage/storage.go).
_KEY_PREFIX = {("", "services"): "services/specs", ("", "endpoints"): "services/endpoints",
               ("", "nodes"): "minions"}


def storage_key(rt: ResourceType, namespace: str | None, name: str) -> str:
    """The etcd key an error message of the storage layer names (``/registry/<prefix>/[<ns>/]<name>``)."""
    prefix = _KEY_PREFIX.get((rt.group, rt.plural))
    if prefix is None:
        prefix = f"{rt.group}/{rt.plural}" if rt.custom or rt.group in _GROUP_QUALIFIED else rt.plural
    return f"/registry/{prefix}/{namespace + '/' if rt.namespaced and namespace else ''}{name}"


_GROUP_QUALIFIED = frozenset({"apiextensions.k8s.io", "apiregistration.k8s.io"})


def uid_precondition_failed(rt: ResourceType, namespace: str | None, name: str, uid: str,
                            stored_uid: str) -> errors.Conflict:
    """The 409 of a PUT whose body's uid is not the stored object's (none when it is missing): etcd3
    ``GuaranteedUpdate`` checks the precondition before the update function runs."""
    return errors.Conflict(
        rt.plural, rt.group, name,
        f"StorageError: invalid object, Code: 4, Key: {storage_key(rt, namespace, name)}, ResourceVersion: 0, "
        f"AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in object meta: {stored_uid}",
    )


def check_put_create(rt: ResourceType, namespace: str | None, name: str, meta: dict[str, Any]) -> None:
    """What a PUT that creates refuses before the create path: another name than the URL's (the handler's
    ``checkName``), a uid (the precondition no missing object meets)."""
    given = meta.get("name")
    if given != name:
        raise errors.BadRequest(f"the name of the object ({given}) does not match the name on the URL ({name})")
    uid = meta.get("uid")
    if uid:
        raise uid_precondition_failed(rt, namespace, name, str(uid), "")
