"""Server-side apply on every kind: create by apply, re-apply (no change), a conflict with a second manager
and its force, a conflict with the manager of a plain create, and on the representative kinds the rarer
shapes (no field manager, a name that is not the URL's, a field given up, dry run)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import APPLY, apply, created, get, kind_case, settled, step  # noqa: E402


def _labelled(p: Profile, name: str, labels: dict[str, str]) -> dict:
    return p.body(name, labels)


def basics(p: Profile, name: str) -> list[dict]:
    item, body = p.kind.item(name), p.body(name)
    owned_a, owned_b = _labelled(p, name, {"owner": "a"}), _labelled(p, name, {"owner": "b"})
    cases = [
        kind_case(p, "apply", "create-reapply", "apply", [apply(item, body), *settled(p, name), apply(item, body)]),
        kind_case(p, "apply", "conflict-force", "apply", [
            apply(item, owned_a, "a"), *settled(p, name), apply(item, owned_b, "b"),
            apply(item, owned_b, "b", force="true")]),
    ]
    change = p.spec_change
    if change is not None:
        # A plain create's manager owns every field it set: an apply that changes one conflicts with it.
        cases.append(kind_case(p, "apply", "conflict-with-update", "apply", [
            *created(p, body), apply(item, p.changed(body, change), "a"),
            apply(item, p.changed(body, change), "a", force="true")]))
    return cases


def extras(p: Profile, name: str) -> list[dict]:
    item, body = p.kind.item(name), p.body(name)
    renamed = p.body("renamed")
    two, one = _labelled(p, name, {"a": "1", "b": "2"}), _labelled(p, name, {"a": "1"})
    return [
        kind_case(p, "apply", "no-field-manager", "apply", [step("PATCH", item, body=body, content_type=APPLY)]),
        kind_case(p, "apply", "name-mismatch", "apply", [apply(item, renamed)]),
        kind_case(p, "apply", "give-up-field", "apply", [apply(item, two), *settled(p, name), apply(item, one)]),
        kind_case(p, "apply", "shared-field", "apply", [apply(item, one, "a"), *settled(p, name),
                                                        apply(item, one, "b")]),
        kind_case(p, "apply", "dry-run", "apply", [apply(item, body, dryRun="All"), get(item)]),
        kind_case(p, "apply", "force-false", "apply", [apply(item, body, force="false")]),
        kind_case(p, "apply", "long-manager", "apply", [apply(item, body, "m" * 129)]),
        kind_case(p, "apply", "no-apiversion", "apply", [apply(item, {k: v for k, v in body.items()
                                                                     if k != "apiVersion"})]),
        kind_case(p, "apply", "no-kind", "apply", [apply(item, {k: v for k, v in body.items() if k != "kind"})]),
        kind_case(p, "apply", "resource-version", "apply", [
            apply(item, body), *settled(p, name),
            apply(item, {**body, "metadata": {"name": name, "resourceVersion": "1"}})]),
    ]


def cases() -> list[dict]:
    out: list[dict] = []
    for p in profiles():
        name = p.name()
        out.extend(basics(p, name))
        if p.representative:
            out.extend(extras(p, name))
    return out
