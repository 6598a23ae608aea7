"""The status subresource of every kind that has one (GET, PUT, merge/JSON/strategic patch, apply; a spec
change sent to status is dropped), the scale subresource of every kind that has one, and a subresource a
kind does not have."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import CONTROLLER_OWNED_STATUS, Profile, profiles  # noqa: E402
from _steps import (  # noqa: E402
    JSON_PATCH,
    STRATEGIC,
    apply,
    created,
    get,
    kind_case,
    patch,
    put,
    with_rv,
)


def status(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    body, item = p.body(name), k.item(name)
    made = created(p, body)
    last = len(made) - 1
    change = p.status_change or {"status": {}}
    sub = k.item(name, "status")
    whole = with_rv(p.changed(p.changed(p.body(name, {"via": "status"}), p.spec_change), change), f"{{rv:{last}}}")
    reads = [
        kind_case(p, "status", "get", "subresources", [*made, get(sub)]),
        kind_case(p, "status", "get-missing", "subresources", [get(sub)]),
    ]
    if p.table_key in CONTROLLER_OWNED_STATUS:
        return reads  # a controller rewrites what a client writes there (see _profiles)
    out = [
        *reads,
        kind_case(p, "status", "put", "subresources", [*made, put(sub, whole), get(item)]),
        kind_case(p, "status", "merge-patch", "subresources", [*made, patch(sub, change)]),
        # One "add" of the whole status: a fresh object may have no status to add fields into.
        kind_case(p, "status", "json-patch", "subresources", [*made, patch(sub, [
            {"op": "add", "path": "/status", "value": change["status"]}], JSON_PATCH)]),
        kind_case(p, "status", "apply", "subresources", [
            *made, apply(sub, {"apiVersion": k.api_version, "kind": k.kind, "metadata": {"name": name}, **change},
                         "status-writer")]),
    ]
    if p.spec_change:
        out.append(kind_case(p, "status", "spec-ignored", "subresources", [
            *made, patch(sub, {**p.spec_change, "metadata": {"labels": {"via": "status"}}}), get(item)]))
    if not p.custom:
        out.append(kind_case(p, "status", "strategic-patch", "subresources", [*made, patch(sub, change, STRATEGIC)]))
    return out


def scale(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    made = created(p, p.body(name))
    last = len(made) - 1
    sub, item = k.item(name, "scale"), k.item(name)

    def scale_body(replicas: int, rv: str | None = f"{{rv:{last}}}", kind: str = "Scale") -> dict:
        meta = {"name": name, "namespace": "{ns}"} if k.namespaced else {"name": name}
        if rv:
            meta["resourceVersion"] = rv
        return {"apiVersion": "autoscaling/v1", "kind": kind, "metadata": meta, "spec": {"replicas": replicas}}

    return [
        kind_case(p, "scale", "get", "subresources", [*made, get(sub)]),
        kind_case(p, "scale", "get-missing", "subresources", [get(sub)]),
        kind_case(p, "scale", "put", "subresources", [*made, put(sub, scale_body(3)), get(item)]),
        kind_case(p, "scale", "put-no-rv", "subresources", [*made, put(sub, scale_body(3, rv=None))]),
        kind_case(p, "scale", "put-stale-rv", "subresources", [*made, put(sub, scale_body(3)), put(sub, scale_body(4))]),
        kind_case(p, "scale", "put-negative", "subresources", [*made, put(sub, scale_body(-1))]),
        kind_case(p, "scale", "put-wrong-kind", "subresources", [*made, put(sub, scale_body(3, kind=k.kind))]),
        kind_case(p, "scale", "merge-patch", "subresources", [*made, patch(sub, {"spec": {"replicas": 2}}), get(item)]),
        kind_case(p, "scale", "json-patch", "subresources", [
            *made, patch(sub, [{"op": "replace", "path": "/spec/replicas", "value": 5}], JSON_PATCH)]),
        kind_case(p, "scale", "apply", "subresources", [
            *made, apply(sub, {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name},
                               "spec": {"replicas": 4}}, "scaler")]),
    ]


def cases() -> list[dict]:
    out: list[dict] = []
    for p in profiles():
        if p.kind.has("status"):
            out += status(p)
        elif p.representative:
            made = created(p, p.body(p.name()))
            out.append(kind_case(p, "status", "absent", "subresources", [*made, get(p.kind.item(p.name(), "status"))]))
        if p.kind.has("scale"):
            out += scale(p)
        if p.representative:
            out.append(kind_case(p, "subresource", "unknown", "subresources", [
                *created(p, p.body(p.name())), get(p.kind.item(p.name(), "frobnicate"))]))
    return out
