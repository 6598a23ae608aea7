"""Moved to the core: `fakekube.audit.timeline` (the Timeline reads any audit log, not only a simulation's).
Kept so that ``from fakekube.sim.timeline import ...`` goes on working."""

from fakekube.audit.timeline import (
    EXPECTED_4XX,
    GREEN,
    HEADER,
    HTTP_REASONS,
    METHOD_ALIASES,
    RED,
    YELLOW,
    MatchResult,
    Row,
    Timeline,
    color,
)

__all__ = ["EXPECTED_4XX", "GREEN", "HEADER", "HTTP_REASONS", "METHOD_ALIASES", "RED", "YELLOW", "MatchResult",
           "Row", "Timeline", "color"]
