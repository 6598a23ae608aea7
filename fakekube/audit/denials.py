"""What each user — above all each service account — was refused by authorization during a run.

Read from any audit log: an event whose ``authorization.k8s.io/decision`` annotation is ``forbid`` (what
kube-apiserver and fakekube write, apiserver ``pkg/endpoints/filters/authorization.go``), or, in a log without
the annotation, a 403 whose message is RBAC's ``... is forbidden: User "..." cannot ...``. Admission's 403s
(a terminating namespace, a quota) are not authorization's and are left out.

A refusal that came before authorization — impersonation's (apiserver
``pkg/endpoints/filters/impersonation``), which writes no decision — is read from its message, which names the
check that failed: the requestor refused ``impersonate`` on ``users``, not the request's own verb.

The report groups refusals by user, then by what a Role rule would have to grant — verb, API group, resource
(with its subresource) and namespace — so an operator's RBAC manifest can be fixed before a real cluster says
Forbidden.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fakekube.audit.entry import AuditEntry

# The annotations kube-apiserver's authorization filter writes (and fakekube's front, fakekube.server.auditing).
DECISION = "authorization.k8s.io/decision"
REASON = "authorization.k8s.io/reason"
_RBAC_FORBIDDEN = re.compile(r'is forbidden: User ".*" cannot ')
_SERVICE_ACCOUNT = "system:serviceaccount:"
# responsewriters.ForbiddenStatusError's text: what was refused to whom (the user part HTML-escaped)
_REFUSED_RESOURCE = re.compile(r'^\S+?(?: "(?P<name>.*?)")? is forbidden: User "(?P<user>.*?)" cannot (?P<verb>\S+) '
                               r'resource "(?P<resource>[^"]*)" in API group "(?P<group>[^"]*)"'
                               r'(?: in the namespace "(?P<namespace>[^"]*)"| at the cluster scope)')
_REFUSED_PATH = re.compile(r'^forbidden: User "(?P<user>.*?)" cannot (?P<verb>\S+) path "(?P<path>[^"]*)"')


@dataclass
class Refusal:
    """One kind of refused request: what a rule would have to allow, how often, and a few object names."""

    verb: str
    group: str
    resource: str
    namespace: str | None
    count: int = 0
    names: list[str] = field(default_factory=list)

    def rule(self) -> str:
        where = f"in namespace {self.namespace}" if self.namespace else "cluster-wide"
        group = self.group or '"" (core)'
        return f"{self.verb} {self.resource} (apiGroup {group}) {where}"

    def to_dict(self) -> dict[str, Any]:
        return {"verb": self.verb, "apiGroup": self.group, "resource": self.resource,
                "namespace": self.namespace, "count": self.count, "names": self.names}


def refused(entry: AuditEntry) -> bool:
    """Whether authorization refused the request."""
    annotations = entry.request.annotations if entry.request is not None else {}
    if DECISION in annotations:
        return annotations[DECISION] == "forbid"
    message = entry.message or ""
    return entry.code == 403 and bool(_RBAC_FORBIDDEN.search(message) or _REFUSED_PATH.match(message))


def _subject(entry: AuditEntry) -> str:
    """Whom authorization judged: the impersonated user when there is one, else the authenticated user."""
    request = entry.request
    if request is None:
        return entry.actor
    if request.impersonated_user and request.impersonated_user.get("username"):
        return str(request.impersonated_user["username"])
    return request.user or entry.actor


def denials(entries: Iterable[AuditEntry], *, names_shown: int = 3) -> dict[str, list[Refusal]]:
    """Refusals by user (service accounts first, then by name), each user's in order of first refusal: of the
    refused requests' arrival (``requestReceivedTimestamp``), not of their events, which a server writes as
    requests complete — a slower request's event may follow a later one's."""
    by_user: dict[str, dict[tuple[str, str, str, str | None], Refusal]] = {}
    for entry in sorted(entries, key=_arrival):
        if not refused(entry):
            continue
        user, key, name = _before_authorization(entry) or _refused_request(entry)
        refusal = by_user.setdefault(user, {}).setdefault(key, Refusal(*key))
        refusal.count += 1
        if name and name not in refusal.names and len(refusal.names) < names_shown:
            refusal.names.append(name)
    order = sorted(by_user, key=lambda user: (not user.startswith(_SERVICE_ACCOUNT), user))
    return {user: list(by_user[user].values()) for user in order}


_Key = tuple[str, str, str, str | None]


def _arrival(entry: AuditEntry) -> float:
    request = entry.request
    return request.received if request is not None and request.received is not None else entry.time


def _refused_request(entry: AuditEntry) -> tuple[str, _Key, str | None]:
    """Authorization refused the request itself: its verb and resource, for the user it acted as."""
    resource = entry.resource + (f"/{entry.subresource}" if entry.subresource else "")
    if not resource and entry.request is not None:
        resource = entry.request.uri.split("?", 1)[0]  # a path: a nonResourceURLs rule
    return _subject(entry), (entry.verb, entry.group, resource, entry.namespace), entry.name


def _before_authorization(entry: AuditEntry) -> tuple[str, _Key, str | None] | None:
    """A 403 with no decision written (impersonation's): the check its message names, or None."""
    annotations = entry.request.annotations if entry.request is not None else {}
    if DECISION in annotations:
        return None
    message = entry.message or ""
    found = _REFUSED_RESOURCE.match(message)
    if found:
        key = (found["verb"], found["group"], found["resource"], found["namespace"] or None)
        return html.unescape(found["user"]), key, found["name"] or None
    found = _REFUSED_PATH.match(message)
    if found:
        return html.unescape(found["user"]), (found["verb"], "", html.unescape(found["path"]), None), None
    return None


def denial_lines(report: dict[str, list[Refusal]]) -> list[str]:
    if not report:
        return ["no request was refused by authorization"]
    lines: list[str] = []
    for user, refusals in report.items():
        lines.append(f"{user}: {sum(r.count for r in refusals)} refused")
        for r in refusals:
            names = f"  e.g. {', '.join(r.names)}" if r.names else ""
            lines.append(f"  {r.count:>5}  {r.rule()}{names}")
    return lines
