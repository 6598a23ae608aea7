"""Bad query parameters on the representative kinds, each on the verb that reads it: list (limit,
resourceVersion, resourceVersionMatch, timeoutSeconds, continue, label and field selector syntax), get,
watch, create/update/patch (dryRun, fieldValidation, fieldManager, force), delete (propagationPolicy,
gracePeriodSeconds, orphanDependents, preconditions in the body) and deletecollection."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profile  # noqa: E402
from _steps import MERGE, created, delete, get, kind_case, patch, post, put, with_rv  # noqa: E402

KINDS = (("", "ConfigMap"), ("", "Pod"), ("apps", "Deployment"), ("", "Service"), ("diff.example.com", "Widget"),
         ("rbac.authorization.k8s.io", "ClusterRole"))
HUGE_RV = "9" * 5000
# Not here, because the real server's answer depends on more than the case: a GET or LIST at resourceVersion
# 0 (the watch cache may not have the case's writes yet), a continue token of an old revision (410 once it is
# compacted), a watch with timeoutSeconds=-1 (an error event or none, by timing), a resourceVersion ahead of
# the server's ("Too large resource version: N, current: M" names the server's current revision); and
# watch=abc (served as a watch, while the harness reads a stream only from a step with watch=true).

LIST = [
    ("limit-negative", {"limit": "-5"}), ("limit-text", {"limit": "abc"}), ("limit-float", {"limit": "1.5"}),
    ("limit-overflow", {"limit": "99999999999999999999"}), ("limit-empty", {"limit": ""}),
    ("rv-text", {"resourceVersion": "abc"}), ("rv-huge", {"resourceVersion": HUGE_RV}),
    ("rv-negative", {"resourceVersion": "-1"}),
    ("rvmatch-bad", {"resourceVersion": "0", "resourceVersionMatch": "Bad"}),
    ("rvmatch-exact-zero", {"resourceVersion": "0", "resourceVersionMatch": "Exact"}),
    ("timeout-negative", {"timeoutSeconds": "-1"}), ("timeout-text", {"timeoutSeconds": "abc"}),
    ("continue-garbage", {"continue": "garbage"}), ("continue-garbage-limit", {"continue": "garbage", "limit": "1"}),
    ("label-open-paren", {"labelSelector": "a in ("}), ("label-bang-bang", {"labelSelector": "!!"}),
    ("label-double-equals-value", {"labelSelector": "a=b=c"}), ("label-trailing-comma", {"labelSelector": "a==b,"}),
    ("label-no-key", {"labelSelector": "=x"}), ("label-in-no-parens", {"labelSelector": "a in b"}),
    ("label-empty-term", {"labelSelector": "a,,b"}), ("label-bang-value", {"labelSelector": "a!"}),
    ("label-value-too-long", {"labelSelector": "a=" + "v" * 64}), ("label-bad-key", {"labelSelector": "a b=c"}),
    ("label-gt", {"labelSelector": "a>1"}), ("label-gt-text", {"labelSelector": "a>x"}),
    ("field-no-operator", {"fieldSelector": "metadata.name"}), ("field-double-equals", {"fieldSelector": "metadata.name==x"}),
    ("field-two-equals", {"fieldSelector": "metadata.name=a=b"}), ("field-unknown", {"fieldSelector": "spec.nope=x"}),
    ("field-set-based", {"fieldSelector": "metadata.name in (a,b)"}), ("field-empty", {"fieldSelector": ""}),
    ("bookmarks-text", {"allowWatchBookmarks": "abc"}),
    ("send-initial-events-list", {"sendInitialEvents": "true"}), ("pretty-text", {"pretty": "abc"}),
    ("unknown-parameter", {"frobnicate": "1"}), ("limit-twice", {"limit": ["1", "2"]}),
]
WATCH = [
    ("rv-text", {"resourceVersion": "abc"}), ("rv-huge", {"resourceVersion": HUGE_RV}),
    ("rvmatch-exact", {"resourceVersion": "0", "resourceVersionMatch": "Exact"}),
    ("initial-events-without-rvmatch", {"sendInitialEvents": "true"}),
    ("initial-events-exact", {"sendInitialEvents": "true", "resourceVersionMatch": "Exact", "resourceVersion": "1"}),
    ("bookmarks-text", {"allowWatchBookmarks": "abc"}), ("label-syntax", {"labelSelector": "a in ("}),
]
WRITE = [
    ("dryrun-bad", {"dryRun": "Bad"}), ("dryrun-mixed", {"dryRun": ["All", "Bad"]}), ("dryrun-empty", {"dryRun": ""}),
    ("fieldvalidation-bad", {"fieldValidation": "Bad"}), ("fieldvalidation-lowercase", {"fieldValidation": "strict"}),
    ("fieldmanager-too-long", {"fieldManager": "m" * 129}), ("fieldmanager-control", {"fieldManager": "a\tb"}),
    ("force-on-create", {"force": "true"}), ("pretty-true", {"pretty": "true"}),
]
DELETE = [
    ("propagation-bad", {"propagationPolicy": "Bad"}), ("grace-negative", {"gracePeriodSeconds": "-1"}),
    ("grace-text", {"gracePeriodSeconds": "abc"}), ("orphan-text", {"orphanDependents": "abc"}),
    ("orphan-and-foreground", {"orphanDependents": "true", "propagationPolicy": "Foreground"}),
    ("dryrun-bad", {"dryRun": "Bad"}), ("grace-zero", {"gracePeriodSeconds": "0"}),
    ("propagation-orphan", {"propagationPolicy": "Orphan"}), ("propagation-foreground", {"propagationPolicy": "Foreground"}),
]
DELETE_BODIES = [
    ("body-propagation-bad", {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Bad"}),
    ("body-grace-string", {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": "x"}),
    ("body-wrong-kind", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}),
    ("body-dryrun-bad", {"apiVersion": "v1", "kind": "DeleteOptions", "dryRun": ["Bad"]}),
    ("body-precondition-both", {"apiVersion": "v1", "kind": "DeleteOptions",
                                "preconditions": {"uid": "00000000-0000-0000-0000-000000000000", "resourceVersion": "1"}}),
    ("body-meta-v1", {"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions", "propagationPolicy": "Background"}),
]


def _scoped(p: Profile, query: dict) -> dict:
    """A cluster-scoped list sees every case's objects: confine it to objects named after this case. One whose
    field selector is empty (selecting everything) is confined to what the server made itself (the RBAC
    bootstrap policy's objects, labelled so), which no case creates or deletes."""
    if p.kind.namespaced:
        return query
    if query.get("fieldSelector") == "":
        return {"labelSelector": "kubernetes.io/bootstrapping=rbac-defaults", **query}
    if "fieldSelector" in query:
        return query
    return {"fieldSelector": f"metadata.name={p.name()}", **query}


def for_kind(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    body, item, collection = p.body(name), k.item(name), k.collection()
    made = created(p, body)
    rv = f"{{rv:{len(made) - 1}}}"
    out = [kind_case(p, "query", f"list-{v}", "query", [get(collection, query=_scoped(p, q))]) for v, q in LIST]
    out += [kind_case(p, "query", f"get-{v}", "query", [*made, get(item, query=q)]) for v, q in (
        ("rv-text", {"resourceVersion": "abc"}), ("rv-huge", {"resourceVersion": HUGE_RV}),
        ("rv-current", {"resourceVersion": rv}),
        ("rvmatch", {"resourceVersion": rv, "resourceVersionMatch": "NotOlderThan"}))]
    out += [kind_case(p, "query", f"watch-{v}", "query", [get(collection, query=_scoped(p, {"watch": "true", **q}),
                                                               watch={"events": 1, "timeout": 3})]) for v, q in WATCH]
    for v, q in WRITE:
        out += [
            kind_case(p, "query", f"create-{v}", "query", [post(collection, body, query=q), get(item)]),
            kind_case(p, "query", f"update-{v}", "query", [*made, put(item, with_rv(body, rv), query=q)]),
            kind_case(p, "query", f"patch-{v}", "query", [*made, patch(item, {"metadata": {"labels": {"a": "b"}}},
                                                                      MERGE, query=q)]),
        ]
    for v, q in DELETE:
        # After an Orphan or Foreground delete the garbage collector removes its finalizer on its own
        # schedule: a GET then would race it, so only the DELETE's own answer is compared.
        after = [] if v in ("propagation-orphan", "propagation-foreground", "orphan-text") else [get(item)]
        out.append(kind_case(p, "query", f"delete-{v}", "query", [*made, delete(item, query=q), *after]))
    out += [kind_case(p, "query", f"delete-{v}", "query", [*made, delete(item, b), get(item)]) for v, b in DELETE_BODIES]
    if "deletecollection" in k.verbs:
        out += [kind_case(p, "query", f"deletecollection-{v}", "query", [
            *made, delete(collection, query=_scoped(p, q)), get(item)]) for v, q in (
            ("label-syntax", {"labelSelector": "a in ("}), ("field-unknown", {"fieldSelector": "spec.nope=x"}),
            ("propagation-bad", {"propagationPolicy": "Bad"}), ("dryrun", {"dryRun": "All"}))]
    return out


def cases() -> list[dict]:
    return [c for group, kind in KINDS for c in for_kind(profile(kind, group))]
