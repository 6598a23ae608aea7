"""Which containers a behaviour applies to, kwok-style, and an ordered registry of such rules.

A kwok rule names its pods (``ClusterExec``'s ``selector``: namespaces, names, labels) and, inside it, its
containers; fakekube keeps that shape. Rules added later win over earlier ones, so a test can register a
catch-all first and override one pod after.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from fakekube.selectors import LabelSelector

T = TypeVar("T")


def _names(value: str | Iterable[str] | None) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):
        return frozenset((value,))
    return frozenset(value)


@dataclass(frozen=True)
class ContainerSelector:
    """Containers picked by namespace, pod name, pod label selector and container name.

    Each field left empty matches everything; ``labels`` is a selector string as ``kubectl get -l`` takes it
    (``"app=db,tier in (a,b)"``) or a ``matchLabels`` mapping.
    """

    namespaces: frozenset[str] = frozenset()
    pods: frozenset[str] = frozenset()
    labels: LabelSelector = field(default_factory=LabelSelector.everything)
    containers: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        *,
        namespace: str | Iterable[str] | None = None,
        pod: str | Iterable[str] | None = None,
        labels: str | Mapping[str, str] | None = None,
        container: str | Iterable[str] | None = None,
    ) -> ContainerSelector:
        if isinstance(labels, Mapping):
            selector = LabelSelector.from_dict({"matchLabels": dict(labels)})
        else:
            selector = LabelSelector.parse(labels)
        return cls(_names(namespace), _names(pod), selector, _names(container))

    def matches(self, pod: Mapping[str, Any], container: str) -> bool:
        meta = pod.get("metadata") or {}
        if self.namespaces and meta.get("namespace", "") not in self.namespaces:
            return False
        if self.pods and meta.get("name", "") not in self.pods:
            return False
        if self.containers and container not in self.containers:
            return False
        return self.labels.matches(meta.get("labels") or {})


class Rules(Generic[T]):
    """Rules of one kind of behaviour; ``find`` returns the newest one whose selector matches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[tuple[ContainerSelector, T]] = []

    def add(self, selector: ContainerSelector, value: T) -> Callable[[], None]:
        """Register ``value`` for the containers ``selector`` picks; the returned function removes it."""
        entry = (selector, value)
        with self._lock:
            self._rules.append(entry)

        def remove() -> None:
            with self._lock:
                if entry in self._rules:
                    self._rules.remove(entry)

        return remove

    def find(self, pod: Mapping[str, Any], container: str) -> T | None:
        with self._lock:
            rules = list(self._rules)
        for selector, value in reversed(rules):
            if selector.matches(pod, container):
                return value
        return None

    def entries(self) -> list[tuple[ContainerSelector, T]]:
        """Every rule, oldest first (for a lookup that needs more than the selector)."""
        with self._lock:
            return list(self._rules)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
