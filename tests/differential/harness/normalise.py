"""The comparable form of an answer: what a client can rely on, with what is unique to one server run masked.

Every rule here hides a possible divergence, so there are as few as possible and each says why it exists.
Values the case itself wrote (``Case.literals()``: a uid, a time or a resourceVersion the client chose) are
never masked: the server's handling of them is compared as it is.

Labels (``<uid:K>``, ``<rv:K>``, ``<gen:K>``) are given by order of first appearance in the case, walking
each body with its keys sorted, so the two servers' key order (not semantic in JSON) cannot change them;
equal values get equal labels, so "this PUT left the resourceVersion as it was" is still compared.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .client import Answer

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# RFC 3339 as Kubernetes writes metav1.Time and metav1.MicroTime (seconds or microseconds, Z or an offset).
TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
JWT = re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
PEM = re.compile(r"-----BEGIN ([A-Z ]+)-----\n.*?-----END \1-----\n?", re.S)
# The watch cache's "too old resource version: 1 (4012)": the second number is the oldest revision the cache
# still holds, which depends on everything the server did before (other cases, its own leases), not the case.
TOO_OLD = re.compile(r"(too old resource version: \d+) \(\d+\)")
# An object's JSON quoted inside a message (a patch that failed to apply quotes the patched object), perhaps
# quoted again (Status details) or written as a Python dict: its resourceVersion is mapped like any other.
QUOTED_RV = re.compile(r"""(\\*["']resourceVersion\\*["']:\s*\\*["'])(\d+)(?=\\*["'])""")
# The ServiceAccount admission plugin names a pod's token volume with a random five-character suffix
# (plugin/pkg/admission/serviceaccount, names.SimpleNameGenerator): the server's random choice.
TOKEN_VOLUME = re.compile(r"\bkube-api-access-[a-z0-9]{5}\b")
# Preconditions' refusals quote the stored object's resourceVersion in prose, not JSON ("the ResourceVersion
# in the precondition (1) does not match the ResourceVersion in record (642)", "ResourceVersion in object
# meta: 849"): mapped to the object's label like the metadata field it repeats.
PROSE_RV = re.compile(r"(ResourceVersion in (?:the precondition \(|record \(|precondition: |object meta: ))(\d+)")
# The authenticator's fingerprint of the client certificate (user.Info extra
# authentication.kubernetes.io/credential-id, apiserver pkg/authentication/request/x509): each oracle start
# makes its own admin certificate, so it changes with every run (SelfSubjectReview, CSR spec.extra).
CREDENTIAL_ID = re.compile(r"\bX509SHA256=[0-9a-f]+")
# names.SimpleNameGenerator (apiserver pkg/storage/names/generate.go): generateName cut to 58 characters,
# then five random characters of utilrand's alphabet.
MAX_GENERATED_PREFIX = 58
RANDOM_SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"
# A Service's ClusterIP is drawn at random from the service CIDR (pkg/registry/core/service/ipallocator's
# random scan), and quoted in messages ("failed to allocate IP: IPAddress.networking.k8s.io \"10.0.0.124\""):
# the server's random choice, masked by order of appearance; an address the case wrote is compared as it is.
IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
WARNING = re.compile(r'^\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"')
# structured-merge-diff lists a typed conversion's errors ("errors:\n  .spec.a: ...\n  .spec.b: ...") in the
# order it walked the object's Go maps (typed/validate.go ranges over map[string]interface{}), which Go
# randomises per run: the list is compared as a set, in sorted order.
SMD_ERRORS = re.compile(r"(errors:\n)((?:  [^\n]*(?:\n|$))+)")
SA_TOKEN_SECRET = "kubernetes.io/service-account-token"
RULE_LISTS = {"resourceRules", "nonResourceRules"}


@dataclass
class Context:
    """The labels of one case, shared by its steps."""

    namespace: str
    literals: set[str] = field(default_factory=set)
    uids: dict[str, str] = field(default_factory=dict)
    rvs: dict[str, str] = field(default_factory=dict)
    generated: dict[str, str] = field(default_factory=dict)  # a generated name -> its masked form
    ips: dict[str, str] = field(default_factory=dict)
    prefixes: list[re.Pattern[str]] = field(default_factory=list)  # generateNames the case sent

    def __post_init__(self) -> None:
        text = "\n".join(self.literals)
        self._literal_uids = set(UUID.findall(text))
        self._literal_times = set(TIME.findall(text))
        self._literal_ips = set(IPV4.findall(text))

    def ip(self, value: str) -> str:
        if value in self._literal_ips:
            return value
        return self.ips.setdefault(value, f"<ip:{len(self.ips)}>")

    def uid(self, value: str) -> str:
        if value in self._literal_uids:
            return value
        return self.uids.setdefault(value, f"<uid:{len(self.uids)}>")

    def rv(self, value: str) -> str:
        if value in self.literals or not value.isdigit():
            return value
        return self.rvs.setdefault(value, f"<rv:{len(self.rvs)}>")

    def generated_name(self, name: str, prefix: str) -> str:
        if name in self.literals:
            return name
        if self.namespace:
            # string() maps the namespace back before it masks generated names: keep them in that form.
            name, prefix = name.replace(self.namespace, "{ns}"), prefix.replace(self.namespace, "{ns}")
        return self.generated.setdefault(name, f"{prefix}<gen:{len(self.generated)}>")

    def expect_generated(self, prefix: str) -> None:
        """A generateName the case sent (as sent, namespace filled in): the name drawn from it is masked
        even where no object carries both (a refusal's message and details), and when it was truncated."""
        cut = prefix[:MAX_GENERATED_PREFIX]
        cut = re.escape(cut.replace(self.namespace, "{ns}") if self.namespace else cut)
        pattern = re.compile(f"(?<![a-z0-9-]){cut}{RANDOM_SUFFIX}(?![a-z0-9])")
        if all(p.pattern != pattern.pattern for p in self.prefixes):
            self.prefixes.append(pattern)

    def string(self, value: str) -> str:
        """The masks that apply to any string an answer holds."""
        if value in self.literals:
            return value
        if self.namespace:
            # The case's namespace is derived from its name and would be the same on both servers; it is
            # mapped back so recordings read as the case was written and survive a change of the naming rule.
            value = value.replace(self.namespace, "{ns}")
        for pattern in self.prefixes:
            for drawn in pattern.findall(value):
                if drawn not in self.literals:
                    self.generated_name(drawn, drawn[:-5])
        for name, masked in self.generated.items():
            # generateName's random five-character suffix: the server's random choice, not semantic.
            value = value.replace(name, masked)
        # Server-assigned uids are random; a uid appears in messages (preconditions) as well as in metadata.
        value = UUID.sub(lambda m: self.uid(m.group(0)), value)
        # Times the server stamped (creation, deletion, managedFields, conditions) differ by when they ran.
        value = TIME.sub(lambda m: m.group(0) if m.group(0) in self._literal_times else "<time>", value)
        value = TOKEN_VOLUME.sub(lambda m: self.generated_name(m.group(0), "kube-api-access-"), value)
        value = QUOTED_RV.sub(lambda m: m.group(1) + self.rv(m.group(2)), value)
        value = PROSE_RV.sub(lambda m: m.group(1) + self.rv(m.group(2)), value)
        value = CREDENTIAL_ID.sub("X509SHA256=<fingerprint>", value)
        value = IPV4.sub(lambda m: self.ip(m.group(0)), value)
        # Service-account tokens are signed with each server's own key.
        value = JWT.sub("<jwt>", value)
        # CA bundles (kube-root-ca.crt, token secrets) are each server's own certificate authority.
        value = PEM.sub(lambda m: f"<pem:{m.group(1)}>", value)
        value = SMD_ERRORS.sub(_sorted_errors, value)
        return TOO_OLD.sub(r"\1 (<oldest>)", value)


def _sorted_errors(match: re.Match[str]) -> str:
    block = match.group(2)
    ending = "\n" if block.endswith("\n") else ""
    return match.group(1) + "\n".join(sorted(block.rstrip("\n").split("\n"))) + ending


def comparable(answer: Answer, context: Context) -> dict[str, Any]:
    """``{status, reason, contentType, warnings, auditId, body}`` of one answer (see the README)."""
    content_type = answer.header("Content-Type")
    result: dict[str, Any] = {
        "status": answer.status,
        # Media type only: "application/json" and "application/json;charset=utf-8" read alike to clients.
        "contentType": content_type.split(";")[0].strip() if content_type else None,
        "warnings": [context.string(w) for w in warning_texts(answer.header_values("Warning"))],
        # Audit ids are random per request; clients only rely on the header being there.
        "auditId": answer.header("Audit-Id") is not None,
    }
    if answer.error is not None:
        # A transport failure (time-out, reset): the class is what matters, the text carries addresses.
        result["error"] = answer.error.split(":")[0]
    if answer.events is not None:
        result["body"] = [normalise_event(line, context) for line in answer.events]
    else:
        result["body"] = normalise_body(answer.body, context)
    body = result["body"]
    result["reason"] = (body.get("reason") if answer.status >= 400 and isinstance(body, dict)
                        and body.get("kind") == "Status" else None)
    return result


def warning_texts(values: list[str]) -> list[str]:
    """The texts of ``Warning: 299 - "text"`` headers (RFC 7234 form), in the order sent."""
    texts = []
    for value in values:
        match = WARNING.match(value)
        texts.append(_unquote(match.group(3)) if match else value.strip())
    return texts


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def parse(data: bytes) -> Any:
    """JSON when the bytes are JSON, else the text (or None for an empty body)."""
    if not data:
        return None
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return data.decode("utf-8", errors="replace")


def normalise_body(data: bytes, context: Context) -> Any:
    value = parse(data)
    if isinstance(value, str):
        return context.string(value)
    return normalise_value(value, context)


def normalise_event(line: bytes, context: Context) -> Any:
    event = parse(line)
    if not isinstance(event, dict) or not isinstance(event.get("object"), dict):
        return normalise_value(event, context)
    obj = event["object"]
    meta = obj.get("metadata")
    if event.get("type") == "BOOKMARK" and isinstance(meta, dict) and "resourceVersion" in meta:
        # A bookmark carries the server's current resourceVersion, moved by everything else the server did.
        obj = {**obj, "metadata": {**meta, "resourceVersion": "<bookmarkrv>"}}
    return normalise_value({**event, "object": obj}, context)


def normalise_value(value: Any, context: Context) -> Any:
    """Mask one parsed JSON document (an object, a list, a Status, a watch event)."""
    _collect_generated(value, context)
    return _walk(value, context, top=True)


def _collect_generated(value: Any, context: Context) -> None:
    """Learn generated names first, so a message that names one before its metadata is masked too."""
    if isinstance(value, dict):
        name, prefix = value.get("name"), value.get("generateName")
        cut = prefix[:MAX_GENERATED_PREFIX] if isinstance(prefix, str) else ""
        if isinstance(name, str) and cut and name.startswith(cut) and len(name) == len(cut) + 5:
            context.generated_name(name, cut)
        for key in sorted(value):
            _collect_generated(value[key], context)
    elif isinstance(value, list):
        for item in value:
            _collect_generated(item, context)


def _walk(value: Any, context: Context, *, top: bool = False) -> Any:
    if isinstance(value, str):
        return context.string(value)
    if isinstance(value, list):
        return [_walk(item, context) for item in value]
    if not isinstance(value, dict):
        return value
    is_list = top and isinstance(value.get("items"), list)
    out: dict[str, Any] = {}
    for key in sorted(value):
        item = value[key]
        if key == "metadata" and isinstance(item, dict):
            out[key] = _metadata(item, context, list_meta=is_list)
        elif key in RULE_LISTS and "incomplete" in value and isinstance(item, list):
            # A SelfSubjectRulesReview's rules come in the order the authorizer's map walk gives (random
            # per request: pkg/registry/authorization/selfsubjectrulesreview); a client reads them as a set.
            out[key] = sorted((_walk(rule, context) for rule in item), key=lambda r: json.dumps(r, sort_keys=True))
        elif key == "resourceVersion" and isinstance(item, str) and item:
            out[key] = context.rv(item)  # an object reference's (an Event's involvedObject)
        elif key == "data" and value.get("type") == SA_TOKEN_SECRET and isinstance(item, dict):
            out[key] = {k: _base64_text(v, context) for k, v in sorted(item.items())}
        else:
            out[context.string(key) if key not in context.literals else key] = _walk(item, context)
    return out


def _metadata(meta: dict[str, Any], context: Context, *, list_meta: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in sorted(meta):
        item = meta[key]
        if key == "managedFields" and isinstance(item, list) and all(isinstance(e, dict) for e in item):
            # The real server appends an entry when a manager first writes and merges the rest in place, so
            # with updates racing (a controller's status write, the case's own) its order depends on timing;
            # clients find entries by manager, operation and subresource.
            item = sorted(item, key=lambda e: tuple(str(e.get(k, "")) for k in ("manager", "operation",
                                                                                 "subresource")))
        if key == "resourceVersion" and isinstance(item, str) and item:
            # A list's resourceVersion is the server's current revision, which other writers move (the
            # apiserver's own leases and events); an object's is compared by identity within the case.
            out[key] = "<listrv>" if list_meta else context.rv(item)
        elif key == "continue" and list_meta and isinstance(item, str) and item:
            # An opaque token that embeds the list's revision.
            out[key] = "<continue>"
        else:
            out[key] = _walk(item, context)
    return out


def _base64_text(value: Any, context: Context) -> Any:
    """A token secret's data (token, ca.crt, namespace) masked inside its base64: compared as text."""
    if not isinstance(value, str):
        return _walk(value, context)
    try:
        text = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return context.string(value)
    return "base64:" + context.string(text)
