"""fieldValidation Strict, Warn, Ignore (and the default) on every kind, each with an unknown field at the top
level and a field given twice (and on the representative kinds one inside metadata, and the default with a
duplicate); then Strict on an update, a merge patch and an apply."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import MERGE, apply, created, kind_case, step, with_rv  # noqa: E402

MODES = ("Strict", "Warn", "Ignore", None)  # None: the parameter left out (the server's default is Warn)


def duplicated(body: dict) -> str:
    """The object as JSON text with metadata.name given twice (JSON objects cannot hold that, text can)."""
    meta = body["metadata"]
    name = json.dumps(meta["name"])
    rest = json.dumps({k: v for k, v in meta.items() if k != "name"})[1:-1]
    meta_text = "{" + f'"name": {name}, "name": {name}' + (f", {rest}" if rest else "") + "}"
    others = json.dumps({k: v for k, v in body.items() if k != "metadata"})[1:-1]
    return "{" + f'"metadata": {meta_text}, {others}' + "}"


def for_kind(p: Profile) -> list[dict]:
    k, name = p.kind, p.name()
    body, item = p.body(name), k.item(name)
    unknown_top = {**body, "unknownField": 1}
    unknown_meta = {**body, "metadata": {**body["metadata"], "unknownMeta": "x"}}
    out = []
    for mode in MODES:
        query = {"fieldValidation": mode} if mode else None
        label = (mode or "default").lower()
        out.append(kind_case(p, "fieldvalidation", f"{label}-unknown-top", "fieldvalidation",
                             [step("POST", k.collection(), body=unknown_top, query=query)]))
        if mode is not None or p.representative:
            out.append(kind_case(p, "fieldvalidation", f"{label}-duplicate", "fieldvalidation",
                                 [step("POST", k.collection(), raw=duplicated(body), query=query)]))
        if p.representative:
            out.append(kind_case(p, "fieldvalidation", f"{label}-unknown-metadata", "fieldvalidation",
                                 [step("POST", k.collection(), body=unknown_meta, query=query)]))
    made = created(p, body)
    rv = f"{{rv:{len(made) - 1}}}"
    strict = {"fieldValidation": "Strict"}
    out += [
        kind_case(p, "fieldvalidation", "strict-update-unknown", "fieldvalidation", [
            *made, step("PUT", item, body=with_rv(unknown_top, rv), query=strict)]),
        kind_case(p, "fieldvalidation", "strict-merge-patch-unknown", "fieldvalidation", [
            *made, step("PATCH", item, body={"unknownField": 1}, content_type=MERGE, query=strict)]),
        kind_case(p, "fieldvalidation", "strict-apply-unknown", "fieldvalidation", [
            apply(item, unknown_top, fieldValidation="Strict")]),
    ]
    return out


def cases() -> list[dict]:
    return [c for p in profiles() for c in for_kind(p)]
