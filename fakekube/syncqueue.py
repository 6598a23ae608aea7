"""The queue of the store's own in-process controllers (the CRD naming/establishing controllers, the APF config
consumer): names to look at again, drained in sorted order after the write that queued them, so a run is
deterministic whatever order the writes queued them in."""

from __future__ import annotations


class NameQueue:
    """Names waiting for ``_sync(name)``, which returns how many writes it made."""

    def __init__(self) -> None:
        self._queue: set[str] = set()

    @property
    def pending(self) -> bool:
        return bool(self._queue)

    def collect(self, max_rounds: int) -> int:
        """Sync every queued name, and those the syncs queue again, for at most ``max_rounds`` rounds."""
        made = 0
        for _ in range(max_rounds):
            if not self._queue:
                break
            names, self._queue = sorted(self._queue), set()
            for name in names:
                made += self._sync(name)
        return made

    def _sync(self, name: str) -> int:  # pragma: no cover - subclasses sync
        raise NotImplementedError
