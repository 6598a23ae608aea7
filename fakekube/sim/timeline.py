"""Timelines (placeholder while the full module lands)."""

from __future__ import annotations

from typing import Any


class Timeline:
    def __init__(self, rows: list[Any] | None = None) -> None:
        self.rows = rows or []

    @classmethod
    def from_audit(cls, audit: Any, **filters: Any) -> Timeline:
        return cls(list(audit))
