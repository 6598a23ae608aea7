"""Fault injection: make matching requests fail with a chosen Status, or take extra time.

Rules match on verb, resource, name, subresource and actor (``None`` matches anything, names accept
``fnmatch`` wildcards), fire a number of times or with a seeded probability, and are checked by the store
before it serves a request, so every front sees the same faults.
"""

from __future__ import annotations

import fnmatch
import random
import threading
from dataclasses import dataclass, field

from fakekube import errors


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
    fired: int = field(default=0, init=False)

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


class FaultInjector:
    def __init__(self, seed: int | None = 0) -> None:
        # The rules in force, in the order added (read it; add and clear through the methods). The store looks at
        # it on every request: a list's truth is tested in C, ``bool(injector)`` would be a Python call.
        self.rules: list[FaultRule] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def add(self, rule: FaultRule) -> FaultRule:
        with self._lock:
            self.rules.append(rule)
        return rule

    def fail(self, code: int = 500, *, message: str | None = None, reason: str | None = None,
             times: int | None = 1, probability: float = 1.0, **match: str | None) -> FaultRule:
        """Fail matching requests with ``code`` (409, 429, 500, 503 ...)."""
        error = _error_for(code, message, reason, match)
        return self.add(FaultRule(error=error, times=times, probability=probability, **match))

    def delay(self, seconds: float, *, times: int | None = None, probability: float = 1.0,
              **match: str | None) -> FaultRule:
        return self.add(FaultRule(delay=seconds, times=times, probability=probability, **match))

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
        with self._lock:
            for rule in self.rules:
                if rule.exhausted or not rule.matches(verb, resource, namespace, name, subresource, actor):
                    continue
                if rule.probability < 1.0 and self._rng.random() >= rule.probability:
                    continue
                rule.fired += 1
                delay += rule.delay
                if rule.error is not None and error is None:
                    error = rule.error
        if error is None and not delay:
            return None
        return FaultOutcome(error, delay)


def _error_for(code: int, message: str | None, reason: str | None, match: dict[str, str | None]) -> errors.ApiError:
    resource = match.get("resource") or ""
    name = match.get("name") or ""
    if code == 409 and message is None and reason in (None, "Conflict"):
        group, _, plural = resource.rpartition("/") if "/" in resource else ("", "", resource)
        return errors.Conflict(plural, group, name)
    if code == 429 and message is None:
        return errors.TooManyRequests()
    return errors.error_for_code(code, message, reason)
