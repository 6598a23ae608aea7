"""Builders for cases and steps in the shape of tests/differential/README.md."""

from __future__ import annotations

import json
from typing import Any

from _profiles import Profile, resolve_addresses

Json = dict[str, Any]

MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"


def step(method: str, path: str, *, body: Any = None, raw: str | None = None, query: Json | None = None,
         content_type: str | None = None, accept: str | None = None, headers: dict[str, str] | None = None,
         watch: Json | None = None, wait: Json | None = None) -> Json:
    out: Json = {"method": method, "path": path}
    if query:
        out["query"] = dict(query)
    if body is not None:
        out["body"] = body
    if raw is not None:
        out["raw"] = raw
    if content_type is not None:
        out["contentType"] = content_type
    if accept is not None:
        out["accept"] = accept
    if headers:
        out["headers"] = dict(headers)
    if watch is not None:
        out["watch"] = watch
    if wait is not None:
        out["wait"] = wait
    return out


def get(path: str, **kw: Any) -> Json:
    return step("GET", path, **kw)


def post(path: str, body: Any = None, **kw: Any) -> Json:
    return step("POST", path, body=body, **kw)


def put(path: str, body: Any = None, **kw: Any) -> Json:
    return step("PUT", path, body=body, **kw)


def patch(path: str, body: Any = None, content_type: str = MERGE, **kw: Any) -> Json:
    return step("PATCH", path, body=body, content_type=content_type, **kw)


def apply(path: str, body: Any, manager: str = "a", **query: Any) -> Json:
    """Server-side apply; the body is sent as JSON (YAML's subset), as kubectl does."""
    return step("PATCH", path, raw=json.dumps(body), content_type=APPLY,
                query={"fieldManager": manager, **query})


def delete(path: str, body: Any = None, **kw: Any) -> Json:
    return step("DELETE", path, body=body, **kw)


def case(name: str, area: str, steps: list[Json], setup: list[Json] | tuple[Json, ...] = (),
         skip_live: str | None = None) -> Json:
    out: Json = {"name": name, "area": area, "steps": steps}
    if setup:
        out["setup"] = list(setup)
    if skip_live:
        out["skip_live"] = skip_live
    return out


def kind_case(p: Profile, family: str, variant: str, area: str, steps: list[Json],
              setup: list[Json] | tuple[Json, ...] = ()) -> Json:
    """A case about one kind, named ``<kind>/<family>/<variant>``, with the kind's own setup first."""
    name = f"{p.key}/{family}/{variant}"
    return case(name, area, resolve_addresses(name, steps), resolve_addresses(name, [*p.setup, *setup]))


def created(p: Profile, body: Json, query: Json | None = None) -> list[Json]:
    """A create, and for a kind the server changes by itself afterwards, a wait for that change: the last
    step's answer holds the object as later steps will find it (``{rv:N}`` of that step)."""
    steps = [post(p.kind.collection(), body, query=query)]
    if p.settle and not (query and query.get("dryRun")):
        steps.append(get(p.kind.item(body["metadata"]["name"]),
                         wait={"until": 200, "condition": p.settle, "timeout": 30}))
    return steps


# The wait for an object whose deletion finishes later (a CRD's instances cleaned up, a Job's pods collected):
# under load the real server took more than 60 s for a CRD (its finalizer queue shares the controllers with
# other cases' namespace deletions), so the wait allows the longest a step may wait.
GONE = {"until": 404, "timeout": 120}


def settled(p: Profile, name: str) -> list[Json]:
    """After a create made some other way than ``created`` (an apply, a PUT), the same wait."""
    if not p.settle:
        return []
    return [get(p.kind.item(name), wait={"until": 200, "condition": p.settle, "timeout": 30})]


def with_rv(obj: Json, rv: str) -> Json:
    out = json.loads(json.dumps(obj))
    out["metadata"]["resourceVersion"] = rv
    return out


def json_ops(change: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    """A merge patch as JSON patch "add" operations, one per leaf (a list is a leaf, as in a merge patch)."""
    ops = []
    for name, value in change.items():
        path = f"{prefix}/{name.replace('~', '~0').replace('/', '~1')}"
        if isinstance(value, dict):
            ops.extend(json_ops(value, path))
        else:
            ops.append({"op": "add", "path": path, "value": value})
    return ops
