"""Per-verb request latency: one round trip per request, split at the commit.

A request's round trip (client → API server → etcd commit → response) is drawn from the distribution of its
class, most specific first: ``"<verb> <resource>"`` (or, for a subresource, ``"<verb> <resource>/<subresource>"``
— a subresource has its own handler, so ``pods/binding`` is not timed as a pod create), ``"<verb>"``, then
``default``. Resources are plurals as the audit log names them (``pods``, ``sandboxes``); verbs are the
audit verbs (``create``, ``update``, ``patch``, ``delete``, ``get``, ``list``). So a pod create, which runs
the pod admission chain, can take longer than other writes::

    RequestLatency(default=Lag.uniform(0.010, 0.020), classes={"create pods": Lag.uniform(0.040, 0.060)},
                   commit_at=0.8)

``commit_at`` is the fraction of the round trip spent before the commit (the store executes the request
then: its audit entry and watch events are stamped at that instant); the rest is the response leg, during
which the write's watch event may already reach a cache. It is a model parameter: where the commit falls in
a round trip is not visible in a timeline whose rows carry one timestamp each.

``client`` is the caller's own time after an answer, before it goes on: reading the answer and the
reconciler's work up to its next request (on a real machine, also the wait for a core shared with the API
server). An audit log shows it as the gap between one pass's consecutive requests (``fakekube fit``,
fitlog.py); it is paid after the response leg, so a pass's later requests, and its end, come that much later
after its earlier answers. ``client_classes`` gives it per class of the answered request, as round trips are
(a controller does more after some answers than after others: agent-sandbox v1.0.1 records a histogram and
builds a merge patch of the whole claim after its status write); ``client`` is the rest. Default 0 (an answer
is acted on at once); it is drawn from its own stream, so a model without it replays as before.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .lag import Lag


@dataclass(frozen=True)
class RequestLatency:
    default: Lag = field(default_factory=Lag.zero)
    classes: Mapping[str, Lag] = field(default_factory=dict)
    commit_at: float = 0.5
    client: Lag = field(default_factory=Lag.zero)
    client_classes: Mapping[str, Lag] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.commit_at <= 1.0:
            raise ValueError("commit_at is a fraction of the round trip (0..1)")
        object.__setattr__(self, "classes", {k: Lag.coerce(v) for k, v in dict(self.classes).items()})
        object.__setattr__(self, "default", Lag.coerce(self.default))
        object.__setattr__(self, "client", Lag.coerce(self.client))
        object.__setattr__(self, "client_classes", {k: Lag.coerce(v) for k, v in dict(self.client_classes).items()})
        object.__setattr__(self, "_client_memo", {})
        object.__setattr__(self, "_has_client", not self.client.is_zero
                           or any(not v.is_zero for v in self.client_classes.values()))
        object.__setattr__(self, "_memo", {})

    def round_trip(self, verb: str, resource: str, subresource: str | None = None) -> Lag:
        """The distribution of one request's round trip (most specific class first)."""
        found = self._memo.get((verb, resource, subresource))  # type: ignore[attr-defined]
        if found is not None:  # every request of the simulation asks: answered without another call
            return found  # type: ignore[no-any-return]
        return _most_specific(self._memo, self.classes, self.default, verb, resource, subresource)  # type: ignore[attr-defined]

    def client_time(self, verb: str, resource: str, subresource: str | None = None) -> Lag:
        """The caller's own time after the answer to such a request (its class, then its verb, then ``client``)."""
        return _most_specific(self._client_memo, self.client_classes, self.client,  # type: ignore[attr-defined]
                              verb, resource, subresource)

    @property
    def has_client_time(self) -> bool:
        return self._has_client  # type: ignore[attr-defined,no-any-return]

    def split(self, verb: str, resource: str, subresource: str | None, rng: random.Random) -> tuple[float, float]:
        """(request leg, response leg) of one request: one draw of its round trip, cut at ``commit_at``."""
        total = self.round_trip(verb, resource, subresource).sample(rng)
        before = total * self.commit_at
        return before, total - before

    def to_dict(self) -> dict[str, Any]:
        data = {"default": self.default.to_dict(), "classes": {k: v.to_dict() for k, v in sorted(self.classes.items())},
                "commit_at": self.commit_at}
        if not self.client.is_zero:  # models written before it existed stay byte-identical
            data["client"] = self.client.to_dict()
        if self.client_classes:
            data["client_classes"] = {k: v.to_dict() for k, v in sorted(self.client_classes.items())}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RequestLatency:
        return cls(default=Lag.from_dict(data.get("default", 0.0)),
                   classes={k: Lag.from_dict(v) for k, v in (data.get("classes") or {}).items()},
                   commit_at=float(data.get("commit_at", 0.5)), client=Lag.from_dict(data.get("client", 0.0)),
                   client_classes={k: Lag.from_dict(v) for k, v in (data.get("client_classes") or {}).items()})


def _most_specific(memo: dict[tuple[str, str, str | None], Lag], classes: Mapping[str, Lag], default: Lag,
                   verb: str, resource: str, subresource: str | None) -> Lag:
    """The class of a request, most specific first: ``<verb> <resource>[/<subresource>]``, ``<verb>``, then
    ``default``; remembered per (verb, resource, subresource)."""
    key = (verb, resource, subresource)
    found = memo.get(key)
    if found is None:
        candidates = [f"{verb} {resource}/{subresource}" if subresource else f"{verb} {resource}", verb]
        found = memo[key] = next((classes[c] for c in candidates if c in classes), default)
    return found
