"""dryRun=All on every kind: a create, an update, a patch and a delete are answered as if done, and a GET
afterwards shows that nothing was stored (or that the stored object is unchanged)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import profiles  # noqa: E402
from _steps import created, delete, get, kind_case, patch, post, put, with_rv  # noqa: E402

DRY = {"dryRun": "All"}


def cases() -> list[dict]:
    out: list[dict] = []
    for p in profiles():
        k, name = p.kind, p.name()
        body, item = p.body(name), k.item(name)
        made = created(p, body)
        rv = f"{{rv:{len(made) - 1}}}"
        changed = with_rv(p.changed(p.body(name, {"changed": "yes"}), p.spec_change), rv)
        out += [
            kind_case(p, "dryrun", "create", "dryrun", [post(k.collection(), body, query=DRY), get(item)]),
            kind_case(p, "dryrun", "update", "dryrun", [*made, put(item, changed, query=DRY), get(item)]),
            kind_case(p, "dryrun", "patch", "dryrun", [
                *made, patch(item, {"metadata": {"labels": {"dry": "run"}}}, query=DRY), get(item)]),
            kind_case(p, "dryrun", "delete", "dryrun", [*made, delete(item, query=DRY), get(item)]),
        ]
        if p.generate_name_prefix:
            out.append(kind_case(p, "dryrun", "create-generate-name", "dryrun", [
                post(k.collection(), {**body, "metadata": {"generateName": p.generate_name_prefix}}, query=DRY)]))
        if p.representative:
            out += [
                kind_case(p, "dryrun", "create-duplicate", "dryrun", [*made, post(k.collection(), body, query=DRY)]),
                kind_case(p, "dryrun", "delete-missing", "dryrun", [delete(item, query=DRY)]),
                kind_case(p, "dryrun", "update-missing", "dryrun", [put(item, body, query=DRY), get(item)]),
                kind_case(p, "dryrun", "create-invalid", "dryrun", [
                    post(k.collection(), {**body, "metadata": {"name": "Bad_Name"}}, query=DRY)]),
                kind_case(p, "dryrun", "two-values", "dryrun", [
                    post(k.collection(), body, query={"dryRun": ["All", "All"]}), get(item)]),
            ]
    return out
