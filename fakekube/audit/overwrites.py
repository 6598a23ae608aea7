"""Stale overwrites judged from an audit log alone: the log of a real kube-apiserver, which does not know which
version of an object a client computed its write from.

The simulation's detector (``fakekube.sim.stale``) is told each write's base. A real log is not, so the judge
rebuilds each object's versions from the response bodies of its writes (they must be logged at RequestResponse,
every one of them) and asks of each committed write:

- what it changed: the previous version against its own response (``relevant_paths``);
- which versions it can have been computed from: a write whose body carries ``metadata.resourceVersion`` (an
  Update, a merge patch with an optimistic lock) names its base, and the server committed it only on that very
  version; a merge patch without one (controller-runtime's ``MergeFrom``) holds exactly the fields where the
  writer's copy differed from what it wanted, so the writer's copy *differed from the body in every leaf of the
  body* (a ``null`` leaf: the copy had the key). The logged versions that pass that test are the candidate bases;
  the true base is always among them, since a client's cache holds only versions the server wrote.
- whom it overwrote: for each path it changed, the latest earlier write that changed that path too.

A path is **overwritten stale** when that earlier write is newer than every candidate base: whatever the writer
read, it had not seen that write. It is **fresh** when every candidate is at least as new as it; **undecided**
when candidates lie on both sides (the body fits an old version and a new one alike). What the log cannot tell:
which version the writer's cache actually held, beyond what its body rules out; and nothing at all about an
object whose writes are not all logged with their bodies (those writes count as ``unjudged``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fakekube.audit.entry import AuditEntry
from fakekube.audit.paths import IGNORED, Path, overlap, relevant_paths, render_path

_MISSING = object()
VERDICTS = ("stale", "undecided", "fresh", "no-change", "unjudged")


@dataclass(slots=True)
class LoggedOverwrite:
    """One committed write that replaced a value another write had set after every version it can have read."""

    seq: int
    time: float
    actor: str
    verb: str
    resource: str
    subresource: str | None
    namespace: str | None
    name: str | None
    rv_before: str  # the version the write landed on
    bases: list[str]  # the versions its body fits (its base is one of them)
    paths: list[str]  # what it overwrote
    other_actor: str  # who had written those paths (the newest such write)
    other_rv: str

    @property
    def target(self) -> str:
        return "/".join(p for p in (self.resource, self.name, self.subresource) if p)

    def note(self) -> str:
        return (f"stale overwrite: {', '.join(self.paths)} (after {self.other_actor}@rv {self.other_rv}; "
                f"computed from rv {' or '.join(self.bases)})")

    def __str__(self) -> str:
        return f"#{self.seq} {self.actor} {self.verb.upper()} {self.target} on rv {self.rv_before}: {self.note()}"


@dataclass
class OverwriteReport:
    """Every committed write of the judged objects, with its verdict (``VERDICTS``)."""

    overwrites: list[LoggedOverwrite] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)  # verdict -> writes
    by_target: dict[str, Counter[str]] = field(default_factory=dict)  # "resource/subresource verb" -> verdicts
    unjudged_why: Counter[str] = field(default_factory=Counter)
    # Committed writes whose every candidate base is older than the version they landed on: computed from a stale
    # view, whether or not they changed a value someone else had set (a rewrite of the same values loses nothing).
    stale_base: Counter[str] = field(default_factory=Counter)

    def count(self, key: str, verdict: str) -> None:
        self.verdicts[verdict] += 1
        self.by_target.setdefault(key, Counter())[verdict] += 1

    def to_dict(self) -> dict[str, Any]:
        return {"verdicts": {v: self.verdicts.get(v, 0) for v in VERDICTS},
                "by_write": {k: {v: c[v] for v in VERDICTS if c[v]} for k, c in sorted(self.by_target.items())},
                "unjudged": dict(self.unjudged_why.most_common()),
                "stale_base": dict(sorted(self.stale_base.items())),
                "overwrites": [{"seq": o.seq, "actor": o.actor, "verb": o.verb, "target": o.target,
                                "namespace": o.namespace, "rv_before": o.rv_before, "bases": o.bases,
                                "paths": o.paths, "other_actor": o.other_actor, "other_rv": o.other_rv}
                               for o in self.overwrites]}


def _rv(obj: Any) -> str | None:
    rv = ((obj or {}).get("metadata") or {}).get("resourceVersion") if isinstance(obj, dict) else None
    return rv if isinstance(rv, str) and rv.isdigit() else None


def _leaves(value: Any, prefix: Path = ()) -> Iterable[tuple[Path, Any]]:
    """A merge patch's leaves: objects are recursed into (a non-empty one), anything else is one value."""
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            yield from _leaves(inner, (*prefix, key))
    else:
        yield prefix, value


def _get(obj: Any, path: Path) -> Any:
    for part in path:
        if not isinstance(obj, dict) or part not in obj:
            return _MISSING
        obj = obj[part]
    return obj


def _changes(old: Any, new: Any) -> list[Path]:
    """``relevant_paths``, with an object added or removed whole taken as its leaves: a write that adds one
    annotation to a map another write created overwrote nothing of it."""
    out: list[Path] = []
    for path in relevant_paths(old, new):
        before, after = _get(old, path), _get(new, path)
        whole = after if before is _MISSING else before if after is _MISSING else None
        if isinstance(whole, dict) and whole:
            out.extend(path + leaf for leaf, _ in _leaves(whole) if not _ignored(path + leaf))
        else:
            out.append(path)
    return out


def _ignored(path: Path) -> bool:
    return any(path[:len(i)] == i for i in IGNORED)


def fits(patch: dict[str, Any], version: dict[str, Any]) -> bool:
    """Can a ``MergeFrom`` patch have been computed from ``version``? Only if the copy differed from the patch in
    every leaf the patch names (json-patch ``CreateMergePatch`` leaves out equal fields; a ``null`` removes a key
    the copy had)."""
    for path, value in _leaves(patch):
        if _ignored(path):
            continue
        have = _get(version, path)
        if value is None:
            if have is _MISSING:
                return False
        elif have == value:
            return False
    return True


def _body_rv(entry: AuditEntry) -> str | None:
    return _rv(entry.request_object) or (entry.request_rv if entry.request_rv and entry.request_rv.isdigit()
                                         else None)


def _key(entry: AuditEntry) -> tuple[str, str, str | None, str | None]:
    return entry.group, entry.resource, entry.namespace, entry.name


def judge(entries: Iterable[AuditEntry], resources: Iterable[str] | None = None) -> OverwriteReport:
    """Judge every committed write of the objects of ``resources`` (default: every resource a write was logged
    with its response body for)."""
    wanted = set(resources) if resources is not None else None
    objects: dict[tuple[str, str, str | None, str | None], list[AuditEntry]] = {}
    for e in entries:
        if not e.is_write or e.dry_run or not 200 <= e.code < 300 or e.verb == "deletecollection":
            continue
        if wanted is not None and e.resource not in wanted:
            continue
        if wanted is None and e.level != "RequestResponse":
            continue
        objects.setdefault(_key(e), []).append(e)
    report = OverwriteReport()
    for writes in objects.values():
        _judge_object(writes, report)
    report.overwrites.sort(key=lambda o: (o.time, o.seq))
    return report


def _judge_object(writes: list[AuditEntry], report: OverwriteReport) -> None:
    def key_of(e: AuditEntry) -> str:
        return f"{e.resource}{'/' + e.subresource if e.subresource else ''} {e.verb}"

    # The versions in commit order: etcd's revision (the resourceVersion) rises with every commit, whatever order
    # the log's lines were written in. A write logged without its response body is a version nobody can see past.
    ordered = sorted(((int(_rv(e.response_object) or 0), e) for e in writes if _rv(e.response_object)),
                     key=lambda t: t[0])
    first_gap = next((e.seq for e in writes if not _rv(e.response_object) and e.verb != "delete"), None)
    versions: list[dict[str, Any]] = []
    changed: list[list[Path]] = []  # per version: the paths its write changed
    authors: list[AuditEntry] = []
    for _revision, e in ordered:
        obj = e.response_object
        if first_gap is not None and e.seq > first_gap:
            report.count(key_of(e), "unjudged")
            report.unjudged_why["an earlier write of the object was logged without its response"] += 1
            continue
        if e.verb == "create" or not versions:
            versions.append(obj)
            changed.append(_changes({}, obj))
            authors.append(e)
            if e.verb != "create":
                report.count(key_of(e), "unjudged")
                report.unjudged_why["the object's create is not in the log"] += 1
            continue
        before = versions[-1]
        mine = _changes(before, obj)
        verdict = _verdict(e, mine, versions, changed, authors, report)
        report.count(key_of(e), verdict)
        versions.append(obj)
        changed.append(mine)
        authors.append(e)
    for e in writes:
        if not _rv(e.response_object) and e.verb != "delete":
            report.count(key_of(e), "unjudged")
            report.unjudged_why["logged without its response body"] += 1


def _verdict(e: AuditEntry, mine: list[Path], versions: list[dict[str, Any]], changed: list[list[Path]],
             authors: list[AuditEntry], report: OverwriteReport) -> str:
    base_rv = _body_rv(e)
    if base_rv is not None:
        bases = [i for i, v in enumerate(versions) if _rv(v) == base_rv]
        if not bases:
            report.unjudged_why["its resourceVersion names a version not in the log"] += 1
            return "unjudged"
    elif e.verb == "patch" and isinstance(e.request_object, dict) and (e.patch_type or "merge") != "apply":
        bases = [i for i, v in enumerate(versions) if fits(e.request_object, v)]
        if not bases:
            report.unjudged_why["its patch fits no logged version"] += 1
            return "unjudged"
    elif not mine:
        return "no-change"
    else:
        report.unjudged_why[f"a {e.verb} without a resourceVersion or a readable merge patch body"] += 1
        return "unjudged"
    newest, oldest = max(bases), min(bases)
    if _rv(versions[newest]) != _rv(versions[-1]):
        # Whatever it was computed from, the writer had not seen the version it landed on.
        report.stale_base[f"{e.resource}{'/' + e.subresource if e.subresource else ''} {e.verb}"] += 1
    if not mine:
        return "no-change"
    stale: dict[int, list[str]] = {}
    undecided = False
    for path in mine:
        # The latest earlier write that changed this path too (the create counts: it set every path it has).
        last = next((i for i in range(len(versions) - 1, -1, -1) if any(overlap(path, t) for t in changed[i])), None)
        if last is None or last <= oldest:
            continue
        if last > newest:
            stale.setdefault(last, []).append(render_path(path))
        else:
            undecided = True
    for i, paths in sorted(stale.items()):
        other = authors[i]
        record = LoggedOverwrite(e.seq, e.time, e.actor, e.verb, e.resource, e.subresource, e.namespace, e.name,
                                 _rv(versions[-1]) or "", [_rv(versions[b]) or "" for b in bases], paths,
                                 other.actor, _rv(versions[i]) or "")
        report.overwrites.append(record)
        e.notes.append(record.note())
    if stale:
        return "stale"
    return "undecided" if undecided else "fresh"


def text_lines(report: OverwriteReport) -> list[str]:
    """The report as ``fakekube audit stale`` prints it."""
    v = report.verdicts
    lines = [f"writes judged: {sum(v.values())} — stale {v['stale']}, undecided {v['undecided']}, fresh "
             f"{v['fresh']}, no change {v['no-change']}, unjudged {v['unjudged']}"]
    for key, counts in sorted(report.by_target.items()):
        lines.append(f"  {key}: " + ", ".join(f"{name} {counts[name]}" for name in VERDICTS if counts[name]))
    if report.stale_base:
        lines.append("  computed from a version older than the one they landed on: "
                     + ", ".join(f"{k} {n}" for k, n in sorted(report.stale_base.items())))
    for why, n in report.unjudged_why.most_common():
        lines.append(f"  unjudged: {why} ({n})")
    if report.overwrites:
        lines.append("stale overwrites:")
        lines.extend(f"  {o}" for o in report.overwrites)
    return lines
