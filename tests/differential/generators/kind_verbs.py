"""Every verb on every GA kind (and on two custom resource kinds): create, get, list, update, delete, with
the errors each verb has (a duplicate, a stale resourceVersion, a failed precondition, a missing object, a
body that names another namespace, kind or version, a missing required field, an invalid name)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import GONE, created, delete, get, kind_case, post, put, with_rv  # noqa: E402

ZERO_UID = "00000000-0000-0000-0000-000000000000"


def _changed(p: Profile, obj: dict) -> dict:
    """The object with a label and (where the kind has one) a spec change: what an update sends."""
    out = p.changed(obj, p.spec_change)
    out["metadata"].setdefault("labels", {})["changed"] = "yes"
    return out


def _other_kind(p: Profile) -> tuple[str, str]:
    return ("v1", "Secret") if p.kind.kind == "ConfigMap" else ("v1", "ConfigMap")


def creates(p: Profile, name: str) -> list[dict]:
    k, body = p.kind, p.body(name)
    cases = [
        kind_case(p, "create", "basic", "verbs", created(p, body)),
        kind_case(p, "create", "duplicate", "verbs", [*created(p, body), post(k.collection(), body)]),
        kind_case(p, "create", "wrong-apiversion", "verbs",
                  [post(k.collection(), {**body, "apiVersion": f"{k.group}/v9" if k.group else "v9"})]),
        kind_case(p, "create", "wrong-kind", "verbs", [post(k.collection(), {**body, "kind": "Wrong"})]),
        kind_case(p, "create", "other-kind", "verbs", [post(k.collection(), {
            **body, "apiVersion": _other_kind(p)[0], "kind": _other_kind(p)[1]})]),
        kind_case(p, "create", "invalid-name", "names",
                  [post(k.collection(), {**body, "metadata": {"name": "Invalid_Name"}})]),
        kind_case(p, "create", "no-name", "names", [post(k.collection(), {**body, "metadata": {}})]),
    ]
    if p.generate_name_prefix:
        cases.append(kind_case(p, "create", "generate-name", "verbs", [
            post(k.collection(), {**body, "metadata": {"generateName": p.generate_name_prefix}})]))
    if k.namespaced:
        cases.append(kind_case(p, "create", "namespace-mismatch", "verbs", [post(
            k.collection(), {**body, "metadata": {"name": name, "namespace": "other"}})]))
    else:
        cases.append(kind_case(p, "create", "namespace-in-body", "verbs", [post(
            k.collection(), {**body, "metadata": {"name": name, "namespace": "{ns}"}})]))
    # A field the schema requires, left out: each top-level field, and each field of spec.
    for field in sorted(f for f in body if f not in ("apiVersion", "kind", "metadata")):
        cases.append(kind_case(p, "create", f"without-{field}", "validation",
                               [post(k.collection(), {f: v for f, v in body.items() if f != field})]))
    spec = body.get("spec")
    if isinstance(spec, dict) and len(spec) > 1:
        for field in sorted(spec):
            cases.append(kind_case(p, "create", f"without-spec.{field}", "validation", [post(
                k.collection(), {**body, "spec": {f: v for f, v in spec.items() if f != field}})]))
    return cases


def reads(p: Profile, name: str) -> list[dict]:
    k, body = p.kind, p.body(name)
    made = created(p, body)
    # A cluster-scoped list would see every other case's objects: select this case's by name.
    query = None if k.namespaced else {"fieldSelector": f"metadata.name={name}"}
    return [
        kind_case(p, "get", "basic", "verbs", [*made, get(k.item(name))]),
        kind_case(p, "get", "missing", "verbs", [get(k.item(name))]),
        kind_case(p, "list", "basic", "verbs", [*made, get(k.collection(), query=query)]),
    ]


def updates(p: Profile, name: str) -> list[dict]:
    k, body = p.kind, p.body(name)
    made = created(p, body)
    rv = f"{{rv:{len(made) - 1}}}"
    change = with_rv(_changed(p, body), rv)
    other = with_rv(_changed(p, body), rv)
    other["metadata"]["name"] = "other-name"
    return [
        kind_case(p, "update", "basic", "verbs", [*made, put(k.item(name), change)]),
        kind_case(p, "update", "stale-rv", "verbs", [*made, put(k.item(name), change), put(k.item(name), change)]),
        kind_case(p, "update", "no-rv", "verbs", [*made, put(k.item(name), _changed(p, body))]),
        kind_case(p, "update", "missing", "verbs", [put(k.item(name), body)]),
        kind_case(p, "update", "name-mismatch", "verbs", [*made, put(k.item(name), other)]),
    ]


def deletes(p: Profile, name: str) -> list[dict]:
    k, body = p.kind, p.body(name)
    made = created(p, body)
    last = len(made) - 1
    wait = GONE if p.deletion_finishes_later else None
    options = {"apiVersion": "v1", "kind": "DeleteOptions"}
    return [
        kind_case(p, "delete", "basic", "verbs", [*made, delete(k.item(name)),
                                                  *([get(k.item(name), wait=wait)] if p.read_after_delete else [])]),
        kind_case(p, "delete", "missing", "verbs", [delete(k.item(name))]),
        kind_case(p, "delete", "precondition-uid", "verbs", [*made, delete(k.item(name), {
            **options, "preconditions": {"uid": ZERO_UID}})]),
        kind_case(p, "delete", "precondition-rv", "verbs", [*made, delete(k.item(name), {
            **options, "preconditions": {"resourceVersion": "1"}})]),
        kind_case(p, "delete", "precondition-match", "verbs", [*made, delete(k.item(name), {
            **options, "preconditions": {"uid": f"{{uid:{last}}}", "resourceVersion": f"{{rv:{last}}}"}})]),
    ]


def deletecollection(p: Profile, name: str) -> list[dict]:
    """DELETE of the collection with a label selector: only the selected object goes."""
    k = p.kind
    scope = {} if k.namespaced else {"case": "{ns}"}
    first, second = p.body(p.name(0), {**scope, "tier": "a"}), p.body(p.name(1), {**scope, "tier": "b"})
    steps = [*created(p, first), *created(p, second)]
    selector = ",".join([*(f"{k}={v}" for k, v in scope.items()), "tier=a"])
    wait = GONE if p.deletion_finishes_later else None
    reads = [get(k.item(p.name(0)), wait=wait)] if p.read_after_delete else []
    return [kind_case(p, "deletecollection", "label-selected", "verbs", [
        *steps, delete(k.collection(), query={"labelSelector": selector}), *reads, get(k.item(p.name(1)))])]


def cases() -> list[dict]:
    out: list[dict] = []
    for p in profiles():
        name = p.name()
        for family in (creates, reads, updates, deletes, deletecollection):
            out.extend(family(p, name))
    return out
