"""Fault injection: make matching requests fail with a chosen Status, take extra time, get a scripted answer,
or meet another writer's write just before they are served (a race).

Rules match on verb, resource, name, subresource and actor (``None`` matches anything, names accept
``fnmatch`` wildcards), fire a number of times or with a seeded probability, and are checked by the store
before it serves a request, under its lock, so every front sees the same faults. A rule stays until it has
fired ``times`` times (``None``: until removed, with ``rule.remove()`` or by leaving its ``with`` block).
"""

from __future__ import annotations

import fnmatch
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakekube import errors

# A scripted answer (FaultInjector.respond) is an error (raised as the answer), a ``Status`` body (``kind:
# Status``, raised as its error), any other JSON object (returned as the request's result), or a function of the
# FaultRequest returning one of those, or None to let the request be served as usual.


@dataclass(frozen=True, slots=True)
class FaultRequest:
    """The request a scripted answer is for; ``body`` is what the client sent (None for reads)."""
    verb: str
    resource: str
    namespace: str | None
    name: str | None
    subresource: str | None
    actor: str
    body: Any = None


@dataclass
class FaultRule:
    verb: str | None = None
    resource: str | None = None
    name: str | None = None
    subresource: str | None = None
    actor: str | None = None
    namespace: str | None = None
    error: errors.ApiError | None = None
    delay: float = 0.0
    times: int | None = None  # None: every match
    probability: float = 1.0
    answer: Any = None  # a scripted answer (see above)
    race: Callable[[Any], Any] | None = None  # called with the store just before a matching request is served
    fired: int = field(default=0, init=False)
    _injector: FaultInjector | None = field(default=None, init=False, repr=False, compare=False)

    def remove(self) -> None:
        """Take the rule out of force (a no-op once it is out)."""
        if self._injector is not None:
            self._injector.remove(self)

    def __enter__(self) -> FaultRule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def matches(self, verb: str, resource: str, namespace: str | None, name: str | None,
                subresource: str | None, actor: str) -> bool:
        return (
            (self.verb is None or self.verb == verb)
            and (self.resource is None or self.resource == resource)
            and (self.namespace is None or self.namespace == namespace)
            and (self.name is None or fnmatch.fnmatchcase(name or "", self.name))
            and (self.subresource is None or self.subresource == (subresource or ""))
            and (self.actor is None or fnmatch.fnmatchcase(actor, self.actor))
        )

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.fired >= self.times


@dataclass(frozen=True, slots=True)
class FaultOutcome:
    error: errors.ApiError | None
    delay: float
    answer: Any = None  # the first matching rule's scripted answer, when one has it
    races: tuple[FaultRule, ...] = ()  # rules whose ``race`` writes before the request


class FaultInjector:
    def __init__(self, seed: int | None = 0) -> None:
        # The rules in force, in the order added (read it; add and clear through the methods). The store looks at
        # it on every request: a list's truth is tested in C, ``bool(injector)`` would be a Python call.
        self.rules: list[FaultRule] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._racing: list[FaultRule] = []  # race rules whose write is running (the store's lock serialises them)

    def add(self, rule: FaultRule) -> FaultRule:
        with self._lock:
            rule._injector = self
            self.rules.append(rule)
        return rule

    def remove(self, rule: FaultRule) -> None:
        with self._lock:
            self.rules[:] = [r for r in self.rules if r is not rule]

    def fail(self, code: int = 500, *, message: str | None = None, reason: str | None = None,
             times: int | None = 1, probability: float = 1.0, **match: str | None) -> FaultRule:
        """Fail matching requests with ``code`` (409, 429, 500, 503 ...)."""
        error = _error_for(code, message, reason, match)
        return self.add(FaultRule(error=error, times=times, probability=probability, **match))

    def delay(self, seconds: float, *, times: int | None = None, probability: float = 1.0,
              **match: str | None) -> FaultRule:
        return self.add(FaultRule(delay=seconds, times=times, probability=probability, **match))

    def respond(self, answer: Any, *, times: int | None = None, probability: float = 1.0,
                **match: str | None) -> FaultRule:
        """Answer matching requests with ``answer`` instead of serving them: an ApiError or a
        ``Status`` body is the request's error, another object its result, and a function of the FaultRequest
        decides per request (None: serve it). Until removed, unless ``times`` says otherwise. Watches are
        never answered with an object (a watch's result is its stream)."""
        return self.add(FaultRule(answer=answer, times=times, probability=probability, **match))

    def race(self, write: Callable[[Any], Any], *, times: int | None = 1, probability: float = 1.0,
             **match: str | None) -> FaultRule:
        """Another writer writes just before each matching request is served: ``write(store)`` runs first (its
        requests are audited before the matching one, under the actor they name), then the request meets the
        object as that write left it — a stale update gets its 409, a patch applies over the newer object.
        The rule does not match the requests its own write makes."""
        return self.add(FaultRule(race=write, times=times, probability=probability, **match))

    def clear(self) -> None:
        with self._lock:
            self.rules.clear()

    def __bool__(self) -> bool:
        return bool(self.rules)

    def check(self, verb: str, resource: str, namespace: str | None, name: str | None,
              subresource: str | None, actor: str) -> FaultOutcome | None:
        if not self.rules:
            return None
        error: errors.ApiError | None = None
        delay = 0.0
        answer: Any = None
        races: list[FaultRule] = []
        with self._lock:
            for rule in self.rules:
                if rule in self._racing:
                    continue  # its own write's requests
                if rule.exhausted or not rule.matches(verb, resource, namespace, name, subresource, actor):
                    continue
                if rule.answer is not None and verb == "watch" and not _is_error(rule.answer):
                    continue
                if rule.probability < 1.0 and self._rng.random() >= rule.probability:
                    continue
                rule.fired += 1
                delay += rule.delay
                if rule.error is not None and error is None:
                    error = rule.error
                if rule.answer is not None and answer is None:
                    answer = rule.answer
                if rule.race is not None:
                    races.append(rule)
        if error is None and not delay and answer is None and not races:
            return None
        return FaultOutcome(error, delay, answer, tuple(races))

    def run_races(self, outcome: FaultOutcome, store: Any) -> None:
        """Each matched race rule's write, with the rule kept from matching that write's own requests."""
        for rule in outcome.races:
            assert rule.race is not None
            self._racing.append(rule)
            try:
                rule.race(store)
            finally:
                self._racing.remove(rule)


def resolve_answer(answer: Any, request: FaultRequest) -> dict[str, Any] | None:
    """The result a scripted answer gives for ``request`` (None: serve the request); raises its error."""
    if callable(answer) and not isinstance(answer, errors.ApiError):
        answer = answer(request)
    if answer is None:
        return None
    if isinstance(answer, errors.ApiError):
        raise answer
    if isinstance(answer, dict) and answer.get("kind") == "Status":
        raise errors.from_status(answer)
    if not isinstance(answer, dict):
        raise TypeError(f"a fault answer must be an ApiError, a Status or an object, not {type(answer).__name__}")
    return answer


def _is_error(answer: Any) -> bool:
    return isinstance(answer, errors.ApiError) or (isinstance(answer, dict) and answer.get("kind") == "Status")


def _error_for(code: int, message: str | None, reason: str | None, match: dict[str, str | None]) -> errors.ApiError:
    resource = match.get("resource") or ""
    name = match.get("name") or ""
    if code == 409 and message is None and reason in (None, "Conflict"):
        group, _, plural = resource.rpartition("/") if "/" in resource else ("", "", resource)
        return errors.Conflict(plural, group, name)
    if code == 429 and message is None:
        return errors.TooManyRequests()
    return errors.error_for_code(code, message, reason)
