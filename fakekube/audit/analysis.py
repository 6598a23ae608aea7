"""Figures and selections over audit entries — from any log, real or fakekube's: what ``fakekube audit`` prints.

- `summarize`: requests by verb, resource and actor; codes; 409s split by reason (``Conflict``: an
  optimistic-lock failure; ``AlreadyExists``: a create of a name that exists) and counted by resource, actor
  and object.
- `resource_name`: an entry's target spelled as GKE's ``protoPayload.resourceName``
  (``core/v1/namespaces/ns/pods/name``), so that a Cloud Logging filter's substring (PR #508's
  ``pods/sandboxclaim-``, ``sandboxclaims/``) selects the same requests here.
- `Related`: the objects related to one object — the same name under other resources (a sandbox, its pod and
  service), names built on it (``<name>-network-policy``, an Event ``<name>.<hex>``), creates whose
  ``generateName`` starts with it, and, where the log carries bodies, objects whose ownerReferences point to
  it or that it points to, and Events whose ``involvedObject`` is it; `object_timeline` puts them in a timeline.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fakekube.audit.entry import AuditEntry
from fakekube.audit.names import SEPARATORS
from fakekube.audit.reader import AuditLogReader, ReadReport, Source
from fakekube.audit.timeline import Timeline


def _counts(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def target(entry: AuditEntry) -> str:
    return entry.resource + (f"/{entry.subresource}" if entry.subresource else "")


def object_of(entry: AuditEntry) -> str:
    """``resource/[namespace/]name`` of the object a request is about (``resource`` for a collection)."""
    if not entry.name:
        return entry.resource or "(non-resource)"
    return "/".join(p for p in (entry.resource, entry.namespace, entry.name) if p)


def resource_name(entry: AuditEntry) -> str:
    parts = [entry.group or "core", entry.version or "v1"]
    if entry.namespace and entry.resource != "namespaces":
        parts += ["namespaces", entry.namespace]
    parts.append(entry.resource)
    if entry.name:
        parts.append(entry.name)
    if entry.subresource:
        parts.append(entry.subresource)
    return "/".join(parts)


def matches_names(entry: AuditEntry, substrings: Iterable[str]) -> bool:
    subs = list(substrings)
    if not subs:
        return True
    text = resource_name(entry)
    return any(s in text for s in subs)


def summarize(entries: Iterable[AuditEntry]) -> dict[str, Any]:
    """The figures of a log (see the module docstring)."""
    by_verb: Counter[str] = Counter()
    by_resource: Counter[str] = Counter()
    by_actor: Counter[str] = Counter()
    by_user: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    split: dict[str, dict[str, Counter[str]]] = {}
    first = last = None
    total = 0
    for e in entries:
        total += 1
        by_verb[e.verb or "?"] += 1
        by_resource[target(e) or "(non-resource)"] += 1
        by_actor[e.actor] += 1
        user = e.request.user if e.request is not None and e.request.user else e.actor
        by_user[user] += 1
        codes[str(e.code)] += 1
        if e.time:
            first = e.time if first is None else min(first, e.time)
            last = e.time if last is None else max(last, e.time)
        if e.code == 409:
            reason = e.reason or "(no reason)"
            reasons[reason] += 1
            groups = split.setdefault(reason, {"by_resource": Counter(), "by_actor": Counter(),
                                                "by_object": Counter()})
            groups["by_resource"][target(e)] += 1
            groups["by_actor"][e.actor] += 1
            groups["by_object"][object_of(e)] += 1
    return {
        "requests": total,
        "first": first, "last": last, "seconds": round(last - first, 6) if first is not None and last else 0.0,
        "by_verb": _counts(by_verb), "by_resource": _counts(by_resource), "by_actor": _counts(by_actor),
        "by_user": _counts(by_user), "codes": dict(sorted(codes.items())),
        "409": {"total": sum(reasons.values()), "by_reason": _counts(reasons),
                **{reason: {k: _counts(v) for k, v in groups.items()} for reason, groups in sorted(split.items())}},
    }


def _meta(body: Any) -> dict[str, Any]:
    meta = body.get("metadata") if isinstance(body, dict) else None
    return meta if isinstance(meta, dict) else {}


def _bodies(entry: AuditEntry) -> list[dict[str, Any]]:
    return [b for b in (entry.request_object, entry.response_object) if isinstance(b, dict)]


@dataclass
class Related:
    """The objects related to ``resource/name`` in a log (one hop; see the module docstring). ``observe``
    every entry once, then ``includes(entry)`` says whether an entry is about the object or a related one."""

    resource: str
    name: str
    namespace: str | None = None
    related: bool = True
    uids: set[str] = field(default_factory=set)
    owned_by_target: set[tuple[str, str]] = field(default_factory=set)  # (resource, name)
    owners_of_target: set[str] = field(default_factory=set)  # names (kinds differ from resources)
    generated: set[tuple[str, str]] = field(default_factory=set)

    def _is_target(self, entry: AuditEntry) -> bool:
        return (entry.resource == self.resource and entry.name == self.name
                and (self.namespace is None or entry.namespace in (None, self.namespace)))

    def observe(self, entry: AuditEntry) -> None:
        if not self.related:
            return
        if self._is_target(entry):
            for body in _bodies(entry):
                meta = _meta(body)
                if isinstance(meta.get("uid"), str):
                    self.uids.add(meta["uid"])
                for ref in meta.get("ownerReferences") or ():
                    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
                        self.owners_of_target.add(ref["name"])
            if entry.uid:
                self.uids.add(entry.uid)
            return
        for body in _bodies(entry):
            meta = _meta(body)
            for ref in meta.get("ownerReferences") or ():
                if not isinstance(ref, dict):
                    continue
                if ref.get("uid") in self.uids or (ref.get("name") == self.name and not self.uids):
                    if entry.name:
                        self.owned_by_target.add((entry.resource, entry.name))
                    elif entry.verb == "create":
                        self.generated.add((entry.resource, str(meta.get("generateName") or "")))
            involved = body.get("involvedObject") if isinstance(body, dict) else None
            if isinstance(involved, dict) and involved.get("name") == self.name and entry.name:
                self.owned_by_target.add((entry.resource, entry.name))

    def includes(self, entry: AuditEntry) -> bool:
        if self._is_target(entry):
            return True
        if not self.related or not entry.resource:
            return False
        name = entry.name
        if name == self.name or (name and name.startswith(self.name) and name[len(self.name)] in SEPARATORS):
            return True
        if name and ((entry.resource, name) in self.owned_by_target or name in self.owners_of_target):
            return True
        generate = entry.generate_name or str(_meta(entry.request_object).get("generateName") or "")
        if not generate:
            return False
        # Objects generated from the target's name (a ReplicaSet's pods), or, when the log does not say
        # which name a generateName create got, the creates that may have made the target.
        return generate.startswith(self.name) or (not name and self.name.startswith(generate))


def object_timeline(*sources: Source, obj: str, namespace: str | None = None, related: bool = False,
                    include_reads: bool = False) -> tuple[Timeline, ReadReport]:
    """One object's requests (``resource/name``), and with ``related`` its related objects', as a timeline in
    the order they completed — what ``fakekube audit timeline`` prints. Reads the sources twice when
    ``related`` (uids and ownerReferences first)."""
    resource, _, name = obj.partition("/")
    if not resource or not name or "/" in name:
        raise ValueError(f"the object must be RESOURCE/NAME, e.g. sandboxclaims/agent-claim-4, not {obj!r}")
    selection = Related(resource, name, namespace, related=related)
    if related:
        for entry in AuditLogReader(*sources):
            selection.observe(entry)
    reader = AuditLogReader(*sources)
    entries = sorted((e for e in reader if selection.includes(e)), key=lambda e: (e.time, e.seq))
    return Timeline.from_audit(entries, include_reads=include_reads), reader.report
