"""The create-only kinds (TokenReview, SelfSubjectReview, the four access reviews): answered from the
request, never stored. Each is created, created with dryRun, created without its spec, read (which the
server does not serve) and created with an unknown field under Strict."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _kinds import Kind, key, review_kinds  # noqa: E402
from _steps import case, get, post  # noqa: E402

_ATTRIBUTES = {"verb": "get", "resource": "pods", "namespace": "{ns}"}
SPECS = {
    "TokenReview": {"token": "not-a-token"},
    "SelfSubjectReview": None,
    "SubjectAccessReview": {"user": "alice", "groups": ["dev"], "resourceAttributes": _ATTRIBUTES},
    "SelfSubjectAccessReview": {"resourceAttributes": _ATTRIBUTES},
    "SelfSubjectRulesReview": {"namespace": "{ns}"},
    "LocalSubjectAccessReview": {"user": "alice", "resourceAttributes": _ATTRIBUTES},
}


def for_kind(k: Kind) -> list[dict]:
    spec = SPECS[k.kind]
    body = {"apiVersion": k.api_version, "kind": k.kind}
    if spec is not None:
        body["spec"] = spec
    name = key(k)
    out = [
        case(f"{name}/create/basic", "verbs", [post(k.collection(), body)]),
        case(f"{name}/create/dry-run", "dryrun", [post(k.collection(), body, query={"dryRun": "All"})]),
        case(f"{name}/create/strict-unknown", "fieldvalidation", [
            post(k.collection(), {**body, "unknownField": 1}, query={"fieldValidation": "Strict"})]),
        case(f"{name}/create/wrong-kind", "verbs", [post(k.collection(), {**body, "kind": "Wrong"})]),
        case(f"{name}/list", "verbs", [get(k.collection())]),
        case(f"{name}/get", "verbs", [get(f"{k.collection()}/demo")]),
    ]
    if spec is not None:
        out.append(case(f"{name}/create/without-spec", "validation", [
            post(k.collection(), {"apiVersion": k.api_version, "kind": k.kind})]))
    if k.kind == "SubjectAccessReview":
        out.append(case(f"{name}/create/no-user", "validation", [post(k.collection(), {
            **body, "spec": {"resourceAttributes": _ATTRIBUTES}})]))
        out.append(case(f"{name}/create/both-attributes", "validation", [post(k.collection(), {
            **body, "spec": {**spec, "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}})]))
    if k.kind == "LocalSubjectAccessReview":
        out.append(case(f"{name}/create/namespace-mismatch", "validation", [post(k.collection(), {
            **body, "spec": {**spec, "resourceAttributes": {**_ATTRIBUTES, "namespace": "other"}}})]))
    return out


def cases() -> list[dict]:
    return [c for k in review_kinds() for c in for_kind(k)]
