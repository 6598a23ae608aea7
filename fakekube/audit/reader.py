"""Reading real audit logs — and fakekube's own — into audit entries, streaming.

    reader = AuditLogReader("kube-apiserver-audit.log")
    for entry in reader:                 # AuditEntry, one per request, in the order requests completed
        ...
    reader.report                        # events read, requests, skipped values, problems with line numbers

Any mix of the formats in `fakekube.audit.formats`, in JSON lines, one document, an array or a wrapper
(`fakekube.audit.jsonstream`), gzipped or not; YAML files (``.yaml``/``.yml``, small samples) are read whole.
A file is never loaded whole otherwise: a gigabyte log costs its largest event in memory, plus the requests
still waiting for their last stage.

Stages are merged per ``auditID``: a RequestReceived or ResponseStarted event waits for the ResponseComplete
(or Panic) of the same ID, and the request becomes one entry carrying all its stages
(``entry.request.stages``); two ResponseComplete events of one ID are two requests (test data reuses IDs). A
request whose last stage never came (a watch still open when the log ends) is yielded at the end.

Nothing raises on bad input: a line that is not JSON, a truncated one, an event whose fields have the wrong
types — each becomes a `Problem` with its line number in ``report.problems`` and reading goes on.
"""

from __future__ import annotations

import gzip
import io
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import yaml

from fakekube.audit.entry import AuditEntry
from fakekube.audit.event import EventError, decode
from fakekube.audit.formats import Found, Skipped, events_in
from fakekube.audit.jsonstream import JsonValues, Problem, Value

_HELD = ("RequestReceived", "ResponseStarted")
_YAML_SUFFIXES = (".yaml", ".yml")


@dataclass
class ReadReport:
    """What reading found: ``events`` (audit events, each stage counted), ``requests`` (entries yielded),
    ``skipped`` (values that are no Kubernetes audit event, with reasons), ``problems`` (unreadable parts, with
    ``source`` and line), ``formats`` (events per format) and ``codes`` (requests per HTTP code)."""

    events: int = 0
    requests: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[SourcedProblem] = field(default_factory=list)
    formats: Counter[str] = field(default_factory=Counter)
    codes: Counter[int] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        return {"events": self.events, "requests": self.requests, "skipped": dict(self.skipped),
                "problems": [str(p) for p in self.problems], "formats": dict(self.formats),
                "codes": {str(k): v for k, v in sorted(self.codes.items())}}


@dataclass(frozen=True, slots=True)
class SourcedProblem:
    source: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"


Source = str | Path | TextIO


def _open(source: Source) -> tuple[TextIO, str, bool]:
    if isinstance(source, str | Path):
        path = Path(source)
        if path.suffix == ".gz":
            return gzip.open(path, "rt", encoding="utf-8", errors="replace"), str(path), True
        return open(path, encoding="utf-8", errors="replace"), str(path), True  # noqa: SIM115 - closed below
    return source, getattr(source, "name", "<stream>"), False


def _yaml_values(stream: TextIO) -> Iterator[Value | Problem]:
    try:
        for doc in yaml.safe_load_all(stream):
            if doc is not None:
                yield Value(doc, 1)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        yield Problem(mark.line + 1 if mark is not None else 1, f"invalid YAML: {getattr(exc, 'problem', exc)}")


def _looks_like_yaml(stream: TextIO) -> tuple[bool, TextIO]:
    """Whether text that does not start with ``{`` or ``[`` is YAML (a comment, ``---`` or ``key:`` first)."""
    head = stream.read(4096)
    rest = io.StringIO(head)
    first = head.lstrip("\ufeff \t\r\n")[:1]
    line = head.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    yaml_like = first not in ("{", "[", "") and (line.startswith(("#", "---")) or
                                                 (":" in line and not line.startswith('"')))
    return yaml_like, _Chained(rest, stream)


class _Chained(io.TextIOBase):
    """The text already read for sniffing, then the rest of the stream."""

    def __init__(self, head: io.StringIO, tail: TextIO) -> None:
        self._head, self._tail = head, tail

    def read(self, size: int | None = -1) -> str:
        data = self._head.read(size if size is not None else -1)
        if size is None or size < 0:
            return data + self._tail.read()
        if len(data) < size:
            data += self._tail.read(size - len(data))
        return data


class AuditLogReader:
    """Audit entries of one or more logs (paths or open text streams), read as they are iterated."""

    def __init__(self, *sources: Source, merge_stages: bool = True) -> None:
        self.sources = sources
        self.merge_stages = merge_stages
        self.report = ReadReport()

    def values(self, source: Source) -> Iterator[tuple[Value | Problem, str]]:
        stream, name, own = _open(source)
        try:
            if isinstance(source, str | Path) and Path(source).suffix in _YAML_SUFFIXES:
                values: Iterable[Value | Problem] = _yaml_values(stream)
            else:
                yaml_like, stream_ = _looks_like_yaml(stream)
                values = _yaml_values(stream_) if yaml_like else JsonValues(stream_)
            for value in values:
                yield value, name
        except (OSError, UnicodeError) as exc:
            yield Problem(0, f"cannot read: {exc}"), name
        finally:
            if own:
                stream.close()

    def events(self) -> Iterator[tuple[AuditEntry, str, int]]:
        """Every event as an entry (stages not merged), with its source and line."""
        report = self.report
        for source in self.sources:
            for value, name in self.values(source):
                if isinstance(value, Problem):
                    report.problems.append(SourcedProblem(name, value.line, value.message))
                    continue
                try:
                    found_all = list(events_in(value.value))
                except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a shape no format expects
                    report.problems.append(SourcedProblem(name, value.line, f"unreadable entry: {exc!r}"))
                    continue
                for found in found_all:
                    if isinstance(found, Skipped):
                        report.skipped[found.reason] += 1
                    elif isinstance(found, EventError):
                        report.problems.append(SourcedProblem(name, value.line, str(found)))
                    else:
                        entry = self._decode(found, name, value.line)
                        if entry is not None:
                            yield entry, name, value.line

    def _decode(self, found: Found, name: str, line: int) -> AuditEntry | None:
        try:
            entry = decode(found.event, notes=found.notes)
        except EventError as exc:
            self.report.problems.append(SourcedProblem(name, line, str(exc)))
            return None
        except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a shape the checks did not foresee
            self.report.problems.append(SourcedProblem(name, line, f"unreadable entry: {exc!r}"))
            return None
        self.report.events += 1
        self.report.formats[found.format] += 1
        return entry

    def __iter__(self) -> Iterator[AuditEntry]:
        pending: dict[str, AuditEntry] = {}
        seq = 0
        for entry, _, _ in self.events():
            request = entry.request
            assert request is not None  # decode always sets it
            audit_id, stage = request.audit_id, request.stages[0]
            if self.merge_stages and audit_id:
                if stage in _HELD:
                    earlier = pending.get(audit_id)
                    pending[audit_id] = _merged(earlier, entry) if earlier is not None else entry
                    continue
                earlier = pending.pop(audit_id, None)
                if earlier is not None:
                    entry = _merged(earlier, entry)
            seq += 1
            yield self._counted(entry, seq)
        for entry in pending.values():
            seq += 1
            yield self._counted(entry, seq)

    def _counted(self, entry: AuditEntry, seq: int) -> AuditEntry:
        if not entry.seq:
            entry.seq = seq
        self.report.requests += 1
        self.report.codes[entry.code] += 1
        return entry


def _merged(earlier: AuditEntry, later: AuditEntry) -> AuditEntry:
    """One request from two of its stages: the later one's outcome, the earlier one's start. The time of a
    long-running request is when its response started (when the store served it), as fakekube's entries have
    it; of any other, when it completed."""
    assert earlier.request is not None and later.request is not None
    if "ResponseStarted" in earlier.request.stages:
        later.time = earlier.time
    later.request.stages = earlier.request.stages + later.request.stages
    if earlier.request.received is not None:
        later.request.received = earlier.request.received
    if later.request_object is None:
        later.request_object = earlier.request_object
    if not later.code:
        later.code, later.reason, later.message = earlier.code, earlier.reason, earlier.message
    return later


def read_log(*sources: Source, merge_stages: bool = True) -> tuple[list[AuditEntry], ReadReport]:
    """All entries of small logs at once, with the report."""
    reader = AuditLogReader(*sources, merge_stages=merge_stages)
    entries = list(reader)
    return entries, reader.report
