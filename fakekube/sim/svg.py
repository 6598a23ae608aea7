"""Moved to the core: `fakekube.audit.svg`. Kept so that ``from fakekube.sim.svg import swimlanes`` works."""

from fakekube.audit.svg import FILL, swimlanes

__all__ = ["FILL", "swimlanes"]
