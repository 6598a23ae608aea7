"""One step of a timeline: a request as a row of PR #508's table, whether it came from an audit log or from a
table somebody pasted.

The row model, field by field (what `Timeline.parse`, `Timeline.from_audit` and the readers of real logs fill):

- ``step``: the number the table gives (1-based), or the row's position.
- ``method``: the audit verb in capitals — ``GET LIST WATCH CREATE UPDATE PATCH DELETE DELETECOLLECTION`` (a
  table's ``POST``/``PUT`` are read as ``CREATE``/``UPDATE``, a ``GET`` of a collection as ``LIST``).
- ``resource``, ``name``, ``subresource``: the target (``sandboxclaims/agent-claim-4/status``). ``name`` is
  None for a collection request — and for a create with ``generateName`` as a real audit log records it, the
  name being unknown until the response (``generated`` is then True). ``name_prefix``: the table gave only the
  beginning of the name (``events/agent-claim-4...``). A target with shell wildcards keeps them in the fields
  and ``glob`` is True.
- ``code``, ``reason``, ``colour``: the HTTP code (None when the table gives only a colour), the reason
  (``Conflict``, ``NotFound``; a table's ``Not Found`` is kept as written and compared by
  `codes.reason_key`), and the PR's colour class (🟢 2xx, 🟡 expected 4xx, 🔴 409/5xx; ``""`` for none).
- ``notes``: all the text of the Result / Notes cell after the code and reason — the PR's prose (``Claim
  Controller adopts Sandbox``, ``(Retry)``) and the ``; ``-separated annotations, in order. ``annotations``:
  the part of ``notes`` an actual row must carry when the row is expected (``no-op``, ``stale overwrite:
  status.conditions``; ``(optional)`` marks a step that may be missing). Prose is never compared.
- ``time``: seconds since the timeline's first row (audit rows: from the entry's time; parsed rows: from
  the Delta column). ``offset_ms``: milliseconds since step 1 (the PR's Delta); ``delta_ms``: milliseconds
  since the previous row (fakekube's default rendering). A parsed table fills both, whichever it gave.
- ``actor``, ``namespace``, ``seq`` (the audit entry's sequence number), ``uid``: when known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fakekube.audit.codes import color

METHOD_ALIASES = {"POST": "CREATE", "PUT": "UPDATE"}
GLOB_CHARS = re.compile(r"[*?\[]")
ELLIPSES = ("...", "…")


def split_target(target: str) -> tuple[str, str | None, str | None, bool]:
    """``resource[/name[/subresource]]`` (a trailing ``...`` marks a name prefix) → its parts and the prefix
    flag."""
    text = target.strip().strip("`").strip()
    prefix = False
    for ellipsis in ELLIPSES:
        if text.endswith(ellipsis):
            text, prefix = text[: -len(ellipsis)], True
            break
    parts = text.split("/")
    resource = parts[0]
    name = parts[1] if len(parts) > 1 and parts[1] != "" else None
    subresource = "/".join(parts[2:]) or None
    return resource, name, subresource, prefix and name is not None


@dataclass
class Row:
    step: int
    method: str
    resource: str
    name: str | None = None
    subresource: str | None = None
    code: int | None = None
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    annotations: list[str] = field(default_factory=list)
    colour: str = ""
    delta_ms: float | None = None
    offset_ms: float | None = None
    actor: str | None = None
    time: float | None = None
    seq: int | None = None
    namespace: str | None = None
    uid: str | None = None
    name_prefix: bool = False
    generated: bool = False

    def __post_init__(self) -> None:
        if not self.colour and self.code is not None:
            self.colour = color(self.code)

    @property
    def target(self) -> str:
        """The target as the table shows it: ``resource[/name[...]][/subresource]``."""
        parts = [self.resource]
        if self.name is not None:
            parts.append(self.name + ("..." if self.name_prefix else ""))
        if self.subresource:
            parts.append(self.subresource)
        return "/".join(parts)

    @property
    def glob(self) -> bool:
        """The target has shell wildcards (``sandboxes/warmpool-0-*``): it is matched as a pattern."""
        return bool(GLOB_CHARS.search(self.target))

    @property
    def optional(self) -> bool:
        return any(n.strip().lower() == "(optional)" for n in self.notes)

    @property
    def prose(self) -> list[str]:
        """The notes that are description, not annotation (the PR's free text)."""
        return [n for n in self.notes if n not in self.annotations]

    @property
    def result(self) -> str:
        """The Result / Notes cell: colour, code, reason and prose, then ``; `` and the annotations."""
        head = " ".join(p for p in (self.colour, str(self.code) if self.code is not None else "", self.reason,
                                    *self.prose) if p)
        return "; ".join(p for p in (head, *self.annotations) if p)

    def describe(self) -> str:
        who = f" [{self.actor}]" if self.actor else ""
        return f"{self.method} {self.target} {self.result}{who}".strip()
