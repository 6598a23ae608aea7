"""Seeded delay distributions for watch delivery, API latency, kubelet steps and event recording."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from math import log as _log
from typing import Any


@dataclass(frozen=True, slots=True)
class Lag:
    """A delay distribution in virtual seconds: ``fixed``, ``uniform`` or ``exponential``.

    ``sample(rng)`` draws from the caller's own ``random.Random`` stream; a fixed lag draws nothing, so
    switching one component to a fixed lag does not shift the random streams of the others.
    """

    kind: str = "fixed"
    a: float = 0.0
    b: float = 0.0

    @classmethod
    def zero(cls) -> Lag:
        return cls("fixed", 0.0)

    @classmethod
    def fixed(cls, seconds: float) -> Lag:
        if seconds < 0:
            raise ValueError("a lag cannot be negative")
        return cls("fixed", float(seconds))

    @classmethod
    def uniform(cls, low: float, high: float) -> Lag:
        if low < 0 or high < low:
            raise ValueError("uniform lag needs 0 <= low <= high")
        return cls("uniform", float(low), float(high))

    @classmethod
    def exponential(cls, mean: float, cap: float | None = None) -> Lag:
        """Exponential with the given mean, optionally capped (watch delays have long tails)."""
        if mean < 0:
            raise ValueError("a lag cannot be negative")
        return cls("exponential", float(mean), float(cap) if cap is not None else 0.0)

    @classmethod
    def coerce(cls, value: Lag | float | int | None) -> Lag:
        if value is None:
            return cls.zero()
        if isinstance(value, Lag):
            return value
        return cls.fixed(float(value))

    @property
    def is_zero(self) -> bool:
        return self.kind == "fixed" and self.a == 0.0

    @property
    def mean(self) -> float:
        if self.kind == "uniform":
            return (self.a + self.b) / 2
        return self.a

    def sample(self, rng: random.Random) -> float:
        # ``rng.uniform`` and ``rng.expovariate`` spelt out (their own expressions, so the same floats from the
        # same draw): every request and event samples, and they are Python functions of their own.
        kind = self.kind
        if kind == "fixed":
            return self.a
        if kind == "uniform":
            a = self.a
            return a + (self.b - a) * rng.random()
        if self.a == 0.0:
            return 0.0
        value = -_log(1.0 - rng.random()) / (1.0 / self.a)
        return min(value, self.b) if self.b else value

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"fixed": s}``, ``{"uniform": [low, high]}``, ``{"exponential": mean[, "cap": s]}``."""
        if self.kind == "fixed":
            return {"fixed": self.a}
        if self.kind == "uniform":
            return {"uniform": [self.a, self.b]}
        return {"exponential": self.a, **({"cap": self.b} if self.b else {})}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | float | int) -> Lag:
        """The inverse of :meth:`to_dict` (a bare number is a fixed lag)."""
        if isinstance(data, (int, float)):
            return cls.fixed(float(data))
        if "fixed" in data:
            return cls.fixed(float(data["fixed"]))
        if "uniform" in data:
            low, high = data["uniform"]
            return cls.uniform(float(low), float(high))
        if "exponential" in data:
            cap = data.get("cap")
            return cls.exponential(float(data["exponential"]), float(cap) if cap else None)
        raise ValueError(f"not a lag: {dict(data)!r} (expected fixed, uniform or exponential)")

    def __str__(self) -> str:
        if self.kind == "fixed":
            return f"fixed({self.a * 1000:g} ms)"
        if self.kind == "uniform":
            return f"uniform({self.a * 1000:g}-{self.b * 1000:g} ms)"
        return f"exponential(mean {self.a * 1000:g} ms)"
