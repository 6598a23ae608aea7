"""metadata.generation on every kind (a metadata change leaves it, a spec change bumps it, a status change
leaves it, an update that changes nothing leaves the resourceVersion too), and finalizers: a DELETE of an
object with a finalizer sets deletionTimestamp (and bumps generation), the object stays until the finalizer
is removed, and no finalizer can be added while it is being deleted."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import GONE, created, delete, get, kind_case, patch, put, with_rv  # noqa: E402

HOLD = "example.com/hold"
# Deleting these starts a controller's work (namespace content removal, CRD instance cleanup), which writes
# the object on its own schedule; what a GET sees after the DELETE would be a race.
NO_FINALIZER_CASES = {("", "Namespace"), ("apiextensions.k8s.io", "CustomResourceDefinition")}


def generation(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    body, item = p.body(name), k.item(name)
    made = created(p, body)
    last = len(made) - 1
    out = [
        kind_case(p, "generation", "metadata-change", "generation", [
            *made, patch(item, {"metadata": {"labels": {"changed": "yes"}, "annotations": {"a": "b"}}})]),
        kind_case(p, "generation", "same-object-put", "generation", [*made, put(item, with_rv(body, f"{{rv:{last}}}"))]),
    ]
    if p.spec_change:
        out.append(kind_case(p, "generation", "spec-change", "generation", [
            *made, patch(item, p.spec_change), patch(item, p.spec_change)]))
    if p.status_change:
        out.append(kind_case(p, "generation", "status-change", "generation", [
            *made, patch(k.item(name, "status"), p.status_change), get(item)]))
    return out


def finalizers(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    body = p.body(name)
    body["metadata"]["finalizers"] = [HOLD]
    item = k.item(name)
    made = created(p, body)
    wait = GONE if p.deletion_finishes_later else None
    # Where the default propagation is Orphan, the garbage collector would remove its orphan finalizer on its
    # own schedule: Background keeps our finalizer the only one, so every read after the DELETE is stable.
    query = {"propagationPolicy": "Background"} if p.deletion_finishes_later else None
    out = [
        kind_case(p, "finalizers", "delete-held", "finalizers", [
            *made, delete(item, query=query), get(item), patch(item, {"metadata": {"finalizers": None}}),
            get(item, wait=wait)]),
        kind_case(p, "finalizers", "add-while-deleting", "finalizers", [
            *made, delete(item, query=query), patch(item, {"metadata": {"finalizers": [HOLD, "example.com/late"]}})]),
    ]
    if p.representative:
        bad = p.body(name)
        bad["metadata"]["finalizers"] = ["not a finalizer"]
        out += [
            kind_case(p, "finalizers", "invalid-name", "finalizers", [*created(p, bad)]),
            kind_case(p, "finalizers", "unqualified", "finalizers", [*created(p, {
                **bad, "metadata": {"name": name, "finalizers": ["hold"]}})]),
            kind_case(p, "finalizers", "delete-twice", "finalizers", [
                *made, delete(item, query=query), delete(item, query=query)]),
            kind_case(p, "finalizers", "update-while-deleting", "finalizers", [
                *made, delete(item, query=query), patch(item, {"metadata": {"labels": {"late": "yes"}}})]),
        ]
    return out


def cases() -> list[dict]:
    out: list[dict] = []
    for p in profiles():
        out += generation(p)
        if p.table_key not in NO_FINALIZER_CASES:
            out += finalizers(p)
    return out
