"""Invariants: predicates over a finished run.

An invariant's ``check(result)`` gets a :class:`~fakekube.explore.run.RunResult` and answers with what is
wrong: ``True``/``None`` (nothing), ``False`` (something, unnamed), or an iterable of messages or
:class:`~fakekube.explore.run.Violation` s — ideally naming the object, so a reproducer can show that
object's timeline. The generic ones here read the audit log and the stale-overwrite detector; a controller's
own (agent-sandbox's "every claim Ready") are registered by its package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from .run import ObjectRef, RunResult, Violation

Check = Callable[[RunResult], Any]


@dataclass(frozen=True)
class Invariant:
    name: str
    check: Check
    description: str = ""

    def evaluate(self, result: RunResult) -> list[Violation]:
        answer = self.check(result)
        if answer is None or answer is True:
            return []
        if answer is False:
            return [Violation(self.name, self.description or f"{self.name} does not hold")]
        if isinstance(answer, str | Violation):
            answer = [answer]
        found = []
        for item in answer:
            if isinstance(item, Violation):
                found.append(item if item.invariant == self.name else replace(item, invariant=self.name))
            else:
                found.append(Violation(self.name, str(item)))
        return found


def _scoped(records: Iterable[Any], resource: str | None, subresource: str | None,
            actor: str | None) -> Iterator[Any]:
    """Audit entries or stale-overwrite records of ``resource[/subresource]`` by ``actor`` (None: any)."""
    for r in records:
        if all(wanted is None or (value or "") == wanted
               for value, wanted in ((r.resource, resource), (r.subresource, subresource), (r.actor, actor))):
            yield r


def _object(r: Any) -> ObjectRef:
    return ObjectRef(r.resource, r.name or "", r.namespace, r.subresource)


def _scope(resource: str | None, subresource: str | None, actor: str | None) -> str:
    where = "/".join(p for p in (resource, subresource) if p) or "any object"
    return where + (f" by {actor}" if actor else "")


def no_stale_overwrite(resource: str | None = None, subresource: str | None = None, actor: str | None = None,
                       name: str = "no-stale-overwrite") -> Invariant:
    """No write overwrote a field another write had changed after the state it was computed from."""

    def check(result: RunResult) -> Iterator[Violation]:
        for record in _scoped(result.sim.stale_overwrites(), resource, subresource, actor):
            message = str(record).removeprefix(f"#{record.seq} ")  # the Violation carries the seq
            yield Violation(name, message, _object(record), record.seq)

    return Invariant(name, check, f"no stale overwrite of {_scope(resource, subresource, actor)}")


def no_conflict(resource: str | None = None, subresource: str | None = None, actor: str | None = None,
                name: str = "no-conflict") -> Invariant:
    """No write was answered 409 Conflict."""

    def check(result: RunResult) -> Iterator[Violation]:
        for entry in _scoped(result.sim.conflicts(), resource, subresource, actor):
            yield Violation(name, f"{entry.actor} {entry.verb.upper()} {entry.path}: 409 Conflict",
                            _object(entry), entry.seq)

    return Invariant(name, check, f"no 409 Conflict on {_scope(resource, subresource, actor)}")


def no_reconcile_error(name: str = "no-reconcile-error") -> Invariant:
    """No reconcile returned an error (they are retried with backoff, and often hide a race)."""

    def check(result: RunResult) -> Iterable[Violation]:
        for error in result.sim.reconcile_errors():
            yield Violation(name, str(error))

    return Invariant(name, check, "no reconcile returned an error")


GENERIC: tuple[Invariant, ...] = (no_stale_overwrite(), no_conflict(), no_reconcile_error())
