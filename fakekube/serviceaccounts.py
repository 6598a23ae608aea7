"""The service-account controller: every active namespace has a ``default`` ServiceAccount.

kube-controller-manager's ``serviceaccount-controller`` (kubernetes ``pkg/controller/serviceaccount/
serviceaccounts_controller.go``) watches namespaces and service accounts and creates ``default`` in each
active namespace that lacks it — also after someone deletes it. Its requests are ordinary audited creates by
``service-account-controller`` (the name kube-controller-manager appends to its user agent). Pods need it:
the ServiceAccount admission plugin rejects a pod whose service account does not exist.

Like the garbage collector (fakekube.gc) the store notes work on every commit; ``Store(gc="sync")`` runs it
right after the request that caused it, a simulation runs it as an actor in virtual time.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from fakekube import errors

if TYPE_CHECKING:
    from fakekube.resources import ResourceType
    from fakekube.store import Key, Store

ACTOR = "service-account-controller"
DEFAULT_NAME = "default"
_NAMESPACES = "/namespaces"
_SERVICE_ACCOUNTS = "/serviceaccounts"


class ServiceAccountController:
    # The storages ``observe`` looks at: the store does not call it for a commit to any other.
    observed = frozenset((_NAMESPACES, _SERVICE_ACCOUNTS))

    def __init__(self, store: Store, names: tuple[str, ...] = (DEFAULT_NAME,)) -> None:
        self._store = store
        self.names = names
        self._namespaces: set[str] = set()

    @property
    def pending(self) -> bool:
        return bool(self._namespaces)

    def observe(self, rt: ResourceType, key: Key, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Called by the store on every commit to one of the ``observed`` storages."""
        if rt.storage == _NAMESPACES:
            if new is not None and old is None and not new["metadata"].get("deletionTimestamp"):
                self._namespaces.add(key[1])
        elif rt.storage == _SERVICE_ACCOUNTS and new is None and key[1] in self.names:
            self._namespaces.add(key[0])

    def run_once(self) -> int:
        """Create what is missing; returns the number of requests made."""
        namespaces, self._namespaces = self._namespaces, set()
        store = self._store
        made = 0
        for namespace in sorted(namespaces):
            ns = store.stored_object(_NAMESPACES, ("", namespace))
            if ns is None or ns["metadata"].get("deletionTimestamp"):
                continue
            for name in self.names:
                if store.stored_object(_SERVICE_ACCOUNTS, (namespace, name)) is not None:
                    continue
                with contextlib.suppress(errors.ApiError):  # e.g. the namespace started terminating meanwhile
                    store.create("serviceaccounts", {"metadata": {"name": name}}, namespace, actor=ACTOR)
                made += 1
        return made

    def collect(self) -> int:
        """Create what is missing now (creating an account gives the controller no further work)."""
        return self.run_once() if self.pending else 0
