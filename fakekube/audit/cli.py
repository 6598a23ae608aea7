"""``fakekube audit``: read any audit log — kube-apiserver's, a GKE or AKS export, fakekube's — and print it.

    fakekube audit summary LOG...                  requests by verb, resource and actor; 409s by reason
    fakekube audit conflicts LOG... [--resource-name TEXT]...   the 409 Conflicts (PR #508's count)
    fakekube audit timeline LOG... --object RESOURCE/NAME [--related]   one object's story, PR #508's table
    fakekube audit compare BEFORE AFTER            the same figures side by side (the PR's before/after)
    fakekube audit denials LOG...                  what authorization refused each user (service accounts first)
    fakekube audit stale LOG... [--resource R]...  writes that overwrote a newer value (needs RequestResponse bodies)

``--json`` prints one JSON document instead; ``--svg PATH`` (conflicts, timeline) draws swim lanes. Lines that
cannot be read are reported on stderr with their line numbers and skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fakekube.audit.analysis import matches_names, object_timeline, summarize
from fakekube.audit.denials import denial_lines, denials
from fakekube.audit.entry import AuditEntry
from fakekube.audit.event import micro_time
from fakekube.audit.reader import AuditLogReader, ReadReport
from fakekube.audit.timeline import Timeline
from fakekube.clihelp import HelpFormatter, examples

_SHOWN = 8  # items of a count list printed as text


DESCRIPTION = """\
Read audit logs — kube-apiserver's (--audit-log-path), a GKE or AKS export, fakekube's — and print what they
say: requests by verb, resource and actor, the 409 Conflicts, one object's story as PR #508's table, two logs
side by side. Lines that cannot be read are reported on stderr and skipped. See docs/audit-logs.md."""

EXAMPLES = examples(
    "fakekube audit summary audit.log",
    "fakekube audit conflicts before.log --resource-name sandboxclaims",
    "fakekube audit timeline audit.log --object sandboxclaims/agent-claim-4 --related --svg claim.svg",
    "fakekube audit compare before.log after.log",
    "fakekube audit denials audit.log",
    "fakekube audit stale audit.log --resource sandboxclaims",
    "fakekube audit SUBCOMMAND --help",
)
_EXAMPLES = {
    "summary": ("fakekube audit summary audit.log", "fakekube audit summary gke-export.json --json"),
    "conflicts": ("fakekube audit conflicts audit.log", "fakekube audit conflicts audit.log --resource-name "
                  "sandboxclaims --svg conflicts.svg"),
    "timeline": ("fakekube audit timeline audit.log --object sandboxclaims/agent-claim-4",
                 "fakekube audit timeline audit.log --object pods/web-0 -n default --reads --actor"),
    "compare": ("fakekube audit compare before.log after.log",
                "fakekube audit compare before.log after.log --resource-name sandboxclaims --json"),
    "denials": ("fakekube audit denials audit.log",),
    "stale": ("fakekube audit stale audit.log", "fakekube audit stale audit.log --resource sandboxclaims --json"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_subparsers(dest="audit_command", required=True, title="subcommands", metavar="SUBCOMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        return group.add_parser(name, help=help, description=help, epilog=examples(*_EXAMPLES[name]),
                                formatter_class=HelpFormatter)

    def common(p: argparse.ArgumentParser, logs: bool = True) -> None:
        if logs:
            p.add_argument("logs", nargs="+", metavar="LOG", help="audit log files (JSON lines, JSON, YAML, .gz)")
        p.add_argument("--json", action="store_true", help="print one JSON document")

    p = add("summary", help="requests by verb, resource and actor; 409s by reason, resource, actor, object")
    common(p)
    p.add_argument("--resource-name", action="append", default=[], metavar="TEXT",
                   help="only requests whose GKE-style resourceName contains TEXT (repeatable: any of them)")
    p = add("conflicts", help="the 409s: Conflict (optimistic lock), with --all-409 AlreadyExists too")
    common(p)
    p.add_argument("--resource-name", action="append", default=[], metavar="TEXT",
                   help="like Cloud Logging's protoPayload.resourceName filter: a substring (repeatable: any)")
    p.add_argument("--all-409", action="store_true", help="every 409, AlreadyExists included")
    p.add_argument("--delta", choices=("start", "previous"), default="start",
                   help="Delta (ms) since step 1 or since the previous row")
    p.add_argument("--svg", metavar="PATH", help="also draw the conflicts as swim lanes")
    p = add("timeline", help="one object's requests as PR #508's table")
    common(p)
    p.add_argument("--object", required=True, metavar="RESOURCE/NAME", help="e.g. sandboxclaims/agent-claim-4")
    p.add_argument("--namespace", "-n", default=None, help="the object's namespace (default: any)")
    p.add_argument("--related", action="store_true",
                   help="also objects related by name, generateName and ownerReferences")
    p.add_argument("--reads", action="store_true", help="include GET, LIST and WATCH")
    p.add_argument("--delta", choices=("start", "previous"), default="start",
                   help="Delta (ms) since step 1 (default, as PR #508) or since the previous row")
    p.add_argument("--actor", action="store_true", help="add an Actor column")
    p.add_argument("--svg", metavar="PATH", help="also draw the timeline as swim lanes")
    p = add("compare", help="two logs' figures side by side (before / after a change)")
    p.add_argument("before", metavar="BEFORE")
    p.add_argument("after", metavar="AFTER")
    p.add_argument("--resource-name", action="append", default=[], metavar="TEXT",
                   help="only requests whose resourceName contains TEXT (repeatable: any)")
    common(p, logs=False)
    p = add("denials", help="what authorization refused, by user and by the rule that would allow it")
    common(p)
    p = add("stale", help="committed writes that overwrote a value written after every version they can have been "
                          "computed from (judged from RequestResponse bodies; see fakekube.audit.overwrites)")
    common(p)
    p.add_argument("--resource", action="append", default=None, metavar="RESOURCE",
                   help="only these resources' objects (repeatable; default: every object written with its body)")


def _read(paths: Sequence[str], keep: Any = None) -> tuple[list[AuditEntry], ReadReport]:
    reader = AuditLogReader(*paths)
    entries = [e for e in reader if keep is None or keep(e)]
    return entries, reader.report


def _warn(report: ReadReport) -> None:
    for problem in report.problems[:20]:
        print(f"fakekube audit: {problem}", file=sys.stderr)
    if len(report.problems) > 20:
        print(f"fakekube audit: ... and {len(report.problems) - 20} more unreadable parts", file=sys.stderr)


def _missing(paths: Iterable[str]) -> list[str]:
    return [p for p in paths if not Path(p).is_file()]


def run(args: argparse.Namespace) -> int:
    paths = [args.before, args.after] if args.audit_command == "compare" else args.logs
    missing = _missing(paths)
    if missing:
        print(f"fakekube audit: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    command = {"summary": _summary, "conflicts": _conflicts, "timeline": _timeline, "compare": _compare,
               "denials": _denials, "stale": _stale}
    return command[args.audit_command](args)


# -- summary ------------------------------------------------------------------------------------------------

def _fmt_counts(counts: dict[str, int], shown: int = _SHOWN) -> str:
    items = list(counts.items())
    text = ", ".join(f"{k} {v}" for k, v in items[:shown]) or "none"
    return text + (f", ... ({len(items) - shown} more)" if len(items) > shown else "")


def _when(seconds: float | None) -> str:
    return micro_time(seconds) if seconds else "?"


def summary_lines(s: dict[str, Any]) -> list[str]:
    rows = [("requests", f"{s['requests']} ({_when(s['first'])} .. {_when(s['last'])}, {s['seconds']:g} s)"),
            ("by verb", _fmt_counts(s["by_verb"])), ("by resource", _fmt_counts(s["by_resource"])),
            ("by actor", _fmt_counts(s["by_actor"])), ("by user", _fmt_counts(s["by_user"])),
            ("codes", _fmt_counts(s["codes"], 20))]
    c409 = s["409"]
    rows.append(("409s", f"{c409['total']}: Conflict {c409['by_reason'].get('Conflict', 0)}, AlreadyExists "
                         f"{c409['by_reason'].get('AlreadyExists', 0)}"
                 + "".join(f", {k} {v}" for k, v in c409["by_reason"].items() if k not in ("Conflict", "AlreadyExists"))))
    for reason in c409["by_reason"]:
        for key in ("by_resource", "by_actor", "by_object"):
            rows.append((f"  {reason} {key.replace('_', ' ')}", _fmt_counts(c409[reason][key])))
    width = max(len(k) for k, _ in rows)
    return [f"{k.ljust(width)}  {v}" for k, v in rows]


def _summary(args: argparse.Namespace) -> int:
    entries, report = _read(args.logs, lambda e: matches_names(e, args.resource_name))
    _warn(report)
    s = summarize(entries)
    if args.json:
        print(json.dumps({"summary": s, "read": report.to_dict()}, indent=2, sort_keys=True))
    else:
        print("\n".join(summary_lines(s)))
    return 0 if entries or not report.problems else 1


# -- conflicts ----------------------------------------------------------------------------------------------

def _conflicts(args: argparse.Namespace) -> int:
    def keep(e: AuditEntry) -> bool:
        return e.code == 409 and (args.all_409 or e.reason == "Conflict") and matches_names(e, args.resource_name)

    entries, report = _read(args.logs, keep)
    _warn(report)
    entries.sort(key=lambda e: (e.time, e.seq))
    s = summarize(entries)
    timeline = Timeline.from_audit(entries, verbs=sorted({e.verb for e in entries}))
    if args.svg:
        Path(args.svg).write_text(timeline.to_svg(title="409s"))
    if args.json:
        print(json.dumps({"conflicts": s["409"], "requests": [_entry_json(e) for e in entries],
                          "read": report.to_dict()}, indent=2, sort_keys=True))
        return 0
    c409 = s["409"]
    print(f"409s: {c409['total']} ({_fmt_counts(c409['by_reason'])})")
    for reason in c409["by_reason"]:
        for key in ("by_resource", "by_actor", "by_object"):
            print(f"  {reason} {key.replace('_', ' ')}: {_fmt_counts(c409[reason][key])}")
    if entries:
        print()
        print(timeline.to_markdown(delta=args.delta, actor_column=True), end="")
    return 0


def _entry_json(e: AuditEntry) -> dict[str, Any]:
    return {"seq": e.seq, "time": _when(e.time), "actor": e.actor, "verb": e.verb, "resource": e.resource,
            "subresource": e.subresource, "namespace": e.namespace, "name": e.name, "code": e.code,
            "reason": e.reason, "message": e.message, "notes": e.notes,
            "audit_id": e.request.audit_id if e.request is not None else ""}


# -- stale --------------------------------------------------------------------------------------------------

def _stale(args: argparse.Namespace) -> int:
    from fakekube.audit.overwrites import judge, text_lines

    entries, report = _read(args.logs)
    _warn(report)
    judged = judge(entries, args.resource)
    if args.json:
        print(json.dumps({"stale": judged.to_dict(), "read": report.to_dict()}, indent=2, sort_keys=True))
    else:
        print("\n".join(text_lines(judged)))
    return 0


# -- timeline -----------------------------------------------------------------------------------------------

def _timeline(args: argparse.Namespace) -> int:
    try:
        timeline, report = object_timeline(*args.logs, obj=args.object, namespace=args.namespace,
                                           related=args.related, include_reads=args.reads)
    except ValueError as exc:
        print(f"fakekube audit timeline: {exc}", file=sys.stderr)
        return 2
    _warn(report)
    if args.svg:
        Path(args.svg).write_text(timeline.to_svg(title=args.object))
    if args.json:
        rows = [{"step": r.step, "offset_ms": r.offset_ms, "delta_ms": r.delta_ms, "method": r.method,
                 "target": r.target, "actor": r.actor, "code": r.code, "reason": r.reason, "notes": r.notes}
                for r in timeline]
        print(json.dumps({"object": args.object, "rows": rows, "read": report.to_dict()}, indent=2, sort_keys=True))
        return 0
    if not timeline.rows:
        print(f"fakekube audit timeline: no {'requests' if args.reads else 'writes'} for {args.object}"
              + ("" if args.related else " (--related adds related objects)"), file=sys.stderr)
        return 1
    print(timeline.to_markdown(delta=args.delta, actor_column=args.actor), end="")
    return 0


# -- compare ------------------------------------------------------------------------------------------------

def _compare(args: argparse.Namespace) -> int:
    sides = {}
    for label, path in (("before", args.before), ("after", args.after)):
        entries, report = _read([path], lambda e: matches_names(e, args.resource_name))
        _warn(report)
        sides[label] = summarize(entries)
    if args.json:
        print(json.dumps(sides, indent=2, sort_keys=True))
        return 0
    before, after = sides["before"], sides["after"]

    def reason(s: dict[str, Any], r: str) -> int:
        return int(s["409"]["by_reason"].get(r, 0))

    rows = [["", "before", "after"],
            ["requests", str(before["requests"]), str(after["requests"])],
            ["409 Conflict", str(reason(before, "Conflict")), str(reason(after, "Conflict"))],
            ["409 AlreadyExists", str(reason(before, "AlreadyExists")), str(reason(after, "AlreadyExists"))]]
    for key, label in (("by_resource", "Conflict on"), ("by_actor", "Conflict by")):
        names = sorted(set(before["409"].get("Conflict", {}).get(key, {})) | set(after["409"].get("Conflict", {})
                                                                                .get(key, {})))
        for n in names:
            rows.append([f"  {label} {n}", str(before["409"].get("Conflict", {}).get(key, {}).get(n, 0)),
                         str(after["409"].get("Conflict", {}).get(key, {}).get(n, 0))])
    for verb in sorted(set(before["by_verb"]) | set(after["by_verb"])):
        rows.append([f"  {verb}", str(before["by_verb"].get(verb, 0)), str(after["by_verb"].get(verb, 0))])
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    return 0


def _denials(args: argparse.Namespace) -> int:
    entries, report = _read(args.logs)
    _warn(report)
    found = denials(entries)
    if args.json:
        print(json.dumps({"denials": {user: [r.to_dict() for r in refusals] for user, refusals in found.items()},
                          "read": report.to_dict()}, indent=2, sort_keys=True))
    else:
        print("\n".join(denial_lines(found)))
    return 0
