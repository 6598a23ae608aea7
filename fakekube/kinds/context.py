"""What a write's strategy hooks may see of the store they run in.

Strategies are stateless and shared by every Store of one version (the registry shares its ResourceTypes), so
whatever is per store — the objects admission plugins read (ServiceAccounts, PriorityClasses, StorageClasses),
the Service ClusterIP and NodePort allocators, the random stream behind generated names — reaches them
through this context. The store builds one per write and undoes what it recorded (``on_failure``) when the
write fails or is a dry run, as upstream's ``BeginCreate``/``BeginUpdate`` finish functions do.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakekube.allocators import ServiceAllocators
    from fakekube.identity import UserInfo

Reader = Callable[[str, str, str], "dict[str, Any] | None"]
Lister = Callable[[str, "str | None"], "Iterable[dict[str, Any]]"]


class WriteContext:
    """One write's view of its store: read-only lookups, allocators, a seeded random stream, undo."""

    __slots__ = ("namespace", "subresource", "dry_run", "disabled_admission", "user", "_allocators", "_rng", "_now",
                 "_read", "_list", "_undo", "_done", "used")

    def __init__(self, *, read: Reader, listing: Lister, allocators: ServiceAllocators, rng: random.Random,
                 now: Callable[[], str], namespace: str | None = None, subresource: str | None = None,
                 dry_run: bool = False, disabled_admission: frozenset[str] = frozenset(),
                 user: UserInfo | None = None) -> None:
        self._now = now
        # kube-apiserver's --disable-admission-plugins: plugins this store does not run (a setting, like
        # namespace, not a read of the store).
        self.disabled_admission = disabled_admission
        self.namespace = namespace
        # Who asks, where the write knows it (a create): a CSR records its requester.
        self.user = user
        self.subresource = subresource
        self.dry_run = dry_run
        self._allocators = allocators
        self._rng = rng
        self._read = read
        self._list = listing
        self._undo: list[Callable[[], None]] = []
        self._done: list[Callable[[], None]] = []
        # Whether a hook reached past the request's own fields (namespace, subresource, dry_run): read or listed
        # objects, took the allocators, the random stream or the clock, or registered an undo or a finish. A
        # write whose hooks did not is a function of its request and the stored object alone (verbs.noop).
        self.used = False

    @property
    def now(self) -> Callable[[], str]:
        """The store's clock, RFC 3339."""
        self.used = True
        return self._now

    @property
    def allocators(self) -> ServiceAllocators:
        """The store's Service ClusterIP and NodePort allocators."""
        self.used = True
        return self._allocators

    @property
    def rng(self) -> random.Random:
        """The store's random stream behind the names admission generates."""
        self.used = True
        return self._rng

    def get(self, storage: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        """The stored object (read-only, never to be mutated) of ``storage`` (``"/serviceaccounts"``,
        ``"scheduling.k8s.io/priorityclasses"``), or None. Admission plugins read their informers' caches."""
        self.used = True
        return self._read(storage, namespace or "", name)

    def list(self, storage: str, namespace: str | None = None) -> Iterable[dict[str, Any]]:
        """Every stored object of ``storage`` (in ``namespace`` when given), read-only."""
        self.used = True
        return self._list(storage, namespace)

    def on_failure(self, undo: Callable[[], None]) -> None:
        """Run ``undo`` if the write fails after this point, or is a dry run (an allocation's release)."""
        self.used = True
        self._undo.append(undo)

    def on_success(self, done: Callable[[], None]) -> None:
        """Run ``done`` once the write is stored (releasing what an update gave up)."""
        self.used = True
        self._done.append(done)

    def rollback(self) -> None:
        """The write failed or was a dry run: undo what it took."""
        undo, self._undo, self._done = self._undo, [], []
        for fn in reversed(undo):
            fn()

    def commit(self) -> None:
        """The write was stored."""
        done, self._undo, self._done = self._done, [], []
        for fn in done:
            fn()
