"""fakekube.audit: the audit log and what is read from it.

- `AuditEntry`, `AuditLog` — every request the store serves, as one entry (``fakekube.audit.entry``, ``.log``);
- `Timeline`, `Row`, `MatchResult` — PR #508's table: built from entries, parsed as pasted, matched with
  name binding (``.timeline``, ``.rows``, ``.table``, ``.matching``, ``.names``), drawn as swim lanes (``.svg``);
- `Alignment` — two timelines of one story aligned by object role, with their cadence ratio (``.align``).

Core layer: nothing here imports fakekube.sim, fakekube.server or fakekube.agentsandbox.
"""

from fakekube.audit.align import Alignment
from fakekube.audit.entry import AuditEntry
from fakekube.audit.log import AuditLog
from fakekube.audit.matching import MatchResult
from fakekube.audit.rows import Row
from fakekube.audit.timeline import Timeline

__all__ = ["Alignment", "AuditEntry", "AuditLog", "MatchResult", "Row", "Timeline"]
